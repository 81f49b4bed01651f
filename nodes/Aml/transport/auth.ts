import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import {
	backoffDelay,
	parseRetryAfter,
	settledBy,
	timeLeft,
	TIMED_OUT,
	type BackoffPolicy,
	type Deadline,
} from './retry';
import { classify, type Classified } from '../../shared/n8n/errors';
import {
	ANSWER_EVERY_STATUS,
	canRenewToken,
	fetchFirstToken,
	ignoresSslIssues,
	renewToken,
	storedToken,
} from '../../shared/n8n/oauthToken';
import { isTokenEndpointBusy, isTokenRefusal, tokenBody, type Finding } from './errors';
import { rememberSecret } from './quote';
import { credentialUrls } from './secureUrl';

/**
 * Authentication. n8n fetches, stores and signs with the token (`httpRequestWithAuthentication`); the package decides
 * when a token is obtained. Rules:
 * - Token first: a request is sent only while the credential holds a token. Without one, the run first has n8n fetch it
 *   by sending the credential test's read (`fetchFirstToken`), bounded by the attempt's time: a late token sends only
 *   that read. A token n8n says expires within the attempt is renewed first when a new one would outlast the attempt
 *   (best effort: the 401 path follows).
 *   So every failure of a send is the service's, and every failure of a token step the token endpoint's.
 * - One token step per credential per process at a time (`Gate.fetch`); who needs a token meanwhile waits for it.
 * - A 401 renews the token once per credential however many requests it refused: a request refused before the last
 *   token this process obtained is only sent again (`Gate.generation`).
 * - A busy token endpoint (429, 5xx, no answer) pauses every run of the process (Retry-After, else backoff), at most
 *   TOKEN_WAIT_MS per step and never past the request's budget; a token another process stores meanwhile ends the wait.
 * - A token endpoint down (5xx, no answer) for TOKEN_WAIT_MS: no request waits for it any more; until a token is
 *   obtained, one request tries after each pause and the others fail at once (a throttling one, 429, is waited out).
 * - A refused credential (invalid_client) or MAX_REFUSED_FRESH refused fresh tokens in a row stop the run asking.
 * - Tokens that expire while a busy worker holds them: a renewed token refused after half its lifetime is renewed again
 *   and not counted as refused.
 */

export const CREDENTIAL_TYPE = 'amlOAuth2Api';
/** The credential test's request, also the token step's read: small, read-only, answered by every account. */
export const CHECK_REQUEST_PATH = '/v1/screening-list-groups';

export type AmlContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

const MAX_REFUSED_FRESH = 2;
const TOKEN_WAIT_MS = 70_000;
/** While paused, a waiting request looks this often whether another process stored a token. */
const PROBE_MS = 1_000;
const TOKEN_BACKOFF: BackoffPolicy = {
	maxAttempts: Infinity,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};

/** One credential's token as this n8n process sees it. A courtesy to the endpoint's limit: tokens live in n8n only. */
interface Gate {
	/** Tokens this process obtained or saw stored by another: a request refused before the last one is sent again. */
	generation: number;
	obtainedAt: number;
	/** The stored token as last read (a change while paused ends the wait). */
	token?: string;
	expiresAt?: number;
	lifetimeMs?: number;
	/** The token step in flight, and until when anyone waits for it. */
	fetch?: { done: Promise<void>; until: number };
	pausedUntil: number;
	failures: number;
	/** Since when the token endpoint has failed or not answered (5xx, no answer), with no token obtained since. */
	downSince?: number;
	/** The token endpoint's last failure while busy: what a wait that ends without a token reports. */
	lastError?: Classified;
}
const gates = new Map<string, Gate>();

interface CredentialInfo {
	baseUrl: string;
	ignoreSslIssues: boolean;
	gate: Gate;
	/** The credential held a token when the run read it. */
	tokenAtStart: boolean;
}

