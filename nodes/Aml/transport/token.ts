import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	backoffDelay,
	parseRetryAfter,
	settledBy,
	timeLeft,
	TIMED_OUT,
	type BackoffPolicy,
	type Deadline,
} from './retry';
import { isTokenEndpointBusy, isTokenRefusal, NO_ANSWER_IN_TIME, type Failure } from './errors';
import { classify } from '../../shared/n8n/errors';
import {
	canRenewToken,
	fetchFirstToken,
	renewToken,
	storedToken,
} from '../../shared/n8n/oauthToken';
import { rememberSecret } from './quote';

/**
 * The token provider: the one place that has n8n obtain a token (n8n fetches, stores and signs with it; the package
 * never sends one). Its one entry, `tokenFor`, gives an attempt a token within the attempt's time, or the reason there
 * is none (while the token endpoint is paused: when to ask again); it repeats nothing itself, `decide` has the request
 * ask again. Its rules, written out only here:
 * - Token first: a request is sent only while the credential holds a token. Without one, n8n fetches it while sending
 *   the credential test's read (CHECK_REQUEST_PATH, the seam's `fetchFirstToken`; n8n's renewal helper cannot fetch a
 *   first token), bounded by the attempt's time: a late token sends only that read. A token n8n says expires within
 *   the attempt is renewed first when a new one would outlast the attempt (shorter-lived ones are left to the 401).
 *   So a send's failure is the service's, and a token step's the token endpoint's.
 * - A 401 (retry.ts `decide` has the attempt renew and send once more) renews the token it refused, unless a newer one
 *   was obtained meanwhile (then the request is only sent again). Without n8n's renewal in the context, the token is
 *   sent as it is.
 * - Refused fresh: a token the run renewed for a 401, refused within half its lifetime with no 2xx of the run since
 *   (`accepted`). MAX_REFUSED_FRESH of them stop the run asking, every further request failing with that 401 (a revoked
 *   client must not cost a token request per item). Its age counts from when this process fetched it: a token another
 *   process stored is never refused fresh, nor is one the credential no longer holds (read again: another process's,
 *   then only sent).
 * - One token step per credential per process at a time (`TokenState.fetch`): who needs a token meanwhile waits for it.
 * - A refused credential (`isTokenRefusal`) stops the run asking at once.
 * - A busy token endpoint (429, 5xx, no answer: `isTokenEndpointBusy`) pauses every run of the process (Retry-After,
 *   else backoff). A request that needs a token waits at most TOKEN_WAIT_MS for it, never past its budget: it asks
 *   again at the pause's end or after PROBE_MS (`again`, waited out by `decide`), reading the credential first,
 *   and a token another process stored ends the wait. An expiring token is sent as it is while the endpoint is paused.
 * - A token endpoint down (5xx, no answer; a 429 is waited out) for TOKEN_WAIT_MS (`TokenState.downSince`): no request
 *   waits for it any more; until a token is obtained, one tries after each pause and the others fail at once.
 */

export const CREDENTIAL_TYPE = 'amlOAuth2Api';
/** The credential test's request, also the token step's read: small, read-only, answered by every account. */
export const CHECK_REQUEST_PATH = '/v1/screening-list-groups';

/** The read's options but its URL: JSON, and no redirect followed (as every request of the package). */
const READ = { headers: { Accept: 'application/json' }, json: true, disableFollowRedirect: true };

export const TOKEN_WAIT_MS = 70_000;
const MAX_REFUSED_FRESH = 2;
/** While paused, a waiting request looks this often whether another process stored a token. */
const PROBE_MS = 1_000;
const TOKEN_BACKOFF: BackoffPolicy = {
	maxAttempts: Infinity,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};

