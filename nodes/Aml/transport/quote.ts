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
/**
 * Whether a character code is a C0 or C1 control (newlines and tabs included), a zero-width or bidirectional
 * control, or a line/paragraph separator: shown as a space.
 */
function isControl(code: number): boolean {
	return (
		code <= 0x1f ||
		(code >= 0x7f && code <= 0x9f) ||
		code === 0x61c ||
		(code >= 0x200b && code <= 0x200f) ||
		(code >= 0x2028 && code <= 0x202e) ||
		(code >= 0x2060 && code <= 0x2069) ||
		code === 0xfeff
	);
}

/** `text` with every control character (isControl) replaced by a space, in one pass. */
function withoutControls(text: string): string {
	let out = '';
	let from = 0;
	for (let i = 0; i < text.length; i++) {
		if (!isControl(text.charCodeAt(i))) continue;
		out += `${text.slice(from, i)} `;
		from = i + 1;
	}
	return from === 0 ? text : out + text.slice(from);
}

const SPACES = / {2,}/g;

export function quoteServiceText(text: unknown, max = MAX_QUOTED): string {
	const whole =
		typeof text === 'string' ? text : text === undefined || text === null ? '' : String(text);
	let longest = 0;
	for (const secret of secrets) longest = Math.max(longest, secret.length);
	// A secret that starts within the first `max` characters ends within the window: it is redacted whole.
	let quoted = whole.slice(0, max + longest + 64);
	const cut = quoted.length < whole.length;
	for (const secret of secrets)
		if (quoted.includes(secret)) quoted = quoted.split(secret).join(REDACTED);
	quoted = withoutControls(quoted)
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
