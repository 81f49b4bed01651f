import type { IDataObject } from 'n8n-workflow';

/**
 * Seam with n8n: n8n's error shapes, the one place that reads what n8n throws from `httpRequestWithAuthentication` and
 * `refreshOAuth2Token` (not part of n8n's documented node API; an n8n upgrade can change it without a compile error).
 * Everything else in the package asks `classify` here and decides on its answer.
 *
 * Measured on: n8n 2.41.1 (n8n-core, @n8n/client-oauth2), 2.0.3 and 1.123.81 (test/unit/transport.test.ts with
 * n8n's real OAuth2 client; test/e2e/matrix.test.ts in real n8n). Relies on:
 * - A request the service answered comes back as an answer (`ignoreHttpStatusErrors: true`, every status, 401 too).
 *   When it fails without an answer, n8n throws a NodeApiError; on 2.x its `cause` is the HTTP client's error
 *   (an AxiosError with `code` and `config.url`); on 1.x it keeps no `cause`, only `httpCode` (the original error's
 *   code or status) and the original message among `messages`.
 * - The first token of a credential without one (client credentials) is fetched inside `httpRequestWithAuthentication`.
 *   2.41.1 wraps that fetch's failure twice: NodeApiError → OperationalError ("Failed to acquire OAuth2 access token:
 *   …") → the OAuth2 client's error. 1.123.81 and 2.0.3 throw the OAuth2 client's error into the NodeApiError directly
 *   (1.x: no `cause`). The token is stored with the credential before the service request is sent, so a credential
 *   that still holds no token after a failure never sent the service request (`placeFailure`, oauthToken.ts).
 * - A renewal (`refreshOAuth2Token`) throws the OAuth2 client's error itself.
 * - The OAuth2 client's errors: a token endpoint answer with an OAuth error body (`{"error": …}`) becomes an AuthError
 *   (`code: 'EAUTH'`, `body`, no status, no headers); another 4xx/3xx a ResponseError (`status`, `body`, code
 *   `ESTATUS`); a 5xx or a failure without an answer the HTTP client's AxiosError (`response` / `code`, `config.url` the
 *   token URL).
 * - n8n's message text "Failed to acquire OAuth2 access token: HTTP status NNN" (a ResponseError wrapped on 2.41.1);
 *   on 1.x an AuthError leaves `httpCode: 'EAUTH'` and its message (the OAuth2 client's text for the error code, else
 *   the endpoint's error_description), a ResponseError its status as `httpCode`.
 * - n8n's own limit on a token request is 300 s on 2.41.1 (the OAuth2 client's) and none on 1.123.81: the package
 *   does not wait for it; transport/auth.ts gives a first fetch up after the node's Timeout and places it itself
 *   (cancel.ts, oauthToken.ts `fetchesFirstToken`), so no n8n timeout error at the token endpoint is read here.
 */