/** One credential's token as this n8n process sees it. A courtesy to the endpoint's limit: tokens live in n8n only. */
interface TokenState {
	/** Tokens this process obtained or saw stored by another: a request refused before the last one is sent again. */
	generation: number;
	/** When this process fetched the token; 0 for a token another process stored (its age unknown here). */
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
	lastError?: NoToken;
}
/** No token from the token endpoint (errors.ts `Failure`, with what the endpoint gave), and when to ask again. */
type NoToken = Extract<Failure<unknown>, { kind: 'tokenEndpoint' }>;
type TokenWait = NonNullable<NoToken['again']>;
const NO_TOKEN_IN_TIME: NoToken = { kind: 'tokenEndpoint', tokenFailure: NO_ANSWER_IN_TIME };
const tokenStates = new Map<string, TokenState>();

/** What an attempt asks for: its time, and the token a 401 answered (the generation it was sent with). */
export interface TokenNeed {
	/** The request's Timeout (ms): the attempt's time is this or what is left of the deadline (`attemptMs`). */
	timeoutMs: number;
	deadline?: Deadline;
	signal?: AbortSignal;
	refused?: { generation: number; body: unknown };
	/** The wait for a token this request is in (handed back from the token step's `again`). */
	wait?: TokenWait;
}

/**
 * The provider of one run (one context object) for the credential `key` (its ID and token URL) as the run read it
 * (`credentials`); `read` is the token step's read (the credential test's request, URL and SSL switch set).
 */
export function tokenProvider(
	ctx: IExecuteFunctions,
	key: string,
	credentials: IDataObject,
	read: { url: string; skipSslCertificateValidation: boolean },
) {
	const token = tokenStates.get(key) ?? {
		generation: 0,
		obtainedAt: 0,
		pausedUntil: 0,
		failures: 0,
	};
	tokenStates.set(key, token);
	// the token as the run read it: none when the credential lost it (the run fetches a first one)
	Object.assign(token, storedToken(credentials));
	rememberSecret(token.token);
	const renews = canRenewToken(ctx);
	/** The credential held a token when the run read it, or one was obtained since. */
	let held = token.token !== undefined;
	let stopped: Failure<unknown> | undefined;
	/** Generations the run renewed for a 401 (only these can be refused fresh), and those refused fresh; no 2xx since. */
	const renewals = new Set<number>();
	const refusedFresh = new Set<number>();

	/** `obtainToken` for this run (a first token while none is held); a refused credential stops the run asking. */
	const obtain = async (need: TokenNeed, step: TokenStep) => {
		const result = await obtainToken(ctx, token, need, { ...step, first: held ? undefined : read });
		if (!result) held = true;
		else if ('at' in result) return { ...lastBusy(token), again: result };
		else if (refusal(result)) stopped = result;
		return result;
	};

	/** A token to send with (its generation) and the attempt's time for the send, or why there is none: nothing is sent. */
	async function tokenFor(
		need: TokenNeed,
	): Promise<{ generation: number; timeoutMs: number } | Failure<unknown>> {
		if (stopped) return stopped;
		const { refused, wait } = need;
		// a token obtained while this request waited (here or by another process) is sent
		if (wait && token.generation !== wait.before) held = true;
		else if (refused && renews && token.generation === refused.generation) {
			const { generation } = refused;
			const fresh = renewals.has(generation) && isFresh(token);
			if (!wait && fresh && sameStored(token, await readCredentials(ctx)))
				if (refusedFresh.add(generation).size >= MAX_REFUSED_FRESH)
					return (stopped = { kind: 'service', status: 401, body: refused.body });
			// a token another process stored meanwhile is only sent; the refused one is renewed
			if (token.generation === generation) {
				const result = await obtain(need, { fetchMs: TOKEN_WAIT_MS, waitMs: TOKEN_WAIT_MS });
				if (result) return result;
				renewals.add(token.generation);
			}
		}
		const ms = attemptMs(need);
		const expiring =
			(token.lifetimeMs ?? 0) > ms && (token.expiresAt ?? Infinity) <= Date.now() + ms;
		if (!held || (expiring && renews && !wait)) {
			// a first token is waited for like a renewal; an expiring one is renewed only within the attempt's time, and
			// not waited for while the token endpoint is paused (the token held is sent)
			const first = !held;
			const result = await obtain(need, { fetchMs: ms, waitMs: first ? TOKEN_WAIT_MS : ms });
			if (result && (first || refusal(result))) return result;
		}
		// the budget went to the token step: the request is not sent
		const timeoutMs = attemptMs(need);
		if (timeoutMs <= 0) return NO_TOKEN_IN_TIME;
		return { generation: token.generation, timeoutMs };
	}
	// a 2xx: the tokens refused before were not a refused credential (the count starts again)
	const accepted = () => [renewals, refusedFresh].forEach((set) => set.clear());
	return { tokenFor, accepted, renews };
}

