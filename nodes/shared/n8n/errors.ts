import type { IDataObject } from 'n8n-workflow';

/**
 * Seam with n8n: the errors `httpRequestWithAuthentication` and `refreshOAuth2Token` throw, read as an HTTP answer, a
 * failure without an answer, or something else. Where it happened is known to the caller (transport/token.ts, auth.ts: a token
 * step's failure is the token endpoint's, a send with a token held is the service's), so nothing here guesses it.
 *
 * Measured on: every tested n8n (test/n8nVersions.json) with each version's OAuth2 client and error classes
 * (test/contract/errors.test.ts, serviceErrors.test.ts). Not part of n8n's documented node API. Relies on:
 * - A failure without an answer: on 2.x the NodeApiError's `cause` is the HTTP client's error (`code`); 1.x keeps no
 *   cause, only `httpCode` (the code) and the original message among `messages`.
 * - The OAuth2 client's errors: an OAuth error body (`{"error": …}`) becomes an AuthError (`code: 'EAUTH'`, `body`, the
 *   status dropped); another 3xx/4xx a ResponseError (`status`, `body`); a 5xx or no answer the HTTP client's error.
 * - 2.41.1 wraps a first fetch's failure as "Failed to acquire OAuth2 access token: … HTTP status NNN"; 1.x keeps of an
 *   AuthError only `httpCode: 'EAUTH'` and its message, of a ResponseError its status as `httpCode`.
 * Breaks: an unread status reads as `other` (the request fails, not repeated); the contract test fails first.
 */

/** Network failures where the request certainly never reached the service: any request may be repeated. */
export const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const NETWORK_CODES = new Set([
	...NEVER_SENT,
	'ECONNRESET',
	'ETIMEDOUT',
	'ECONNABORTED',
	'EPIPE',
	'ESOCKETTIMEDOUT',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'ERR_NETWORK',
	'EHOSTUNREACH',
	'ENETUNREACH',
]);

export type Classified =
	| { kind: 'http'; status: number; body: unknown; headers: IDataObject }
	| { kind: 'network'; code: string }
	| { kind: 'other'; error: Error };

interface Link {
	response?: { status?: number; data?: unknown; headers?: IDataObject };
	status?: unknown;
	body?: unknown;
	code?: unknown;
	cause?: unknown;
	message?: unknown;
	httpCode?: unknown;
	messages?: unknown;
}

/** OAuth error codes and texts that stand for the token endpoint's 429 and 503 (n8n drops the status). */
const OAUTH_BUSY: Array<[RegExp, number]> = [
	[/too_many_requests|too many requests|rate[_ ]limit|slow_down/i, 429],
	[/temporarily_unavailable|temporarily unavailable|server_error/i, 503],
];

/** The status an OAuth error code or text stands for: busy (429, 503), a refused client (401), else 400. */
function oauthStatus(text: string): number {
	const busy = OAUTH_BUSY.find(([pattern]) => pattern.test(text));
	if (busy) return busy[1];
	return /invalid_client|client authentication failed/i.test(text) ? 401 : 400;
}

const http = (status: number, body?: unknown, headers: IDataObject = {}): Classified => ({
	kind: 'http',
	status,
	body,
	headers,
});

/** Reads what n8n threw through the whole chain of causes, outermost first. */
export function classify(error: unknown): Classified {
	const chain: Link[] = [];
	for (let link = error; link && typeof link === 'object' && chain.length < 8; ) {
		if (chain.includes(link as Link)) break;
		chain.push(link as Link);
		link = (link as Link).cause;
	}
	for (const link of chain) {
		const status = link.response?.status;
		if (typeof status === 'number' && status > 0)
			return http(status, link.response?.data, link.response?.headers ?? {});
	}
	for (const link of chain) {
		const oauthError = (link.body as IDataObject | undefined)?.error;
		if (link.code === 'EAUTH' && typeof oauthError === 'string')
			return http(oauthStatus(oauthError), link.body);
		if (typeof link.status === 'number' && link.status >= 300) return http(link.status, link.body);
	}
	const texts = chain
		.flatMap((link) => [link.message, ...(Array.isArray(link.messages) ? link.messages : [])])
		.map((text) => (typeof text === 'string' ? text : ''))
		.join('\n');
	if (chain.some((link) => link.httpCode === 'EAUTH')) return http(oauthStatus(texts));
	const wrapped = /Failed to acquire OAuth2 access token: HTTP status (\d{3})/.exec(texts);
	if (wrapped) return http(Number(wrapped[1]));
	const timedOut = /timeout of \d+ms exceeded|ETIMEDOUT|ESOCKETTIMEDOUT/i.test(texts);
	for (const link of chain)
		for (const code of [link.code, link.httpCode])
			if (typeof code === 'string' && NETWORK_CODES.has(code))
				return { kind: 'network', code: code === 'ECONNABORTED' && timedOut ? 'ETIMEDOUT' : code };
	const outer = chain[0];
	if (!outer?.cause && typeof outer?.httpCode === 'string' && /^[345]\d\d$/.test(outer.httpCode))
		return http(Number(outer.httpCode));
	if (/socket hang up|timeout of \d+ms exceeded|aborted/i.test(texts))
		return { kind: 'network', code: timedOut ? 'ETIMEDOUT' : 'ECONNRESET' };
	return { kind: 'other', error: error as Error };
}
