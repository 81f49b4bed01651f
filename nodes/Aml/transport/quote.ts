/**
 * Text the service (or a gateway in front of it) wrote, as it may appear in an error message, a description or an
 * output field: at most `max` characters (then an ellipsis), control and bidirectional-control characters replaced by
 * a space, bearer-like credentials (`Bearer …`, `Basic …`, a token, secret or password field written as `key=value`
 * or `"key":"value"`) and every secret the credentials of this process hold (client secrets, the access token stored
 * when a run started) replaced by `[redacted]`. Linear in `max`: only the first `max` characters (plus the longest
 * secret) are read.
 */

/** The most characters of service text quoted where no smaller bound is asked for. */
export const MAX_QUOTED = 1000;

const REDACTED = '[redacted]';
/** Secrets shorter than this are not searched for (they would redact ordinary words). */
const MIN_SECRET = 6;
/** Secrets longer than this are not searched for: no credential secret or token of the service is that long. */
const MAX_SECRET = 4096;
const MAX_SECRETS = 64;

/** The newest secrets of the credentials this process ran with, oldest first. */
const secrets = new Set<string>();

/** Remembers a credential's secret, so that quoted service text never shows it. */
export function rememberSecret(value: unknown): void {
	if (typeof value !== 'string' || value.length < MIN_SECRET || value.length > MAX_SECRET) return;
	secrets.delete(value);
	secrets.add(value);
	if (secrets.size > MAX_SECRETS) secrets.delete(secrets.values().next().value as string);
}

const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const KEY_VALUE =
	/\b((?:access|refresh|id)_token|client_secret|password|api_?key)(["']?\s*[:=]\s*["']?)[^\s"'&,;]+/gi;
/** C0 and C1 controls (newlines, tabs), zero-width and bidirectional controls, line and paragraph separators. */
const CONTROLS = /[\p{Cc}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;
const SPACES = / {2,}/g;

export function quoteServiceText(text: unknown, max = MAX_QUOTED): string {
	const whole = typeof text === 'string' ? text : String(text ?? '');
	const longest = Math.max(0, ...[...secrets].map((secret) => secret.length));
	// A secret that starts within the first `max` characters ends within the window: it is redacted whole.
	let quoted = whole.slice(0, max + longest + 64);
	const cut = quoted.length < whole.length;
	for (const secret of secrets)
		if (quoted.includes(secret)) quoted = quoted.split(secret).join(REDACTED);
	quoted = quoted
		.replace(CONTROLS, ' ') // each shown as a space
		.replace(BEARER, `$1 ${REDACTED}`)
		.replace(KEY_VALUE, `$1$2${REDACTED}`)
		.replace(SPACES, ' ')
		.trim();
	if (!cut && quoted.length <= max) return quoted;
	let end = Math.min(max, quoted.length);
	// not between the two halves of a surrogate pair
	const last = quoted.charCodeAt(end - 1);
	if (last >= 0xd800 && last <= 0xdbff) end--;
	return `${quoted.slice(0, end)}…`;
}
