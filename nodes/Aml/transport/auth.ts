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
 * Authentication: every request goes through n8n's `httpRequestWithAuthentication`, which reads the OAuth2
 * credential, fetches a token when none is stored, signs the request and stores renewed tokens with the credential
 * (shared by every execution and queue-mode process). The package never reads or sends a token itself.
 *
 * What differs across supported n8n versions, and the tested path for each:
 * - n8n that honours `ignoreHttpStatusErrors.except` (2.11 and later) throws a 401 and renews the token itself (from
 *   about 2.3x one renewal per credential across processes); the renewed token's answer comes back.
 * - Older n8n (the 1.x line, early 2.x) ignores every status when `ignoreHttpStatusErrors` is set: the 401 comes back
 *   as an answer and n8n renewed nothing. Then this file renews with n8n's `refreshOAuth2Token` (public helper of
 *   every supported version) and sends again: one renewal at a time per credential in this process, however many
 *   requests were refused at once (`Gate.generation`).
 * - On every version a busy token endpoint (429, 5xx, unreachable; 5 requests a minute per IP) pauses every run of the
 *   process that needs a token (Retry-After, else backoff), up to TOKEN_WAIT_MS, instead of each run asking on its own.
 */

export const CREDENTIAL_TYPE = 'amlOAuth2Api';

export type AmlContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

/** Refused fresh tokens in a row after which a run stops asking for tokens (a revoked client must not cost one per item). */
const MAX_REFUSED_FRESH = 2;

/** Longest a request waits in all for a token endpoint that answers 429 or fails (its limit counts per minute). */
const TOKEN_WAIT_MS = 70_000;
const TOKEN_BACKOFF: BackoffPolicy = {
	maxAttempts: Infinity,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};
/** Spread of the requests that waited out a pause, so that they do not all ask at the same instant. */
const RESUME_JITTER_MS = 250;

/**
 * One credential's token endpoint as this n8n process sees it: the renewal in flight, how many renewals completed
 * (a request refused with a token older than the last renewal is only sent again), and after a 429 or failure until
 * when every run waits. A courtesy to the endpoint's limit, not a store: tokens live only in the credential.
 */
interface Gate {
	generation: number;
	inFlight?: Promise<unknown>;
	pausedUntil: number;
	failures: number;
	lastError?: unknown;
}
const gates = new Map<string, Gate>();

interface CredentialInfo {
	baseUrl: string;
	tokenUrl: string;
	ignoreSslIssues: boolean;
	gate: Gate;
}

/** What one node run (one context object) knows of its credential, read once per run. */
export interface RunState {
	info: Promise<CredentialInfo>;
	/** The node's Timeout option, read once. */
	timeoutMs?: number;
	/** Fresh tokens refused in a row (reset by any accepted request); at MAX_REFUSED_FRESH the run stops asking. */
	refusedFresh: number;
	lastRefusedGeneration?: number;
	/** The refusal the run answers with once it stopped asking (a 401 answer or n8n's 401 error). */
	lastRefusal?: Sent<never>;
}

const runStates = new WeakMap<object, RunState>();

/** The run's state, created on first use (the credential is read once per run, for its URLs). */
export function runState(ctx: AmlContext): RunState {
	let state = runStates.get(ctx);
	if (!state) {
		state = {
			refusedFresh: 0,
			info: ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) => {
				const base = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
				const prefixRaw = String(credentials.apiPathPrefix ?? '/api').trim();
				const prefix =
					prefixRaw === '' || prefixRaw === '/' ? '' : `/${prefixRaw.replace(/^\/+|\/+$/g, '')}`;
				const tokenUrl = String(credentials.accessTokenUrl ?? '');
				const key = `${ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? ''} ${tokenUrl}`;
				let gate = gates.get(key);
				if (!gate) gates.set(key, (gate = { generation: 0, pausedUntil: 0, failures: 0 }));
				return {
					baseUrl: `${base}${prefix}`,
					tokenUrl,
					ignoreSslIssues: credentials.ignoreSSLIssues === true,
					gate,
				};
			}),
		};
		runStates.set(ctx, state);
	}
	return state;
}

/** A wait for the token endpoint that ran out (TOKEN_WAIT_MS) or a renewal the endpoint refused for good. */
interface RenewalFailure {
	error: unknown;
	/** It already waited and asked again: the request is not repeated on top. */
	waited: boolean;
}