/** What one node run (one context object) knows of its credential, read once per run. */
export interface RunState {
	info: Promise<CredentialInfo>;
	/** The node's Timeout option, read once. */
	timeoutMs?: number;
	/** The credential holds a token (as read at the start of the run, or obtained since): set by the first send. */
	tokenHeld?: boolean;
	/** Fresh tokens refused in a row, and the renewal last counted (once per renewal). */
	refusedFresh: number;
	countedGeneration?: number;
	/** Once the run stopped asking for tokens: the refusal every further request answers with. */
	stopped?: Sent<never>;
}

const runStates = new WeakMap<object, RunState>();

/** The run's state, created on first use: the credential's URLs are checked before n8n may fetch any token. */
export function runState(ctx: AmlContext): RunState {
	let state = runStates.get(ctx);
	if (!state) runStates.set(ctx, (state = { refusedFresh: 0, info: credentialInfo(ctx) }));
	return state;
}

async function credentialInfo(ctx: AmlContext): Promise<CredentialInfo> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const urls = credentialUrls(credentials);
	if ('problem' in urls) throw new NodeOperationError(ctx.getNode(), urls.problem);
	rememberSecret(credentials.clientSecret);
	const key = `${ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? ''} ${urls.tokenUrl}`;
	const gate = gates.get(key) ?? { generation: 0, obtainedAt: 0, pausedUntil: 0, failures: 0 };
	gates.set(key, gate);
	noteToken(gate, credentials);
	return {
		baseUrl: urls.baseUrl,
		ignoreSslIssues: ignoresSslIssues(credentials),
		gate,
		tokenAtStart: gate.token !== undefined,
	};
}

/** Takes note of the credential's token as n8n keeps it (redacted from quoted text from now on). */
function noteToken(gate: Gate, credentials: IDataObject | undefined): void {
	Object.assign(gate, storedToken(credentials));
	rememberSecret(gate.token);
}

/** The execution's cancel signal, where the context has one (execute contexts). */
export function executionCancelSignal(ctx: object): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx
		? (ctx as IExecuteFunctions).getExecutionCancelSignal()
		: undefined;
}

export interface FullResponse<T> {
	statusCode: number;
	body: T;
	headers: IDataObject;
}

/**
 * What one send gave, named where it happened: the service's answer (a 401 only when renewing did not help), no answer
 * from the service, the token endpoint's failure (nothing was sent), or another error.
 */
export type Sent<T> =
	| { kind: 'answer'; response: FullResponse<T> }
	| Extract<Finding, { kind: 'network' }>
	| Omit<Extract<Finding, { kind: 'tokenEndpoint' }>, 'waitedMs'>
	| { kind: 'other'; message: string };

/** A send's failure, thrown by n8n while a token was held: the service's. */
function fromService<T>(outcome: Classified): Sent<T> {
	if (outcome.kind === 'http')
		return {
			kind: 'answer',
			response: { statusCode: outcome.status, body: outcome.body as T, headers: outcome.headers },
		};
	if (outcome.kind === 'network') return outcome;
	// only the message: the raw error may carry the request configuration and its headers
	return { kind: 'other', message: outcome.error?.message ?? 'Request failed' };
}

/** A token step's failure: the token endpoint's (only the OAuth2 error fields of its body are kept). */
function fromTokenEndpoint(outcome: Classified): Sent<never> {
	if (outcome.kind === 'other') return fromService(outcome);
	return {
		kind: 'tokenEndpoint',
		answer:
			outcome.kind === 'network'
				? outcome
				: { kind: 'http', status: outcome.status, body: tokenBody(outcome.body) },
	};
}

/**
 * Sends one request (see the rules at the top): the token first, then the request through n8n; on a 401 the token is
 * renewed and the request sent again, never past the budget.
 */
