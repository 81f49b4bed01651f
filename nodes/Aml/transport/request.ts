import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { backoffDelay, DEFAULT_BACKOFF, parseRetryAfter, type BackoffPolicy } from './backoff';
import { networkError, serviceError } from './errors';

export const CREDENTIAL_TYPE = 'amlOAuth2Api';

export type AmlContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

/**
 * How a request may be repeated after a 5xx, a timeout or a dropped connection (a 429 is always
 * retried: the service did not act on it).
 * - safe: repeating cannot duplicate data (GET, PUT, DELETE, PATCH, checks).
 * - create: a create keyed by the caller's ID; repeated, and a 422 "already exists" on a repeat means
 *   the first attempt did store it.
 * - none: not repeatable (uploads, manual alerts, notes without id); only retried when the request
 *   certainly never reached the service (connection refused).
 */
export type RetryMode = 'safe' | 'create' | 'none';

export interface AmlRequest {
	method: IHttpRequestMethods;
	/** Path after the credential's API prefix, e.g. `/v1/persons/abc`. Build it with `apiPath`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[] | Buffer;
	headers?: IDataObject;
	retry?: RetryMode;
	timeoutMs?: number;
	/** Statuses the caller handles itself (returned, not thrown). */
	passStatuses?: number[];
}

