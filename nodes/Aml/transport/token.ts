// Longer than ~250 lines: the run's token state, its renewal on a 401 and the per-process pause of the token
// endpoint are one protocol (each part reads the others' state); sending is in request.ts.
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { backoffDelay, parseRetryAfter, type BackoffPolicy } from './backoff';
import { classify, tokenEndpointBusy } from './classify';

/**
 * The OAuth2 token of one node run. Only n8n fetches, renews and stores tokens (its OAuth2 helpers); this file keeps
 * what one run knows so that requests need not read and decrypt the credential each time, and makes a refused token
 * cost one renewal per run however many requests were refused at once.
 */

export const CREDENTIAL_TYPE = 'amlOAuth2Api';

export type AmlContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

const MAX_REFUSED_FRESH = 2;

/** Longest a renewal waits in all for a token endpoint that answers 429 or fails (its limit counts per minute). */
const TOKEN_WAIT_MS = 70_000;
const TOKEN_BACKOFF: BackoffPolicy = {
	maxAttempts: Infinity,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};

/** A renewal the token endpoint refused or failed; `waited`: it already waited and asked again (up to TOKEN_WAIT_MS). */
interface RenewalFailure {
	error: unknown;
	waited: boolean;
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
	/** The token endpoint's last refusal (429 or failure) while this run waited for a renewal. */
	lastRenewalError?: unknown;
}

const runStates = new WeakMap<object, RunState>();

function tokenOf(credentials: IDataObject): string | undefined {
	const data = credentials.oauthTokenData as IDataObject | undefined;
	const token = data?.access_token;
	const type = String(data?.token_type ?? 'bearer').toLowerCase();
	return typeof token === 'string' && token !== '' && type === 'bearer' ? token : undefined;
}

