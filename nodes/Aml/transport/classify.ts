import type { IDataObject } from 'n8n-workflow';

/**
 * What a failed send was: an HTTP answer (also one n8n wrapped, and the token endpoint's), a network failure
 * (no answer), or something else. The retry loop (request.ts) and the token renewal (auth.ts) decide on this.
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

export type Classified =
	| {
			kind: 'http';
			status: number;
			body: unknown;
			headers: IDataObject;
			fromTokenEndpoint: boolean;
	  }
	| { kind: 'network'; code: string }
	| { kind: 'other'; error: Error };

export function classify(error: unknown, tokenUrl: string): Classified {
	const err = error as {
		response?: { status?: number; data?: unknown; headers?: IDataObject };
		status?: number;
		body?: unknown;
		code?: string;
		cause?: unknown;
		config?: { url?: string };
		message?: string;
	};
	// An HTTP answer, also when n8n wrapped it (a NodeApiError whose cause is the HTTP client's error, as after a
	// token renewal): its URL tells the token endpoint apart. Only then a bare `status` means the token endpoint.
	for (const candidate of [err, err?.cause as typeof err]) {
		if (candidate?.response?.status) {
			const url = String(candidate.config?.url ?? '');
			return {
				kind: 'http',
				status: candidate.response.status,
				body: candidate.response.data,
				headers: candidate.response.headers ?? {},
				fromTokenEndpoint: tokenUrl !== '' && url.startsWith(tokenUrl),
			};
		}
	}
	// Token endpoint answers (client-oauth2 ResponseError), possibly wrapped by n8n.
	for (const candidate of [err, err?.cause as typeof err]) {
		if (candidate && typeof candidate.status === 'number' && candidate.status >= 400) {
			return {
				kind: 'http',
				status: candidate.status,
				body: candidate.body,
				headers: {},
				fromTokenEndpoint: true,
			};
		}
	}
	// n8n's OAuth2 client turns a token endpoint answer with an OAuth error body into an AuthError (code EAUTH) and drops
	// the status: a throttling error code stands for the endpoint's 429, an unavailable one for its 503.
	for (const candidate of [err, err?.cause as typeof err]) {
		const oauthError = (candidate?.body as IDataObject | undefined)?.error;
		if (candidate?.code === 'EAUTH' && typeof oauthError === 'string') {
			if (/too_many_requests|rate_limit|slow_down/i.test(oauthError))
				return {
					kind: 'http',
					status: 429,
					body: candidate.body,
					headers: {},
					fromTokenEndpoint: true,
				};
			if (/temporarily_unavailable|server_error/i.test(oauthError))
				return {
					kind: 'http',
					status: 503,
					body: candidate.body,
					headers: {},
					fromTokenEndpoint: true,
				};
		}
	}
	const tokenStatus = /Failed to acquire OAuth2 access token: HTTP status (\d{3})/.exec(
		err?.message ?? '',
	);
	if (tokenStatus) {
		return {
			kind: 'http',
			status: Number(tokenStatus[1]),
			body: undefined,
			headers: {},
			fromTokenEndpoint: true,
		};
	}
	// n8n 1.x wraps a failed request in a NodeApiError that keeps no `cause`: what is left is the code n8n read from the
	// original error (`httpCode`) and the original message among `messages`.
	const wrapped = error as { httpCode?: unknown; messages?: unknown };
	const texts = [
		err?.message ?? '',
		...(Array.isArray(wrapped?.messages) ? wrapped.messages.map(String) : []),
	].join('\n');
	const timedOut = /timeout of \d+ms exceeded|ETIMEDOUT|ESOCKETTIMEDOUT/i.test(texts);
	for (const code of [err?.code, (err?.cause as typeof err)?.code, wrapped?.httpCode]) {
		if (typeof code === 'string' && NETWORK_CODES.has(code))
			return { kind: 'network', code: code === 'ECONNABORTED' && timedOut ? 'ETIMEDOUT' : code };
	}
	if (!err?.cause && typeof wrapped?.httpCode === 'string' && /^[45]\d\d$/.test(wrapped.httpCode)) {
		// A status n8n 1.x threw without the answer: the API's statuses come back as answers (ignoreHttpStatusErrors),
		// so only n8n's own token fetch throws one.
		return {
			kind: 'http',
			status: Number(wrapped.httpCode),
			body: undefined,
			headers: {},
			fromTokenEndpoint: true,
		};
	}
	if (/socket hang up|timeout of \d+ms exceeded|aborted/i.test(texts)) {
		return { kind: 'network', code: timedOut ? 'ETIMEDOUT' : 'ECONNRESET' };
	}
	return { kind: 'other', error: error as Error };
}

/** A failure that the caller may turn into a fail-closed decision (checks). */
export function isTransientFailure(error: unknown): boolean {
	const httpCode = Number((error as { httpCode?: string }).httpCode);
	if (httpCode >= 500 || httpCode === 429) return true;
	const code = String((error as { context?: { code?: string } }).context?.code ?? '');
	return /could not be reached/.test(String((error as Error).message)) || NETWORK_CODES.has(code);
}

/** The token endpoint is throttling or failing: a renewal may wait and ask again. */
export function tokenEndpointBusy(error: unknown, tokenUrl: string): boolean {
	const outcome = classify(error, tokenUrl);
	if (outcome.kind === 'network') return true;
	return outcome.kind === 'http' && (outcome.status === 429 || outcome.status >= 500);
}

/** Token endpoint bodies may echo request data: keep only the OAuth2 error fields. */
export function tokenBody(body: unknown): unknown {
	if (body && typeof body === 'object') {
		const { error, error_description } = body as IDataObject;
		return { error, error_description };
	}
	return typeof body === 'string' ? body.slice(0, 200) : undefined;
}