function cancelSignal(ctx: AmlContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/** The token endpoint refused or failed: every run of the process waits (Retry-After when sent, else backoff). */
function pause(gate: Gate, error: unknown, tokenUrl: string): void {
	const outcome = classify(error, tokenUrl);
	const retryAfter =
		outcome.kind === 'http' ? parseRetryAfter(outcome.headers['retry-after']) : undefined;
	gate.lastError = error;
	gate.failures++;
	gate.pausedUntil = Math.max(
		gate.pausedUntil,
		Date.now() + backoffDelay(gate.failures, TOKEN_BACKOFF, retryAfter),
	);
}

/** Waits out the gate's pause (then the caller sends again), or fails when that would exceed TOKEN_WAIT_MS. */
async function waitOutPause(
	ctx: AmlContext,
	gate: Gate,
	started: number,
): Promise<RenewalFailure | undefined> {
	const waitMs = gate.pausedUntil - Date.now();
	if (waitMs <= 0) return undefined;
	if (Date.now() - started + waitMs > TOKEN_WAIT_MS || cancelSignal(ctx)?.aborted)
		return { error: gate.lastError ?? new Error('token endpoint busy'), waited: true };
	await sleep(waitMs + Math.round(Math.random() * RESUME_JITTER_MS));
	return undefined;
}

/**
 * A request sent at generation `seen` was refused (401) by an n8n that does not renew on its own. Unless a renewal
 * completed since (then the request is only sent again), n8n's `refreshOAuth2Token` renews and stores the token;
 * one renewal at a time per credential in this process. Returns when the request should be sent again.
 */
async function renewToken(
	ctx: AmlContext,
	gate: Gate,
	tokenUrl: string,
	seen: number,
	started: number,
): Promise<RenewalFailure | undefined> {
	for (;;) {
		if (gate.generation !== seen) return undefined;
		if (gate.inFlight) {
			await gate.inFlight.catch(() => undefined);
			continue;
		}
		if (gate.pausedUntil > Date.now()) return await waitOutPause(ctx, gate, started);
		const renewal = (ctx.helpers as IExecuteFunctions['helpers']).refreshOAuth2Token.call(
			ctx,
			CREDENTIAL_TYPE,
		);
		gate.inFlight = renewal;
		try {
			await renewal;
			gate.generation++;
			gate.failures = 0;
			gate.pausedUntil = 0;
			return undefined;
		} catch (error) {
			if (!tokenEndpointBusy(error, tokenUrl))
				return { error, waited: Date.now() - started > RESUME_JITTER_MS };
			pause(gate, error, tokenUrl);
		} finally {
			if (gate.inFlight === renewal) gate.inFlight = undefined;
		}
	}
}

/**
 * Renews a token that n8n knows to be expired or about to be (within `marginMs`, from the expiry n8n stores with the
 * token), before a request that must not be refused halfway (an upload). Best effort: a failure here leaves the
 * renewal to the 401 path.
 */
export async function renewIfExpiring(ctx: IExecuteFunctions, marginMs = 15_000): Promise<void> {
	try {
		const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
		const expiresAt = Number(
			(credentials.oauthTokenData as IDataObject | undefined)?.n8n_expires_at,
		);
		if (!Number.isFinite(expiresAt) || expiresAt - Date.now() > marginMs) return;
		const { gate, tokenUrl } = await runState(ctx).info;
		await renewToken(ctx, gate, tokenUrl, gate.generation, Date.now());
	} catch {
		// The 401 path still renews the token.
	}
}

export interface FullResponse<T> {
	statusCode: number;
	body: T;
	headers: IDataObject;
}

/** What one send gave: an answer (a 401 only when renewing did not help), or the error to classify. */
export type Sent<T> =
	| { response: FullResponse<T>; error?: undefined }
	| { response?: undefined; error: unknown; final?: boolean };

/**
 * Sends one request through n8n's `httpRequestWithAuthentication`, renewing the token on a 401 where n8n does not
 * (see the top of this file) and waiting for a busy token endpoint. A renewed token that is refused too comes back as
 * the 401 (amlRequest repeats once); after MAX_REFUSED_FRESH such refusals in a row the run stops sending and answers
 * each request with the last refusal.
 */
export async function send<T>(
	ctx: AmlContext,
	state: RunState,
	options: IHttpRequestOptions,
): Promise<Sent<T>> {
	const { gate, tokenUrl, ignoreSslIssues } = await state.info;
	if (state.refusedFresh >= MAX_REFUSED_FRESH && state.lastRefusal) return state.lastRefusal;
	const started = Date.now();
	const canRenew = 'refreshOAuth2Token' in ctx.helpers;
	let renewedSinceSent = false;
	for (;;) {
		const seen = gate.generation;
		let response: FullResponse<T>;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...options,
				headers: { ...(options.headers as IDataObject) },
				skipSslCertificateValidation: ignoreSslIssues,
			})) as FullResponse<T>;
		} catch (error) {
			const outcome = classify(error, tokenUrl);
			if (outcome.kind !== 'http') return { error };
			if (outcome.status === 401 && !outcome.fromTokenEndpoint) {
				// n8n renewed the token itself and the renewed one was refused too.
				refusedFresh(state, { error });
				return { error };
			}
			// n8n's own token fetch or renewal met a busy token endpoint: wait with every run of the process, send again.
			if (!outcome.fromTokenEndpoint || !tokenEndpointBusy(error, tokenUrl)) return { error };
			pause(gate, error, tokenUrl);
			const failure = await waitOutPause(ctx, gate, started);
			if (failure) return { error: failure.error, final: true };
			continue;
		}
		if (response.statusCode !== 401) {
			if (response.statusCode < 300) state.refusedFresh = 0;
			return { response };
		}
		// The 401 came back as an answer: this n8n renewed nothing.
		if (renewedSinceSent || !canRenew) {
			if (renewedSinceSent) refusedFresh(state, { response }, gate.generation);
			return { response };
		}
		if (state.refusedFresh >= MAX_REFUSED_FRESH) return { response };
		const failure = await renewToken(ctx, gate, tokenUrl, seen, started);
		if (failure) return { error: failure.error, final: failure.waited };
		renewedSinceSent = gate.generation !== seen;
	}
}

/**
 * A renewed token was refused too. Counted once per renewal of this process however many requests it was refused
 * for (`generation`); a refusal after n8n's own renewal counts each time.
 */
function refusedFresh(state: RunState, refusal: Sent<unknown>, generation?: number): void {
	state.lastRefusal = refusal as Sent<never>;
	if (generation !== undefined && state.lastRefusedGeneration === generation) return;
	state.lastRefusedGeneration = generation;
	state.refusedFresh++;
}