/** The run's state, created on first use (the credential is read once per run). */
export function runState(ctx: AmlContext): RunState {
	let state = runStates.get(ctx);
	if (!state) {
		const created: RunState = {
			refusedFresh: 0,
			info: ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) => {
				const base = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
				const prefixRaw = String(credentials.apiPathPrefix ?? '/api').trim();
				const prefix =
					prefixRaw === '' || prefixRaw === '/' ? '' : `/${prefixRaw.replace(/^\/+|\/+$/g, '')}`;
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
 * The token endpoint as this n8n process sees it, per token URL: the renewal in flight (one at a time for every run
 * of the process) and, after it answered 429 or failed, until when every run of the process waits before asking
 * again. A courtesy to the endpoint's limit (5 requests a minute per IP, shared by every process of an
 * installation), not a store: runs take tokens only from the credential, where n8n keeps them for every process.
 */
interface EndpointGate {
	inFlight?: Promise<unknown>;
	pausedUntil: number;
	failures: number;
}
const endpointGates = new Map<string, EndpointGate>();

/** How often a run waiting on the token endpoint looks whether another run or process stored a new token. */
const POLL_MS = 1_000;
/** Spread of the first renewal after a refused token: another process that met the same expiry may renew first. */
const RENEW_JITTER_MS = 500;

/** The token endpoint's Retry-After, read as every request reads it (`classify`). */
function retryAfterOf(error: unknown, tokenUrl: string): number | undefined {
	const outcome = classify(error, tokenUrl);
	return outcome.kind === 'http' ? parseRetryAfter(outcome.headers['retry-after']) : undefined;
}

/**
 * The service refused `refused` (401). If another run or process already renewed the stored token, take it;
 * otherwise n8n renews it (`refreshOAuth2Token`) and stores it with the credential. One renewal per run however
 * many requests were refused at once, and one at a time per process (`endpointGates`).
 */
async function renewRefusedToken(
	ctx: AmlContext,
	state: RunState,
	refused: string,
): Promise<RenewalFailure | undefined> {
	if (state.token !== refused) return undefined;
	state.renewing ??= (async (): Promise<RenewalFailure | undefined> => {
		const { tokenUrl } = await state.info;
		let gate = endpointGates.get(tokenUrl);
		if (!gate) endpointGates.set(tokenUrl, (gate = { pausedUntil: 0, failures: 0 }));
		const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
		const started = Date.now();
		let jittered = false;
		for (;;) {
			const stored = tokenOf(await ctx.getCredentials(CREDENTIAL_TYPE));
			if (stored !== undefined && stored !== refused) {
				state.token = stored;
				return undefined;
			}
			if (state.refusedFresh >= MAX_REFUSED_FRESH) return undefined;
			const waitMs = gate.inFlight ? 0 : gate.pausedUntil - Date.now();
			if (gate.inFlight) {
				await gate.inFlight.catch(() => undefined);
				continue;
			}
			if (waitMs > 0 || !jittered) {
				const pause =
					waitMs > 0 ? Math.min(POLL_MS, waitMs) : Math.round(Math.random() * RENEW_JITTER_MS);
				jittered = true;
				if (Date.now() - started + pause > TOKEN_WAIT_MS || signal?.aborted)
					return {
						error: state.lastRenewalError ?? new Error('token endpoint busy'),
						waited: true,
					};
				await sleep(pause);
				continue;
			}
			const renewal = (ctx.helpers as IExecuteFunctions['helpers']).refreshOAuth2Token.call(
				ctx,
				CREDENTIAL_TYPE,
			);
			gate.inFlight = renewal;
			try {
				await renewal;
				gate.failures = 0;
				gate.pausedUntil = 0;
				break;
			} catch (error) {
				// The token endpoint allows 5 requests a minute per IP. While it answers 429 (or fails), every run of this
				// process waits (Retry-After when sent, else backoff) and looks for a token another process stored,
				// instead of each asking on its own (which kept the endpoint refusing and failed the items).
				if (!tokenEndpointBusy(error, tokenUrl))
					return { error, waited: Date.now() - started > RENEW_JITTER_MS };
				state.lastRenewalError = error;
				gate.failures++;
				gate.pausedUntil =
					Date.now() + backoffDelay(gate.failures, TOKEN_BACKOFF, retryAfterOf(error, tokenUrl));
			} finally {
				if (gate.inFlight === renewal) gate.inFlight = undefined;
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

/** After the node renewed the token itself (n8n's `refreshOAuth2Token`): use the stored new one. */
async function useRenewedToken(ctx: AmlContext): Promise<void> {
	const state = runStates.get(ctx);
	if (state) await rereadToken(ctx, state);
}

/**
 * Renews a token that n8n knows to be expired or about to be (within `marginMs`), before a request that must not be
 * refused halfway (an upload). Best effort: a failure here leaves the renewal to the 401 path.
 */
export async function renewIfExpiring(ctx: IExecuteFunctions, marginMs = 15_000): Promise<void> {
	try {
		const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
		const tokenData = credentials.oauthTokenData as IDataObject | undefined;
		const expiresAt = Number(tokenData?.n8n_expires_at);
		if (
			tokenData?.access_token &&
			Number.isFinite(expiresAt) &&
			expiresAt - Date.now() <= marginMs
		) {
			await ctx.helpers.refreshOAuth2Token.call(ctx, CREDENTIAL_TYPE);
			await useRenewedToken(ctx);
		}
	} catch {
		// The 401 path still renews the token.
	}
}

export interface FullResponse<T> {
	statusCode: number;
	body: T;
	headers: IDataObject;
}

/** What one send gave: an answer (any status but 401), or the error to classify. */
export type Sent<T> =
	| { response: FullResponse<T>; error?: undefined }
	| { response?: undefined; error: unknown; final?: boolean };

/**
 * Sends one request with the run's token through n8n's `httpRequest`. Without a usable token the
 * request goes through n8n's `httpRequestWithAuthentication`, which fetches a token and stores it with
 * the credential; a 401 gets the token renewed (once for the run, see `renewRefusedToken`) and the
 * request sent again. A renewed token that is refused too comes back as the 401 (amlRequest repeats once).
 */
export async function send<T>(
	ctx: AmlContext,
	state: RunState,
	options: IHttpRequestOptions,
	ignoreSsl: boolean,
): Promise<Sent<T>> {
	const viaN8n = async (): Promise<Sent<T>> => {
		const call = async () =>
			(await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...options,
				headers: { ...(options.headers as IDataObject) },
			})) as FullResponse<T>;
		try {
			let response = await call();
			// n8n before 2.11 knows no `except` list: it answers the 401 instead of throwing it, and so renews nothing.
			// Renew as newer n8n does, and ask once more.
			if (response.statusCode === 401 && 'refreshOAuth2Token' in ctx.helpers) {
				await (ctx.helpers as IExecuteFunctions['helpers']).refreshOAuth2Token.call(
					ctx,
					CREDENTIAL_TYPE,
				);
				response = await call();
			}
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
			// n8n before 2.11 ignores every status when `ignoreHttpStatusErrors` is set (it knows no `except` list): the
			// 401 comes back as an answer there, and is thrown by newer n8n. Both are a refused token.
			return { response, refused: response.statusCode === 401 };
		} catch (error) {
			return {
				error,
				refused: (error as { response?: { status?: number } })?.response?.status === 401,
			};
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
