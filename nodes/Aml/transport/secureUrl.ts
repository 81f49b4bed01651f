/**
 * The client secret goes to the Token URL and the access token to the API Base URL: neither may travel unencrypted.
 * https is required, except on this machine's loopback (127.0.0.0/8, ::1, localhost: nothing leaves the host) or when
 * the credential's "Allow Plain HTTP (Insecure)" is on.
 */

/** The longest API Base URL, API Path Prefix or Token URL accepted: longer ones are refused before anything is read. */
export const MAX_URL_FIELD_LENGTH = 2048;

/** Why a credential URL field is too long to be read, or undefined. */
export function urlFieldTooLong(value: string, field: string): string | undefined {
	return value.length > MAX_URL_FIELD_LENGTH
		? `The credential's ${field} is longer than ${MAX_URL_FIELD_LENGTH} characters: enter an address like https://app.example.com. Nothing was sent`
		: undefined;
}

/** `text` without its leading (`start`) and trailing (`end`) slashes, in one pass over them. */
export function trimSlashes(text: string, sides: { start: boolean; end: boolean }): string {
	let from = 0;
	let to = text.length;
	if (sides.start) while (from < to && text.charCodeAt(from) === 47) from++;
	if (sides.end) while (to > from && text.charCodeAt(to - 1) === 47) to--;
	return text.slice(from, to);
}

/** Whether a host name is this machine's loopback: localhost (and *.localhost), 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	if (host === 'localhost' || host.endsWith('.localhost')) return true;
	if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
	return /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Why `url` (a credential field named `field`) may not carry secrets, or undefined when it may. Names only the
 * scheme and host, never a user or password written into the URL.
 */
export function insecureUrlProblem(
	url: string,
	field: string,
	allowPlainHttp: boolean,
): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return `The credential's ${field} is not a valid URL: enter an address like https://app.example.com`;
	}
	if (parsed.protocol === 'https:') return undefined;
	const shown = `${parsed.protocol}//${parsed.host}`;
	if (parsed.protocol !== 'http:')
		return `The credential's ${field} (${shown}) must start with https://`;
	if (allowPlainHttp || isLoopbackHost(parsed.hostname)) return undefined;
	return `The credential's ${field} (${shown}) uses plain http: the client secret and the access token would travel unencrypted. Use https://, or turn on "Allow Plain HTTP (Insecure)" in the credential if this is a test service on a trusted network. Nothing was sent`;
}
