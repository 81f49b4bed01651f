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
	/** JSON (objects, lists), a Buffer as it is, or a FormData sent as multipart/form-data (its Files streamed). */
	body?: IDataObject | IDataObject[] | Buffer | FormData;
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
	ignoreSslIssues: boolean;
}

/**
 * What one node run (one context object) knows of its credential: the base URL, read once, and the
 * access token n8n stored with the credential, so that requests need not read and decrypt the
 * credential each time (n8n's OAuth2 helper does, per request). Only n8n fetches, renews and stores
 * tokens: a request without a token, or whose token is refused (401), goes through
 * `httpRequestWithAuthentication`, and the token is then read again from the credential.
 */
interface RunState {
	info: Promise<CredentialInfo>;
	token?: string;
	/** Set while the token is read again from the credential (one read for all waiting requests). */
	reading?: Promise<void>;
	/** Set while a refused token is renewed. */
	renewing?: Promise<RenewalFailure | undefined>;
	/** The stored token cannot be used directly (e.g. n8n keeps it encrypted): always ask n8n. */
	viaN8nOnly?: boolean;
	/** The node's Timeout option, read once. */
	timeoutMs?: number;
	/**
	 * Tokens this run renewed that the service refused at once, in a row (reset by any accepted request).
	 * At 2 the run stops asking for new tokens (it still takes one another run stored): a service that refuses
	 * every fresh token (revoked client, wrong account) must not cost a token request per item.
	 */
	refusedFresh: number;
	lastRefusedFresh?: string;
}

const runStates = new WeakMap<object, RunState>();

function tokenOf(credentials: IDataObject): string | undefined {
	const data = credentials.oauthTokenData as IDataObject | undefined;
	const token = data?.access_token;
	const type = String(data?.token_type ?? 'bearer').toLowerCase();
	return typeof token === 'string' && token !== '' && type === 'bearer' ? token : undefined;
}

function runState(ctx: AmlContext): RunState {
	let state = runStates.get(ctx);
	if (!state) {
		const created: RunState = {
			refusedFresh: 0,
			info: ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) => {
				const base = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
				const prefixRaw = String(credentials.apiPathPrefix ?? '/api').trim();
				const prefix = prefixRaw === '' || prefixRaw === '/' ? '' : `/${prefixRaw.replace(/^\/+|\/+$/g, '')}`;
				created.token = tokenOf(credentials);
				return {
					baseUrl: `${base}${prefix}`,
					tokenUrl: String(credentials.accessTokenUrl ?? ''),
					ignoreSslIssues: credentials.ignoreSSLIssues === true,
				};
			}),
		};
		state = created;
		runStates.set(ctx, state);
	}
	return state;
}

/** Base URL + path prefix of the credential, read once per node run. */
export async function apiBase(this: AmlContext): Promise<CredentialInfo> {
	return await runState(this).info;
}

/** Reads the token n8n stored with the credential (one read for all requests of the run waiting on it). */
async function rereadToken(ctx: AmlContext, state: RunState): Promise<void> {
	state.reading ??= ctx
		.getCredentials(CREDENTIAL_TYPE)
		.then((credentials) => {
			state.token = tokenOf(credentials);
		})
		.catch(() => {
			state.token = undefined;
		})
		.finally(() => {
			state.reading = undefined;
		});
	await state.reading;
}

/**
 * The service refused `refused` (401). If another run already renewed the stored token, take it;
 * otherwise n8n renews it (`refreshOAuth2Token`, which n8n runs once per credential however many
 * callers wait) and stores it. One renewal per run however many requests were refused at once.
 */
