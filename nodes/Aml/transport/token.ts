import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	backoffDelay,
	isBusyStatus,
	parseRetryAfter,
	type BackoffPolicy,
	type Deadline,
	type TokenFailure,
} from './retry';
import { classify, type Classified } from '../../shared/n8n/errors';
import {
	canRenewToken,
	fetchFirstToken,
	renewToken,
	storedToken,
} from '../../shared/n8n/oauthToken';
import { rememberSecret } from './quote';

/**
 * The token step: when the package has n8n obtain a token (n8n fetches, stores and signs with it; the package never
 * sends one). Its rules, written out only here (what a 401 does: auth.ts):
 * - Token first (`tokenFirst`): a request is sent only while the credential holds a token. Without one, the run has n8n
 *   fetch it by sending the credential test's read (CHECK_REQUEST_PATH, the seam's `fetchFirstToken`; n8n's renewal
 *   helper cannot fetch a first token), bounded by the attempt's time: a late token sends only that read. A token n8n
 *   says expires within the attempt is renewed first when a new one would outlast the attempt (shorter-lived ones are
 *   left to the 401). So a send's failure is the service's, and a token step's the token endpoint's.
 * - One token step per credential per process at a time (`TokenState.fetch`): who needs a token meanwhile waits for it.
 * - A refused credential (`invalid_client` or another 4xx: `isTokenRefusal`) stops the run asking at once.
 * - A busy token endpoint (429, 5xx, no answer: `isTokenEndpointBusy`) pauses every run of the process (Retry-After,
 *   else backoff), at most TOKEN_WAIT_MS per token step and never past the request's budget; meanwhile each waiting
 *   request reads the credential every PROBE_MS, and a token another process stored ends the wait.
 * - A token endpoint down (5xx, no answer; a 429 is waited out) for TOKEN_WAIT_MS (`TokenState.downSince`): no request
 *   waits for it any more; until a token is obtained, one tries after each pause and the others fail at once.
 */

export const CREDENTIAL_TYPE = 'amlOAuth2Api';
/** The credential test's request, also the token step's read: small, read-only, answered by every account. */
export const CHECK_REQUEST_PATH = '/v1/screening-list-groups';

export const TOKEN_WAIT_MS = 70_000;
/** While paused, a waiting request looks this often whether another process stored a token. */
const PROBE_MS = 1_000;
const TOKEN_BACKOFF: BackoffPolicy = {
	maxAttempts: Infinity,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};