export interface AmlResponse<T = unknown> {
	status: number;
	body: T;
	headers: IDataObject;
	attempts: number;
	/** A create whose first answer was lost and whose repeat found the entity already stored. */
	createdOnRetry?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
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

/** Encodes one path segment (IDs may contain ":" and "."). */
export function seg(value: string | number): string {
	return encodeURIComponent(String(value));
}

interface CredentialInfo {
	baseUrl: string;
	tokenUrl: string;
}

const credentialCache = new WeakMap<object, Promise<CredentialInfo>>();

/** Base URL + path prefix of the credential, read once per node run. */
export async function apiBase(this: AmlContext): Promise<CredentialInfo> {
	let cached = credentialCache.get(this);
	if (!cached) {
		cached = this.getCredentials(CREDENTIAL_TYPE).then((credentials) => {
			const base = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
			const prefixRaw = String(credentials.apiPathPrefix ?? '/api').trim();
			const prefix = prefixRaw === '' || prefixRaw === '/' ? '' : `/${prefixRaw.replace(/^\/+|\/+$/g, '')}`;
			return { baseUrl: `${base}${prefix}`, tokenUrl: String(credentials.accessTokenUrl ?? '') };
		});
		credentialCache.set(this, cached);
	}
	return await cached;
}

type Classified =
	| { kind: 'http'; status: number; body: unknown; headers: IDataObject; fromTokenEndpoint: boolean }
	| { kind: 'network'; code: string }
	| { kind: 'other'; error: Error };

function classify(error: unknown, tokenUrl: string): Classified {
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
			return { kind: 'http', status: candidate.status, body: candidate.body, headers: {}, fromTokenEndpoint: true };
		}
	}
	const tokenStatus = /Failed to acquire OAuth2 access token: HTTP status (\d{3})/.exec(err?.message ?? '');
	if (tokenStatus) {
		return { kind: 'http', status: Number(tokenStatus[1]), body: undefined, headers: {}, fromTokenEndpoint: true };
	}
	for (const candidate of [err, err?.cause as typeof err]) {
		const code = candidate?.code;
		if (typeof code === 'string' && NETWORK_CODES.has(code)) return { kind: 'network', code };
	}
	if (/socket hang up|timeout of \d+ms exceeded|aborted/i.test(err?.message ?? '')) {
		return { kind: 'network', code: /timeout/i.test(err?.message ?? '') ? 'ETIMEDOUT' : 'ECONNRESET' };
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

/**
 * The one request function of the package: credential's base URL, JSON in and out, OAuth2 token
 * handled by n8n (stored with the credential, renewed once on 401), bounded retries with backoff.
 */
export async function amlRequest<T = unknown>(
	this: AmlContext,
	request: AmlRequest,
	itemIndex?: number,
	policy: BackoffPolicy = DEFAULT_BACKOFF,
): Promise<AmlResponse<T>> {
	const { baseUrl, tokenUrl } = await apiBase.call(this);
	const retry: RetryMode = request.retry ?? (request.method === 'POST' ? 'none' : 'safe');
	const isBuffer = Buffer.isBuffer(request.body);
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		headers: { Accept: 'application/json', ...(request.headers ?? {}) },
		json: !isBuffer,
		returnFullResponse: true,
		// Statuses come back to this function; only 401 is thrown so that n8n renews the token once.
		ignoreHttpStatusErrors: { ignore: true, except: [401] },
		timeout: request.timeoutMs ?? configuredTimeout(this),
		abortSignal: signal,
	};

	let attempt = 0;
	let sentOnce = false;
	let repeated401 = false;
	for (;;) {
		attempt++;
		let outcome: Classified;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
				...options,
				headers: { ...(options.headers as IDataObject) },
			})) as { statusCode: number; body: T; headers: IDataObject };
			if (response.statusCode < 400 || request.passStatuses?.includes(response.statusCode)) {
				if (response.statusCode === 422 && retry === 'create' && sentOnce) {
					return { status: 200, body: undefined as T, headers: response.headers, attempts: attempt, createdOnRetry: true };
				}
				return { status: response.statusCode, body: response.body, headers: response.headers, attempts: attempt };
			}
			outcome = {
				kind: 'http',
				status: response.statusCode,
				body: response.body,
				headers: response.headers ?? {},
				fromTokenEndpoint: false,
			};
		} catch (error) {
			outcome = signal?.aborted ? { kind: 'other', error: new Error('The execution was cancelled') } : classify(error, tokenUrl);
		}

		if (outcome.kind === 'other') {
			// Only the message: the raw error may carry the request configuration and its headers.
			throw new NodeOperationError(this.getNode(), outcome.error?.message ?? 'Request failed', { itemIndex });
		}

		if (outcome.kind === 'http' && outcome.status === 422 && retry === 'create' && sentOnce) {
			// The earlier attempt was stored although its answer was lost: that is a success.
			return { status: 200, body: undefined as T, headers: outcome.headers, attempts: attempt, createdOnRetry: true };
		}

		let retryable = false;
		let retryAfterMs: number | undefined;
		if (outcome.kind === 'http') {
			if (outcome.status === 429) {
				retryable = true;
				retryAfterMs = parseRetryAfter(outcome.headers['retry-after']);
			} else if (outcome.status >= 500) {
				retryable = outcome.fromTokenEndpoint || retry !== 'none';
				if (!outcome.fromTokenEndpoint) sentOnce = true;
			} else if (outcome.status === 401 && !outcome.fromTokenEndpoint && !repeated401) {
				// n8n renewed the token once and its repeat still got 401. When another execution had renewed first,
				// n8n repeats with that stored token, which the service may have invalidated meanwhile: one more
				// attempt starts from the credential's current token, and n8n renews it if needed. A 401 did
				// nothing, so any request may be repeated.
				retryable = true;
				repeated401 = true;
			}
		} else {
			const neverSent = NEVER_SENT.has(outcome.code);
			retryable = neverSent || retry !== 'none';
			if (!neverSent) sentOnce = true;
		}

		if (!retryable || attempt >= policy.maxAttempts) {
			if (outcome.kind === 'network') {
				throw networkError(this.getNode(), outcome.code, request.method, request.path, attempt, itemIndex);
			}
			throw serviceError(
				this.getNode(),
				{
					status: outcome.status,
					body: outcome.fromTokenEndpoint ? tokenBody(outcome.body) : outcome.body,
					method: outcome.fromTokenEndpoint ? 'POST' : request.method,
					path: outcome.fromTokenEndpoint ? 'token endpoint' : request.path,
					attempts: attempt,
				},
				itemIndex,
			);
		}
		await sleep(backoffDelay(attempt, policy, retryAfterMs));
	}
}

/** The node's "Timeout" option, when the calling node has one. */
function configuredTimeout(ctx: AmlContext): number {
	if ('getNodeParameter' in ctx && 'getInputData' in ctx) {
		const value = (ctx as IExecuteFunctions).getNodeParameter('options.timeout', 0, DEFAULT_TIMEOUT_MS) as number;
		if (typeof value === 'number' && value >= 1000) return value;
	}
	return DEFAULT_TIMEOUT_MS;
}

/** Token endpoint bodies may echo request data: keep only the OAuth2 error fields. */
function tokenBody(body: unknown): unknown {
	if (body && typeof body === 'object') {
		const { error, error_description } = body as IDataObject;
		return { error, error_description };
	}
	return typeof body === 'string' ? body.slice(0, 200) : undefined;
}

/** Shorthand returning only the body. */
export async function amlApiRequest<T = unknown>(
	this: AmlContext,
	request: AmlRequest,
	itemIndex?: number,
): Promise<T> {
	const response = (await amlRequest.call(this, request, itemIndex)) as AmlResponse<T>;
	return response.body;
}