async function renewRefusedToken(ctx: AmlContext, state: RunState, refused: string): Promise<RenewalFailure | undefined> {
	if (state.token !== refused) return undefined;
	state.renewing ??= (async (): Promise<RenewalFailure | undefined> => {
		const { tokenUrl } = await state.info;
		let waited = 0;
		for (let attempt = 1; ; attempt++) {
			const stored = tokenOf(await ctx.getCredentials(CREDENTIAL_TYPE));
			if (stored !== undefined && stored !== refused) {
				state.token = stored;
				return undefined;
			}
			if (state.refusedFresh >= MAX_REFUSED_FRESH) return undefined;
			try {
				await (ctx.helpers as IExecuteFunctions['helpers']).refreshOAuth2Token.call(ctx, CREDENTIAL_TYPE);
				break;
			} catch (error) {
				// The token endpoint allows 5 requests a minute per IP. While it answers 429 (or fails), this one renewal
				// waits and asks again, for every request of the run that waits on it, instead of each refused request
				// asking on its own (which kept the endpoint refusing and failed the items).
				const delay = backoffDelay(attempt, TOKEN_BACKOFF);
				const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
				if (!tokenEndpointBusy(error, tokenUrl) || waited + delay > TOKEN_WAIT_MS || signal?.aborted) {
					return { error, waited: waited > 0 };
				}
				await sleep(delay);
				waited += delay;
			}
		}
		const renewed = tokenOf(await ctx.getCredentials(CREDENTIAL_TYPE));
		// A stored token that cannot be used as it is (n8n may keep it encrypted): let n8n sign every request.
		if (renewed === undefined || renewed === refused) state.viaN8nOnly = true;
		state.token = renewed;
		return undefined;
	})().finally(() => {
		state.renewing = undefined;
	});
	return await state.renewing;
}

const MAX_REFUSED_FRESH = 2;

/** Longest a renewal waits in all for a token endpoint that answers 429 or fails (its limit counts per minute). */
const TOKEN_WAIT_MS = 70_000;
const TOKEN_BACKOFF: BackoffPolicy = { maxAttempts: Infinity, baseDelayMs: 1_000, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };

/** A renewal the token endpoint refused or failed; `waited`: it already waited and asked again (up to TOKEN_WAIT_MS). */
interface RenewalFailure {
	error: unknown;
	waited: boolean;
}

function tokenEndpointBusy(error: unknown, tokenUrl: string): boolean {
	const outcome = classify(error, tokenUrl);
	if (outcome.kind === 'network') return true;
	return outcome.kind === 'http' && (outcome.status === 429 || outcome.status >= 500);
}

/** After the node renewed the token itself (n8n's `refreshOAuth2Token`): use the stored new one. */
export async function useRenewedToken(ctx: AmlContext): Promise<void> {
	const state = runStates.get(ctx);
	if (state) await rereadToken(ctx, state);
}

interface FullResponse<T> {
	statusCode: number;
	body: T;
	headers: IDataObject;
}

/** What one send gave: an answer (any status but 401), or the error to classify. */
type Sent<T> = { response: FullResponse<T>; error?: undefined } | { response?: undefined; error: unknown; final?: boolean };

/**
 * Sends one request with the run's token through n8n's `httpRequest`. Without a usable token the
 * request goes through n8n's `httpRequestWithAuthentication`, which fetches a token and stores it with
 * the credential; a 401 gets the token renewed (once for the run, see `renewRefusedToken`) and the
 * request sent again. A renewed token that is refused too comes back as the 401 (amlRequest repeats once).
 */
