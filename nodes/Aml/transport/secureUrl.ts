/**
 * The client secret goes to the Token URL and the access token to the API Base URL: neither may travel unencrypted.
 * https is required, except on this machine's loopback (127.0.0.0/8, ::1, localhost: nothing leaves the host) or when
 * the credential's "Allow Plain HTTP (Insecure)" is on.
 */

/**
 * The credential's URL fields checked before anything is sent (length, https or loopback) and the API's base URL built
 * from the base URL and the path prefix; or why they may not be used.
 */
export function credentialUrls(
	credentials: Record<string, unknown>,
): { baseUrl: string; tokenUrl: string } | { problem: string } {
	const baseRaw = String(credentials.baseUrl ?? '');
	const prefixRaw = String(credentials.apiPathPrefix ?? '/api').trim();
	const tokenUrl = String(credentials.accessTokenUrl ?? '');
	const allowPlainHttp = credentials.allowInsecureHttp === true;
	const problem =
		urlFieldTooLong(baseRaw, 'API Base URL') ??
		urlFieldTooLong(prefixRaw, 'API Path Prefix') ??
		urlFieldTooLong(tokenUrl, 'Token URL') ??
		insecureUrlProblem(baseRaw, 'API Base URL', allowPlainHttp) ??
		insecureUrlProblem(tokenUrl, 'Token URL', allowPlainHttp);
	if (problem) return { problem };
	const prefix = trimSlashes(prefixRaw, { start: true, end: true });
	return {
		baseUrl: `${trimSlashes(baseRaw, { start: false, end: true })}${prefix ? `/${prefix}` : ''}`,
		tokenUrl,
	};
}

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