/** Network failures where the request certainly never reached the service: any request may be repeated. */
export const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
export const NETWORK_CODES = new Set([
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

/**
 * What a failed send was: an HTTP answer (the service's, or the token endpoint's), a failure without an answer, or
 * something else. `fromTokenEndpoint`: it happened at the token endpoint (n8n's token fetch or renewal), so no
 * request was sent to the service. The retry loop (request.ts) and the token renewal (auth.ts) decide on this.
 */
export type Classified =
	| {
			kind: 'http';
			status: number;
			body: unknown;
			headers: IDataObject;
			fromTokenEndpoint: boolean;
	  }
	| { kind: 'network'; code: string; fromTokenEndpoint: boolean }
	| { kind: 'other'; error: Error };

interface Link {
	response?: { status?: number; data?: unknown; headers?: IDataObject };
	status?: unknown;
	body?: unknown;
	code?: unknown;
	cause?: unknown;
	config?: { url?: unknown };
	message?: unknown;
	httpCode?: unknown;
	messages?: unknown;
}

/** The error and its causes, outermost first (2.41.1's first token fetch is three deep). */
function chainOf(error: unknown): Link[] {
	const chain: Link[] = [];
	let link: unknown = error;
	while (link && typeof link === 'object' && chain.length < 8 && !chain.includes(link as Link)) {
		chain.push(link as Link);
		link = (link as Link).cause;
	}
	return chain;
}

const FIRST_FETCH = /Failed to acquire OAuth2 access token/i;

/** OAuth error codes of a token endpoint answer that stand for its 429 and its 503 (n8n drops the status). */
const OAUTH_BUSY: Array<[RegExp, number]> = [
	[/too_many_requests|too many requests|rate[_ ]limit|slow_down/i, 429],
	[/temporarily_unavailable|temporarily unavailable|server_error/i, 503],
];

/**
 * Classifies what `httpRequestWithAuthentication` or `refreshOAuth2Token` threw, reading the whole chain of causes.
 * `tokenUrl` tells the token endpoint's HTTP client errors apart from the service's.
 */
export function classify(error: unknown, tokenUrl: string): Classified {
	const chain = chainOf(error);
	const isTokenUrl = (url: unknown) =>
		tokenUrl !== '' && typeof url === 'string' && url.startsWith(tokenUrl);
	// Anything in the chain that can only come from the token fetch: its wrapper (2.41.1), the OAuth2 client's own
	// errors, or the HTTP client's error for the token URL.
	const atTokenEndpoint = chain.some(
		(link) =>
			(typeof link.message === 'string' && FIRST_FETCH.test(link.message)) ||
			link.code === 'EAUTH' ||
			link.code === 'ESTATUS' ||
			isTokenUrl(link.config?.url),
	);

	// An HTTP answer (the HTTP client's error keeps it); its URL tells the token endpoint apart.
	for (const link of chain) {
		if (typeof link.response?.status === 'number' && link.response.status > 0) {
			return {
				kind: 'http',
				status: link.response.status,
				body: link.response.data,
				headers: link.response.headers ?? {},
				fromTokenEndpoint: atTokenEndpoint || isTokenUrl(link.config?.url),
			};
		}
	}
	// The OAuth2 client's ResponseError: a token endpoint answer without an OAuth error body.
	for (const link of chain) {
		if (typeof link.status === 'number' && link.status >= 300 && !link.response) {
			return {
				kind: 'http',
				status: link.status,
				body: link.body,
				headers: {},
				fromTokenEndpoint: true,
			};
		}
	}
	// The OAuth2 client's AuthError: an OAuth error body, its status dropped. Throttling and unavailability stand for
	// the endpoint's 429 and 503; any other error code (invalid_client, invalid_scope, …) is its refusal (400/401).
	for (const link of chain) {
		const oauthError = (link.body as IDataObject | undefined)?.error;
		if (link.code === 'EAUTH' && typeof oauthError === 'string') {
			const busy = OAUTH_BUSY.find(([pattern]) => pattern.test(oauthError));
			const status = busy ? busy[1] : oauthError === 'invalid_client' ? 401 : 400;
			return { kind: 'http', status, body: link.body, headers: {}, fromTokenEndpoint: true };
		}
	}
	const messages = chain.flatMap((link) => [
		typeof link.message === 'string' ? link.message : '',
		...(Array.isArray(link.messages) ? link.messages.map(String) : []),
	]);
	const texts = messages.join('\n');
	// n8n 1.x keeps of an AuthError only its code (as `httpCode`) and its message: the OAuth2 client's text for the error
	// code, else the endpoint's error_description.
	if (chain.some((link) => link.httpCode === 'EAUTH')) {
		const busy = OAUTH_BUSY.find(([pattern]) => pattern.test(texts));
		const refusedClient = /invalid_client|client authentication failed/i.test(texts);
		const status = busy ? busy[1] : refusedClient ? 401 : 400;
		return { kind: 'http', status, body: undefined, headers: {}, fromTokenEndpoint: true };
	}
	const tokenStatus = /Failed to acquire OAuth2 access token: HTTP status (\d{3})/.exec(texts);
	if (tokenStatus) {
		return {
			kind: 'http',
			status: Number(tokenStatus[1]),
			body: undefined,
			headers: {},
			fromTokenEndpoint: true,
		};
	}
	// A failure without an answer: the code of any link (1.x keeps it as `httpCode` of its NodeApiError).
	const timedOut = /timeout of \d+ms exceeded|ETIMEDOUT|ESOCKETTIMEDOUT/i.test(texts);
	for (const link of chain) {
		for (const code of [link.code, link.httpCode]) {
			if (typeof code === 'string' && NETWORK_CODES.has(code))
				return {
					kind: 'network',
					code: code === 'ECONNABORTED' && timedOut ? 'ETIMEDOUT' : code,
					fromTokenEndpoint: atTokenEndpoint,
				};
		}
	}
	const outer = chain[0];
	if (
		outer &&
		!outer.cause &&
		typeof outer.httpCode === 'string' &&
		/^[345]\d\d$/.test(outer.httpCode)
	) {
		// A status n8n 1.x threw without the answer: the API's statuses come back as answers (ignoreHttpStatusErrors),
		// so only n8n's own token fetch throws one.
		return {
			kind: 'http',
			status: Number(outer.httpCode),
			body: undefined,
			headers: {},
			fromTokenEndpoint: true,
		};
	}
	if (/socket hang up|timeout of \d+ms exceeded|aborted/i.test(texts)) {
		return {
			kind: 'network',
			code: timedOut ? 'ETIMEDOUT' : 'ECONNRESET',
			fromTokenEndpoint: atTokenEndpoint,
		};
	}
	return { kind: 'other', error: error as Error };
}