/** The one rule of an attempt's time: the Timeout, or what is left of the deadline when less (ms, from now). */
function attemptMs({ timeoutMs, deadline }: TokenNeed): number {
	return Math.ceil(Math.min(timeoutMs, timeLeft(deadline)));
}

/** Within half its lifetime since this process fetched it (see the rules at the top); another process's token is not. */
function isFresh({ obtainedAt, lifetimeMs }: TokenState): boolean {
	return obtainedAt > 0 && (lifetimeMs === undefined || Date.now() - obtainedAt < lifetimeMs / 2);
}

/** Whether the credential holds the token last seen (or none); another process's is taken, as theirs (age unknown). */
function sameStored(token: TokenState, credentials: IDataObject | undefined): boolean {
	const { token: storedNow } = storedToken(credentials);
	if (storedNow === undefined || storedNow === token.token) return true;
	obtained(token, credentials, false);
	return false;
}

/** The token endpoint refused the credential: asking again cannot help. */
const refusal = (result: Failure<unknown>) =>
	result.kind === 'tokenEndpoint' && isTokenRefusal(result.tokenFailure);

/** A token step's failure as reported: of its body only the OAuth2 error fields (a body may echo the request). */
function reported(failure: NoToken['tokenFailure']): NoToken['tokenFailure'] {
	if (failure.kind === 'network') return failure;
	const { body } = failure;
	let kept: unknown = typeof body === 'string' ? body.slice(0, 200) : undefined;
	if (body && typeof body === 'object') {
		const { error, error_description } = body as IDataObject;
		kept = { error, error_description };
	}
	return { kind: 'http', status: failure.status, body: kept };
}

interface TokenStep {
	/** Each fetch is given up after `fetchMs` (by everyone); the request's wait ends `waitMs` after it began. */
	fetchMs: number;
	waitMs: number;
	/** No token held: n8n fetches a first one while sending this read; else it renews. */
	first?: { url: string; skipSslCertificateValidation: boolean };
}

/**
 * One token step (see the rules at the top), repeating nothing: it joins the fetch in flight, or fetches once. Returns
 * undefined when a token newer than the request knew is there to send with (obtained here or by another); while the
 * token endpoint is paused and the request's wait lasts, when to ask again (`decide` has the request wait for it); else
 * the failure.
 */