async function send<T>(ctx: AmlContext, state: RunState, options: IHttpRequestOptions, ignoreSsl: boolean): Promise<Sent<T>> {
	const viaN8n = async (): Promise<Sent<T>> => {
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...options,
				headers: { ...(options.headers as IDataObject) },
			})) as FullResponse<T>;
			return { response };
		} catch (error) {
			return { error };
		}
	};
	const withToken = async (token: string): Promise<Sent<T> & { refused?: boolean }> => {
		try {
			const response = (await ctx.helpers.httpRequest({
				...options,
				headers: { ...(options.headers as IDataObject), Authorization: `Bearer ${token}` },
				skipSslCertificateValidation: ignoreSsl,
			})) as FullResponse<T>;
			return { response };
		} catch (error) {
			return { error, refused: (error as { response?: { status?: number } })?.response?.status === 401 };
		}
	};

	if (state.reading) await state.reading;
	if (state.renewing) await state.renewing.catch(() => undefined);
	const token = state.viaN8nOnly ? undefined : state.token;
	if (token === undefined) {
		const sent = await viaN8n();
		if (!state.viaN8nOnly && state.token === undefined) await rereadToken(ctx, state);
		return sent;
	}
	const first = await withToken(token);
	if (!first.refused) {
		state.refusedFresh = 0;
		return first;
	}
	if (!('refreshOAuth2Token' in ctx.helpers)) return await viaN8n();
	try {
		const failure = await renewRefusedToken(ctx, state, token);
		// A renewal that already waited for the token endpoint is not repeated per request.
		if (failure) return { error: failure.error, final: failure.waited };
	} catch (error) {
		return { error };
	}
	const renewed = state.viaN8nOnly ? undefined : state.token;
	if (renewed === undefined) return await viaN8n();
	// Not renewed (this run already had fresh tokens refused, and no other run stored a newer one): the 401 is the answer.
	if (renewed === token) return first;
	const second = await withToken(renewed);
	if (!second.refused) {
		state.refusedFresh = 0;
		return second;
	}
	// A fresh token refused: counted once per token however many requests it was refused for. The 401 goes back
	// to amlRequest, which sends the request once more from the credential's current token.
	if (state.lastRefusedFresh !== renewed) {
		state.lastRefusedFresh = renewed;
		state.refusedFresh++;
	}
	return second;
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
	// n8n's OAuth2 client turns a token endpoint answer with an OAuth error body into an AuthError (code EAUTH) and drops
	// the status: a throttling error code stands for the endpoint's 429, an unavailable one for its 503.
	for (const candidate of [err, err?.cause as typeof err]) {
		const oauthError = (candidate?.body as IDataObject | undefined)?.error;
		if (candidate?.code === 'EAUTH' && typeof oauthError === 'string') {
			if (/too_many_requests|rate_limit|slow_down/i.test(oauthError)) return { kind: 'http', status: 429, body: candidate.body, headers: {}, fromTokenEndpoint: true };
			if (/temporarily_unavailable|server_error/i.test(oauthError)) return { kind: 'http', status: 503, body: candidate.body, headers: {}, fromTokenEndpoint: true };
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
	const state = runState(this);
	const { baseUrl, tokenUrl, ignoreSslIssues } = await state.info;
	const retry: RetryMode = request.retry ?? (request.method === 'POST' ? 'none' : 'safe');
	const isJson = !Buffer.isBuffer(request.body) && !(request.body instanceof FormData);
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body as IHttpRequestOptions['body'],
		headers: { Accept: 'application/json', ...(request.headers ?? {}) },
		json: isJson,
		returnFullResponse: true,
		// The interface never redirects; n8n would repeat the Authorization header to whatever origin a redirect
		// names. Not followed: a 3xx is an error, and the token goes nowhere but the configured base URL.
		disableFollowRedirect: true,
		// Statuses come back to this function; only 401 is thrown so that the token is renewed once.
		ignoreHttpStatusErrors: { ignore: true, except: [401] },
		timeout: request.timeoutMs ?? (state.timeoutMs ??= configuredTimeout(this)),
		abortSignal: signal,
	};

	let attempt = 0;
	let sentOnce = false;
	let repeated401 = false;
	for (;;) {
		attempt++;
		let outcome: Classified;
		const sent = await send<T>(this, state, options, ignoreSslIssues);
		const response = sent.response;
		if (response) {
			if (response.statusCode < 300 || request.passStatuses?.includes(response.statusCode)) {
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
		} else {
			outcome = signal?.aborted ? { kind: 'other', error: new Error('The execution was cancelled') } : classify(sent.error, tokenUrl);
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
		if (sent.error !== undefined && sent.final) {
			// The token renewal already waited for the token endpoint (up to TOKEN_WAIT_MS): not repeated.
		} else if (outcome.kind === 'http') {
			if (outcome.status === 429) {
				retryable = true;
				retryAfterMs = parseRetryAfter(outcome.headers['retry-after']);
			} else if (outcome.status >= 500) {
				retryable = outcome.fromTokenEndpoint || retry !== 'none';
				if (!outcome.fromTokenEndpoint) sentOnce = true;
			} else if (outcome.status === 401 && !outcome.fromTokenEndpoint && !repeated401) {
				// The token was renewed and the repeat still got 401: another execution's renewal or a forced expiry
				// may have invalidated it meanwhile. One more attempt starts from the credential's current token
				// (renewed again only within the run's limit, see RunState.refusedFresh). A 401 did nothing, so any
				// request may be repeated.
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