export async function send<T>(
	ctx: AmlContext,
	state: RunState,
	options: IHttpRequestOptions,
	deadline?: Deadline,
): Promise<Sent<T>> {
	const info = await state.info;
	const { gate } = info;
	state.tokenHeld ??= info.tokenAtStart;
	const started = Date.now();
	let renewal: number | undefined;
	for (;;) {
		if (state.stopped) return state.stopped;
		const attemptMs = () =>
			Math.ceil(Math.min(options.timeout ?? TOKEN_WAIT_MS, timeLeft(deadline)));
		// renewed first only when a new token would outlast the attempt (short-lived ones are left to the 401 path)
		const expiring =
			gate.expiresAt !== undefined &&
			(gate.lifetimeMs ?? 0) > attemptMs() &&
			gate.expiresAt <= Date.now() + attemptMs();
		if (!state.tokenHeld || (expiring && canRenewToken(ctx))) {
			// a first token is waited for like a renewal; an expiring one is renewed only within the attempt's time
			const ms = attemptMs();
			const waitMs = state.tokenHeld ? ms : TOKEN_WAIT_MS;
			const failure = await obtainToken(ctx, state, info, gate.generation, deadline, ms, waitMs);
			if (failure && (!state.tokenHeld || isTokenRefusal(failure))) return stopOn(state, failure);
		}
		const timeout = attemptMs();
		// the budget went to the token step: the request is not sent
		if (timeout <= 0) return fromTokenEndpoint(silent());
		const seen = gate.generation;
		let response: FullResponse<T>;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...options,
				...ANSWER_EVERY_STATUS,
				timeout,
				skipSslCertificateValidation: info.ignoreSslIssues,
			})) as FullResponse<T>;
		} catch (error) {
			return fromService(classify(error));
		}
		if (response.statusCode !== 401 || !canRenewToken(ctx)) {
			if (response.statusCode < 300) state.refusedFresh = 0;
			return { kind: 'answer', response };
		}
		if (renewal !== undefined) {
			const halfLifePassed =
				gate.lifetimeMs !== undefined && Date.now() - gate.obtainedAt >= gate.lifetimeMs / 2;
			if (!halfLifePassed)
				return refusedFresh(state, renewal, { kind: 'answer', response }) as Sent<T>;
			if (Date.now() - started > TOKEN_WAIT_MS || timeLeft(deadline) <= 0)
				return { kind: 'answer', response };
		}
		if (state.refusedFresh >= MAX_REFUSED_FRESH) return { kind: 'answer', response };
		const failure = await obtainToken(
			ctx,
			state,
			info,
			seen,
			deadline,
			TOKEN_WAIT_MS,
			TOKEN_WAIT_MS,
		);
		if (failure) return stopOn(state, failure);
		renewal = gate.generation;
	}
}

/** A renewed token was refused too: counted once per renewal; at MAX_REFUSED_FRESH the run stops asking. */
function refusedFresh(state: RunState, renewal: number, refusal: Sent<unknown>): Sent<unknown> {
	if (state.countedGeneration !== renewal) state.refusedFresh++;
	state.countedGeneration = renewal;
	if (state.refusedFresh >= MAX_REFUSED_FRESH) state.stopped = refusal as Sent<never>;
	return refusal;
}

/** A token step failed: the request fails at the token endpoint; a refused credential stops the run asking. */
function stopOn(state: RunState, failure: Classified): Sent<never> {
	const sent = fromTokenEndpoint(failure);
	if (isTokenRefusal(failure)) state.stopped = sent;
	return sent;
}

/**
 * Has a token obtained for a request that saw token generation `seen`: a first fetch when the credential holds none,
 * else a renewal; each fetch is given up after `fetchMs` (then taken for a busy endpoint), the whole step after `waitMs`
 * and at the deadline. Returns undefined when a token is there to send with (obtained here, or by another request
 * meanwhile), else the token endpoint's failure.
 */