/** One credential's token as this n8n process sees it. A courtesy to the endpoint's limit: tokens live in n8n only. */
export interface TokenState {
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
const tokenStates = new Map<string, TokenState>();

/** The token state of the credential `key` (its ID and token URL), noting the token n8n keeps with it. */
export function tokenStateOf(key: string, credentials: IDataObject | undefined): TokenState {
	const state = tokenStates.get(key) ?? {
		generation: 0,
		obtainedAt: 0,
		pausedUntil: 0,
		failures: 0,
	};
	tokenStates.set(key, state);
	noteToken(state, credentials);
	return state;
}

/** Takes note of the credential's token as n8n keeps it (redacted from quoted text from now on). */
function noteToken(state: TokenState, credentials: IDataObject | undefined): void {
	Object.assign(state, storedToken(credentials));
	rememberSecret(state.token);
}

/** The token endpoint is throttling, failing or unreachable: asking again later may help. */
export function isTokenEndpointBusy(failure: Classified | TokenFailure): boolean {
	return failure.kind === 'network' || (failure.kind === 'http' && isBusyStatus(failure.status));
}

/** The token endpoint refused the credential (invalid_client, a revoked client, a bad scope): asking again cannot help. */
export function isTokenRefusal(failure: Classified | TokenFailure): boolean {
	if (failure.kind !== 'http') return false;
	return failure.status >= 400 && !isBusyStatus(failure.status);
}

/** A token step's failure as reported: of its body only the OAuth2 error fields (a body may echo the request). */
export function tokenFailure(failure: Exclude<Classified, { kind: 'other' }>): TokenFailure {
	if (failure.kind === 'network') return failure;
	const { body } = failure;
	let kept: unknown = typeof body === 'string' ? body.slice(0, 200) : undefined;
	if (body && typeof body === 'object') {
		const { error, error_description } = body as IDataObject;
		kept = { error, error_description };
	}
	return { kind: 'http', status: failure.status, body: kept };
}

/** A token endpoint that did not answer within the time given. */
export const NO_TOKEN_IN_TIME = { kind: 'network', code: 'ETIMEDOUT' } as const;

/** What a request gives its token steps: its deadline, the credential's URL and SSL switch, the cancel signal. */
export interface TokenStep {
	deadline?: Deadline;
	baseUrl: string;
	ignoreSslIssues: boolean;
	signal?: AbortSignal;
}

/**
 * Token first (see the rules at the top) for an attempt of `attemptMs`. Returns the token endpoint's failure when the
 * request must not be sent: no token, or the credential refused.
 */
export async function tokenFirst(
	ctx: IExecuteFunctions,
	token: TokenState,
	run: { tokenHeld?: boolean },
	attemptMs: () => number,
	step: TokenStep,
): Promise<Classified | undefined> {
	const expiring =
		token.expiresAt !== undefined &&
		(token.lifetimeMs ?? 0) > attemptMs() &&
		token.expiresAt <= Date.now() + attemptMs();
	if (run.tokenHeld && !(expiring && canRenewToken(ctx))) return undefined;
	// a first token is waited for like a renewal; an expiring one is renewed only within the attempt's time
	const ms = attemptMs();
	const waitMs = run.tokenHeld ? ms : TOKEN_WAIT_MS;
	const failure = await obtainToken(ctx, token, run, step, token.generation, ms, waitMs);
	return failure && (!run.tokenHeld || isTokenRefusal(failure)) ? failure : undefined;
}

/**
 * Has a token obtained for a request that knew token generation `generationBefore`: a first fetch when the run holds
 * none, else a renewal; each fetch given up after `fetchMs`, the step after `waitMs` and at the deadline. Returns
 * undefined when a token is there to send with (obtained here or by another; `run.tokenHeld` is set), else the failure.
 */
export async function obtainToken(
	ctx: IExecuteFunctions,
	token: TokenState,
	run: { tokenHeld?: boolean },
	step: TokenStep,
	generationBefore: number,
	fetchMs: number,
	waitMs: number,
): Promise<Classified | undefined> {
	const stepEnd = Math.min(step.deadline?.at ?? Infinity, Date.now() + waitMs);
	// waits for pauses and for others' fetches end with the down endpoint's TOKEN_WAIT_MS too
	const waitEnd = () => Math.min(stepEnd, (token.downSince ?? Infinity) + TOKEN_WAIT_MS);
	const lastFailure = (): Classified => token.lastError ?? NO_TOKEN_IN_TIME;
	for (;;) {
		if (token.generation !== generationBefore) {
			run.tokenHeld = true;
			return undefined;
		}
		if (token.fetch && Date.now() >= token.fetch.until) token.fetch = undefined;
		if (token.fetch) {
			const done = token.fetch.done.catch(() => undefined);
			const limit = waitEnd();
			if ((await settledBy(done, Math.min(limit, token.fetch.until))) === TIMED_OUT)
				if (Date.now() >= limit) return lastFailure();
			continue;
		}
		if (token.pausedUntil > Date.now()) {
			const probe = Math.min(token.pausedUntil - Date.now(), PROBE_MS);
			if (Date.now() + probe > waitEnd() || step.signal?.aborted) return lastFailure();
			await sleep(probe);
			const stored = await readCredentials(ctx);
			const { token: storedNow } = storedToken(stored);
			if (storedNow !== undefined && storedNow !== token.token) obtained(token, stored);
			continue;
		}
		// given up after fetchMs by everyone (taken for a busy endpoint); this request stops waiting at its own end
		const fetchEnd = Date.now() + fetchMs;
		const done = (
			!run.tokenHeld
				? fetchFirstToken(ctx, CREDENTIAL_TYPE, {
						url: `${step.baseUrl}${CHECK_REQUEST_PATH}`,
						skipSslCertificateValidation: step.ignoreSslIssues,
						headers: { Accept: 'application/json' },
						json: true,
						disableFollowRedirect: true,
						timeout: fetchMs,
					} satisfies IHttpRequestOptions)
				: renewToken(ctx, CREDENTIAL_TYPE)
		).then(async () => obtained(token, await readCredentials(ctx)));
		token.fetch = { done, until: fetchEnd };
		void done
			.catch(() => undefined)
			.finally(() => {
				if (token.fetch?.done === done) token.fetch = undefined;
			});
		try {
			if ((await settledBy(done, Math.min(stepEnd, fetchEnd))) !== TIMED_OUT) continue;
			// this request's own end came first: the fetch goes on for the others
			if (stepEnd < fetchEnd) return lastFailure();
			if (token.fetch?.done === done) token.fetch = undefined;
			if (stepEnd === fetchEnd) return lastFailure();
			pause(token, NO_TOKEN_IN_TIME);
		} catch (error) {
			const failure = classify(error);
			if (!isTokenEndpointBusy(failure)) return failure;
			pause(token, failure);
		}
	}
}

/** A token was obtained or found stored: every request waiting for one goes. */
function obtained(token: TokenState, credentials: IDataObject | undefined): void {
	noteToken(token, credentials);
	token.generation++;
	token.obtainedAt = Date.now();
	token.failures = 0;
	token.pausedUntil = 0;
	token.lastError = undefined;
	token.downSince = undefined;
}

async function readCredentials(ctx: IExecuteFunctions): Promise<IDataObject | undefined> {
	return await ctx.getCredentials<IDataObject>(CREDENTIAL_TYPE).catch(() => undefined);
}

/** The token endpoint is busy: every run of the process waits (Retry-After when sent, else backoff). */
function pause(token: TokenState, failure: Classified): void {
	token.lastError = failure;
	// failures seen together are one: the pause is not lengthened for each
	if (token.pausedUntil > Date.now()) return;
	// down since the first failure of a streak; a pause nobody tried after for TOKEN_WAIT_MS ends the streak
	if (failure.kind === 'http' && failure.status === 429) token.downSince = undefined;
	else if (token.downSince === undefined || Date.now() - token.pausedUntil > TOKEN_WAIT_MS)
		token.downSince = Date.now();
	const retryAfter =
		failure.kind === 'http' ? parseRetryAfter(failure.headers['retry-after']) : undefined;
	token.failures++;
	token.pausedUntil = Date.now() + backoffDelay(token.failures, TOKEN_BACKOFF, retryAfter);
}

const TIMED_OUT = Symbol('timed out');
/** The longest timer a wait leaves behind: a timer cannot be cleared here, so long waits are taken in steps. */
const WAIT_STEP_MS = 1_000;

/** The promise's result, or TIMED_OUT when it has not settled by `limitAt` (epoch ms; Infinity: no limit). */
async function settledBy<T>(promise: Promise<T>, limitAt: number): Promise<T | typeof TIMED_OUT> {
	if (limitAt === Infinity) return await promise;
	for (;;) {
		const left = limitAt - Date.now();
		const result = await Promise.race<T | typeof TIMED_OUT>([
			promise,
			sleep(Math.max(0, Math.min(left, WAIT_STEP_MS))).then((): typeof TIMED_OUT => TIMED_OUT),
		]);
		if (result !== TIMED_OUT || left <= WAIT_STEP_MS) return result;
	}
}