async function obtainToken(
	ctx: IExecuteFunctions,
	token: TokenState,
	{ wait, deadline, signal }: TokenNeed,
	step: TokenStep,
): Promise<Failure<unknown> | TokenWait | undefined> {
	// the request's wait for a token: when it began, and the generation it knew (any newer token ends it)
	const { since = Date.now(), before = token.generation } = wait ?? {};
	const stepEnd = Math.min(deadline?.at ?? Infinity, since + step.waitMs);
	// waits for pauses and for others' fetches end with the down endpoint's TOKEN_WAIT_MS too
	const waitEnd = () => Math.min(stepEnd, (token.downSince ?? Infinity) + TOKEN_WAIT_MS);
	const newer = () => token.generation !== before;
	/** Asked again at the pause's end, or after PROBE_MS to read the credential, while the wait lasts. */
	const again = (at = Math.min(token.pausedUntil, Date.now() + PROBE_MS)) =>
		at <= waitEnd() && !signal?.aborted ? { at, since, before } : lastBusy(token);
	// asked again after a pause: the credential is read first (another process may have stored a token)
	if (wait) sameStored(token, await readCredentials(ctx));
	const joinable = () => {
		if (token.fetch && Date.now() >= token.fetch.until) token.fetch = undefined;
		return token.fetch;
	};
	let fetch = joinable();
	if (!newer() && fetch) {
		const limit = waitEnd();
		const joined = await settledBy(
			fetch.done.catch(() => undefined),
			Math.min(limit, fetch.until),
		);
		if (joined === TIMED_OUT && Date.now() >= limit && !newer()) return lastBusy(token);
		// another fetch started meanwhile: joined when asked again at once
		if ((fetch = joinable()) && !newer()) return again(Date.now());
	}
	if (newer()) return undefined;
	if (token.pausedUntil > Date.now()) return again();
	// given up after fetchMs by everyone (taken for a busy endpoint); this request stops waiting at its own end
	const fetchEnd = Date.now() + step.fetchMs;
	const done = (
		step.first
			? fetchFirstToken(ctx, CREDENTIAL_TYPE, { ...step.first, ...READ, timeout: step.fetchMs })
			: renewToken(ctx, CREDENTIAL_TYPE)
	).then(async () => obtained(token, await readCredentials(ctx), true));
	token.fetch = { done, until: fetchEnd };
	void done
		.catch(() => undefined)
		.finally(() => {
			if (token.fetch?.done === done) token.fetch = undefined;
		});
	try {
		if ((await settledBy(done, Math.min(stepEnd, fetchEnd))) !== TIMED_OUT) return undefined;
		// this request's own end came first: the fetch goes on for the others
		if (stepEnd < fetchEnd) return lastBusy(token);
		if (token.fetch?.done === done) token.fetch = undefined;
		if (stepEnd === fetchEnd) return lastBusy(token);
		pause(token, NO_TOKEN_IN_TIME);
	} catch (error) {
		const thrown = classify(error);
		if (thrown.kind === 'other')
			return { kind: 'other', message: thrown.error?.message ?? 'Request failed' };
		const failure: NoToken = { kind: 'tokenEndpoint', tokenFailure: reported(thrown) };
		if (!isTokenEndpointBusy(failure.tokenFailure)) return failure;
		pause(token, failure, thrown.kind === 'http' ? thrown.headers['retry-after'] : undefined);
	}
	return again();
}

/** The token endpoint's last failure while busy: what a wait that ends without a token reports. */
const lastBusy = (token: TokenState) => token.lastError ?? NO_TOKEN_IN_TIME;

/**
 * A token was fetched here (`fetched`) or found stored by another process: taken note of as n8n keeps it (redacted from
 * quoted text from now on), and every request waiting for one goes.
 */
function obtained(token: TokenState, credentials: IDataObject | undefined, fetched: boolean): void {
	Object.assign(token, storedToken(credentials));
	rememberSecret(token.token);
	token.obtainedAt = fetched ? Date.now() : 0;
	// the token endpoint's pause ends with a token fetched here; another process's token leaves it (its Retry-After holds)
	if (fetched) Object.assign(token, { failures: 0, pausedUntil: 0 });
	token.generation++;
	token.lastError = token.downSince = undefined;
}

async function readCredentials(ctx: IExecuteFunctions): Promise<IDataObject | undefined> {
	return await ctx.getCredentials<IDataObject>(CREDENTIAL_TYPE).catch(() => undefined);
}

/** The token endpoint is busy: every run of the process waits (Retry-After when sent, else backoff). */
function pause(token: TokenState, failure: NoToken, retryAfter?: unknown): void {
	token.lastError = failure;
	// failures seen together are one: the pause is not lengthened for each
	if (token.pausedUntil > Date.now()) return;
	// down since the first failure of a streak; a pause nobody tried after for TOKEN_WAIT_MS ends the streak
	const answer = failure.tokenFailure;
	if (answer.kind === 'http' && answer.status === 429) token.downSince = undefined;
	else if (token.downSince === undefined || Date.now() - token.pausedUntil > TOKEN_WAIT_MS)
		token.downSince = Date.now();
	token.failures++;
	const delay = backoffDelay(token.failures, TOKEN_BACKOFF, parseRetryAfter(retryAfter));
	token.pausedUntil = Date.now() + delay;
}