async function obtainToken(
	ctx: AmlContext,
	state: RunState,
	info: CredentialInfo,
	seen: number,
	deadline: Deadline | undefined,
	fetchMs: number,
	waitMs: number,
): Promise<Classified | undefined> {
	const { gate } = info;
	const until = Math.min(deadline?.at ?? Infinity, Date.now() + waitMs);
	// waits for pauses and for others' fetches end with the down endpoint's TOKEN_WAIT_MS too
	const waitUntil = () => Math.min(until, (gate.downSince ?? Infinity) + TOKEN_WAIT_MS);
	const spent = (): Classified => gate.lastError ?? silent();
	for (;;) {
		if (gate.generation !== seen) {
			state.tokenHeld = true;
			return undefined;
		}
		if (gate.fetch && Date.now() >= gate.fetch.until) gate.fetch = undefined;
		if (gate.fetch) {
			const done = gate.fetch.done.catch(() => undefined);
			const limit = waitUntil();
			if ((await settledBy(done, Math.min(limit, gate.fetch.until))) === TIMED_OUT)
				if (Date.now() >= limit) return spent();
			continue;
		}
		if (gate.pausedUntil > Date.now()) {
			const step = Math.min(gate.pausedUntil - Date.now(), PROBE_MS);
			if (Date.now() + step > waitUntil() || executionCancelSignal(ctx)?.aborted) return spent();
			await sleep(step);
			const stored = await readCredentials(ctx);
			const { token } = storedToken(stored);
			if (token !== undefined && token !== gate.token) obtained(gate, stored);
			continue;
		}
		const first = !state.tokenHeld;
		// given up after fetchMs by everyone (taken for a busy endpoint); this request stops waiting at its own end
		const fetchUntil = Date.now() + fetchMs;
		const done = (
			first
				? fetchFirstToken(ctx as IExecuteFunctions, CREDENTIAL_TYPE, {
						url: `${info.baseUrl}${CHECK_REQUEST_PATH}`,
						headers: { Accept: 'application/json' },
						json: true,
						disableFollowRedirect: true,
						timeout: fetchMs,
						skipSslCertificateValidation: info.ignoreSslIssues,
					})
				: renewToken(ctx as IExecuteFunctions, CREDENTIAL_TYPE)
		).then(async () => obtained(gate, await readCredentials(ctx)));
		gate.fetch = { done, until: fetchUntil };
		void done
			.catch(() => undefined)
			.finally(() => {
				if (gate.fetch?.done === done) gate.fetch = undefined;
			});
		try {
			if ((await settledBy(done, Math.min(until, fetchUntil))) !== TIMED_OUT) continue;
			// this request's own end came first: the fetch goes on for the others
			if (until < fetchUntil) return spent();
			if (gate.fetch?.done === done) gate.fetch = undefined;
			if (until === fetchUntil) return spent();
			pause(gate, silent());
		} catch (error) {
			const failure = classify(error);
			if (!isTokenEndpointBusy(failure)) return failure;
			pause(gate, failure);
		}
	}
}

/** A token was obtained or found stored: every request waiting for one goes. */
function obtained(gate: Gate, credentials: IDataObject | undefined): void {
	noteToken(gate, credentials);
	gate.generation++;
	gate.obtainedAt = Date.now();
	gate.failures = 0;
	gate.pausedUntil = 0;
	gate.lastError = undefined;
	gate.downSince = undefined;
}

async function readCredentials(ctx: AmlContext): Promise<IDataObject | undefined> {
	return await ctx.getCredentials<IDataObject>(CREDENTIAL_TYPE).catch(() => undefined);
}

/** A token endpoint that did not answer within the time given. */
function silent(): Classified {
	return { kind: 'network', code: 'ETIMEDOUT' };
}

/** The token endpoint is busy: every run of the process waits (Retry-After when sent, else backoff). */
function pause(gate: Gate, outcome: Classified): void {
	gate.lastError = outcome;
	// failures seen together are one: the pause is not lengthened for each
	if (gate.pausedUntil > Date.now()) return;
	// down since the first failure of a streak; a pause nobody tried after for TOKEN_WAIT_MS ends the streak
	if (outcome.kind === 'http' && outcome.status === 429) gate.downSince = undefined;
	else if (gate.downSince === undefined || Date.now() - gate.pausedUntil > TOKEN_WAIT_MS)
		gate.downSince = Date.now();
	const retryAfter =
		outcome.kind === 'http' ? parseRetryAfter(outcome.headers['retry-after']) : undefined;
	gate.failures++;
	gate.pausedUntil = Date.now() + backoffDelay(gate.failures, TOKEN_BACKOFF, retryAfter);
}
