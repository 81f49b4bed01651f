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
	deadlineIn,
	parseRetryAfter,
	timeLeft,
	type BackoffPolicy,
	type Deadline,
} from './retry';
import { classify, isTokenEndpointBusy, isTokenRefusal, type Classified } from './classify';
import {
	executionCancelSignal,
	GivenUp,
	requestWithin,
	settledBy,
	TIMED_OUT,
} from '../../shared/n8n/cancel';
import {
	canRenewToken,
	placeFailure,
	renewToken as n8nRenewToken,
	serviceRefusal,
	fetchesFirstToken,
	ignoresSslIssues,
	renewedTokenMayHaveExpired,
	storedAccessToken,
	tokenExpiresWithin,
} from '../../shared/n8n/oauthToken';
import { rememberSecret } from './quote';
import { insecureUrlProblem, trimSlashes, urlFieldTooLong } from './secureUrl';

/**
 * Authentication: every request goes through n8n's `httpRequestWithAuthentication`, which fetches a token when the
 * credential holds none, signs the request and stores tokens with the credential; the package never sends a token
 * itself. Rules kept here:
 * - A 401 comes back as an answer (`ANSWER_EVERY_STATUS`) and the token is renewed through the seam's `renewToken`:
 *   one renewal per credential per process at a time, however many requests were refused (`Gate.generation`).
 * - A busy token endpoint (429, 5xx, no answer) pauses every run of the process that needs a token (Retry-After, else
 *   backoff), at most TOKEN_WAIT_MS since the process last obtained a token and never past the request's budget.
 * - A refusal of the credential (invalid_client) or MAX_REFUSED_FRESH refused fresh tokens stop the run asking.
 * - A first fetch that outlasts the send's Timeout is given up, and the service request n8n would send after the late
 *   token is stopped (`requestWithin` in the seam), so "nothing was sent" stays true.
 */

export const CREDENTIAL_TYPE = 'amlOAuth2Api';

export type AmlContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

/** Refused fresh tokens in a row after which a run stops asking for tokens (a revoked client must not cost one per item). */
const MAX_REFUSED_FRESH = 2;

/**
 * Longest a request waits for a token endpoint that answers 429 or fails (its limit counts per minute), counted from the
 * last token this process obtained.
 */
const TOKEN_WAIT_MS = 70_000;
/** How long a renewal before an upload may take (best effort; the 401 path renews otherwise). */
const RENEW_BEFORE_UPLOAD_MS = 30_000;
const TOKEN_BACKOFF: BackoffPolicy = {
	maxAttempts: Infinity,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};
/**
 * While the token endpoint is paused, one request of the process is sent again this often (the probe): a token another
 * process stored meanwhile makes it pass, and then every waiting request is sent again.
 */
const PROBE_MS = 1_000;

/**
 * One credential's token endpoint as this n8n process sees it: the renewal in flight, how many renewals completed
 * (a request refused with a token older than the last renewal is only sent again), and after a 429 or failure until
 * when every run waits. A courtesy to the endpoint's limit, not a store: tokens live only in the credential.
 */
interface Gate {
	/** Counts renewals of this process and probes that passed: a request refused before the last one is sent again. */
	generation: number;
	/** Renewals of this process only: a request refused after one was refused a fresh token. */
	renewals: number;
	/** When this process's last renewal completed (epoch ms). */
	renewedAt: number;
	/** A request is sent again to probe whether a token works (one at a time per gate, while paused). */
	probing?: boolean;
	inFlight?: Promise<unknown>;
	/** When the renewal in flight started. */
	inFlightSince: number;
	pausedUntil: number;
	failures: number;
	lastError?: { error: unknown; outcome: Classified };
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
	/**
	 * The credential held a token when the run read it, or a request of the run was answered: n8n fetches no first
	 * token inside a send (the bound on a first fetch is then not needed).
	 */
	tokenHeld?: boolean;
}

const runStates = new WeakMap<object, RunState>();

/** The run's state, created on first use (the credential is read once per run, for its URLs). */
export function runState(ctx: AmlContext): RunState {
	let state = runStates.get(ctx);
	if (!state) {
		state = {
			refusedFresh: 0,
			info: ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) => {
				const baseRaw = String(credentials.baseUrl ?? '');
				const prefixRaw = String(credentials.apiPathPrefix ?? '/api').trim();
				const tokenUrl = String(credentials.accessTokenUrl ?? '');
				const tooLong =
					urlFieldTooLong(baseRaw, 'API Base URL') ??
					urlFieldTooLong(prefixRaw, 'API Path Prefix') ??
					urlFieldTooLong(tokenUrl, 'Token URL');
				if (tooLong) throw new NodeOperationError(ctx.getNode(), tooLong);
				const base = trimSlashes(baseRaw, { start: false, end: true });
				const prefix =
					prefixRaw === '' || prefixRaw === '/'
						? ''
						: `/${trimSlashes(prefixRaw, { start: true, end: true })}`;
				// Before any request, and so before n8n fetches a token with the client secret.
				const allowPlainHttp = credentials.allowInsecureHttp === true;
				const insecure =
					insecureUrlProblem(base, 'API Base URL', allowPlainHttp) ??
					insecureUrlProblem(tokenUrl, 'Token URL', allowPlainHttp);
				if (insecure) throw new NodeOperationError(ctx.getNode(), insecure);
				rememberSecret(credentials.clientSecret);
				rememberSecret(storedAccessToken(credentials));
				const key = `${ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? ''} ${tokenUrl}`;
				let gate = gates.get(key);
				if (!gate)
					gates.set(
						key,
						(gate = {
							generation: 0,
							renewals: 0,
							renewedAt: 0,
							pausedUntil: 0,
							failures: 0,
							inFlightSince: 0,
						}),
					);
				if (!fetchesFirstToken(credentials)) created.tokenHeld = true;
				return {
					baseUrl: `${base}${prefix}`,
					tokenUrl,
					ignoreSslIssues: ignoresSslIssues(credentials),
					gate,
				};
			}),
		};
		const created = state;
		runStates.set(ctx, state);
	}
	return state;
}

/** A wait for the token endpoint that ran out (TOKEN_WAIT_MS) or a renewal the endpoint refused for good. */
interface RenewalFailure {
	error: unknown;
	outcome: Classified;
	/** It already waited and asked again: the request is not repeated on top. */
	waited: boolean;
}

/** A pause whose error was not kept (cannot happen: a pause starts with an error). */
function busyWithoutError(): { error: unknown; outcome: Classified } {
	const error = new Error('token endpoint busy');
	return { error, outcome: { kind: 'network', code: 'ECONNRESET', fromTokenEndpoint: true } };
}

/** A renewal's failure without an HTTP answer or with one happened at the token endpoint (nothing else is asked). */
function atTokenEndpoint(outcome: Classified): Classified {
	return outcome.kind === 'other' ? outcome : { ...outcome, fromTokenEndpoint: true };
}

/** The token endpoint refused or failed: every run of the process waits (Retry-After when sent, else backoff). */
function pause(gate: Gate, error: unknown, outcome: Classified): void {
	const retryAfter =
		outcome.kind === 'http' ? parseRetryAfter(outcome.headers['retry-after']) : undefined;
	gate.lastError = { error, outcome };
	// Requests refused together (n8n's renewal shared by several) are one refusal: the pause is not lengthened for each.
	if (gate.pausedUntil > Date.now()) return;
	gate.failures++;
	gate.pausedUntil = Date.now() + backoffDelay(gate.failures, TOKEN_BACKOFF, retryAfter);
}

/**
 * Waits while the token endpoint is paused. Returns when the request should be sent again: the pause ended, a renewal
 * or a probe passed (`generation` moved on from `seen`), or it is this request's turn to probe. Fails when the wait
 * would exceed TOKEN_WAIT_MS or the execution was cancelled.
 */
async function waitOutPause(
	ctx: AmlContext,
	gate: Gate,
	seen: number,
	started: number,
	deadline: Deadline | undefined,
): Promise<RenewalFailure | undefined> {
	for (;;) {
		const waitMs = gate.pausedUntil - Date.now();
		if (waitMs <= 0 || gate.generation !== seen) return undefined;
		const step = Math.min(waitMs, PROBE_MS);
		if (
			Date.now() - started + step > TOKEN_WAIT_MS ||
			step > timeLeft(deadline) ||
			executionCancelSignal(ctx)?.aborted
		)
			return { ...(gate.lastError ?? busyWithoutError()), waited: true };
		const probe = !gate.probing;
		if (probe) gate.probing = true;
		try {
			await sleep(Math.min(waitMs, PROBE_MS));
		} finally {
			if (probe) gate.probing = false;
		}
		if (probe) return undefined;
	}
}

/** A token endpoint that did not answer within the time given: a failure without an answer at the token endpoint. */
function tokenEndpointSilent(ms: number): { error: unknown; outcome: Classified } {
	return {
		error: new Error(`The token endpoint did not answer within ${ms} ms`),
		outcome: { kind: 'network', code: 'ETIMEDOUT', fromTokenEndpoint: true },
	};
}

/**
 * A request sent at generation `seen` was refused (401, handed back by n8n). Unless a renewal or a passing probe
 * completed since (then the request is only sent again), the seam's `renewToken` has n8n renew and store the token;
 * one renewal at a time per credential in this process. Returns when the request should be sent again. A renewal is
 * waited for until the deadline, at most TOKEN_WAIT_MS; one that n8n has not finished after TOKEN_WAIT_MS is no longer
 * waited for by anyone (n8n 1.x sets its token requests no time limit), so a later 401 starts a new one.
 */
async function renewToken(
	ctx: AmlContext,
	gate: Gate,
	tokenUrl: string,
	seen: number,
	started: number,
	deadline: Deadline | undefined,
): Promise<RenewalFailure | undefined> {
	const waitUntil = Math.min(deadline?.at ?? Infinity, started + TOKEN_WAIT_MS);
	for (;;) {
		if (gate.generation !== seen) return undefined;
		if (gate.inFlight && Date.now() - gate.inFlightSince > TOKEN_WAIT_MS) gate.inFlight = undefined;
		if (gate.inFlight) {
			const done = await settledBy(
				gate.inFlight.catch(() => undefined),
				waitUntil,
			);
			if (done === TIMED_OUT) return { ...tokenEndpointSilent(Date.now() - started), waited: true };
			continue;
		}
		if (gate.pausedUntil > Date.now())
			return await waitOutPause(ctx, gate, seen, started, deadline);
		const renewal: Promise<unknown> = n8nRenewToken(ctx as IExecuteFunctions, CREDENTIAL_TYPE)
			.then(() => {
				gate.generation++;
				gate.renewals++;
				gate.renewedAt = Date.now();
				gate.failures = 0;
				gate.pausedUntil = 0;
			})
			.finally(() => {
				if (gate.inFlight === renewal) gate.inFlight = undefined;
			});
		renewal.catch(() => undefined);
		gate.inFlight = renewal;
		gate.inFlightSince = Date.now();
		try {
			const done = await settledBy(renewal, waitUntil);
			if (done === TIMED_OUT) return { ...tokenEndpointSilent(Date.now() - started), waited: true };
			return undefined;
		} catch (error) {
			const outcome = atTokenEndpoint(classify(error, tokenUrl));
			if (!isTokenEndpointBusy(outcome))
				return { error, outcome, waited: Date.now() - started > PROBE_MS };
			pause(gate, error, outcome);
		}
	}
}

/**
 * Renews a token that n8n knows to be expired or about to be (within `marginMs`; the seam's `tokenExpiresWithin`),
 * before a request that must not be refused halfway (an upload). Best effort: a failure here leaves the
 * renewal to the 401 path.
 */
export async function renewIfExpiring(ctx: IExecuteFunctions, marginMs = 15_000): Promise<void> {
	try {
		if (!(await tokenExpiresWithin(credentialsOf(ctx), marginMs))) return;
		const { gate, tokenUrl } = await runState(ctx).info;
		await renewToken(
			ctx,
			gate,
			tokenUrl,
			gate.generation,
			Date.now(),
			deadlineIn(RENEW_BEFORE_UPLOAD_MS),
		);
	} catch {
		// The 401 path still renews the token.
	}
}

export interface FullResponse<T> {
	statusCode: number;
	body: T;
	headers: IDataObject;
}

/**
 * What one send gave: an answer (a 401 only when renewing did not help), or the error and what it was. `final`: the
 * token endpoint was already waited for or refused the credential, so the request is not repeated on top.
 */
export type Sent<T> =
	| { response: FullResponse<T>; error?: undefined }
	| { response?: undefined; error: unknown; outcome: Classified; final?: boolean };

/**
 * Sends one request through n8n's `httpRequestWithAuthentication`, renewing the token on a 401 where n8n does not
 * (see the top of this file) and waiting for a busy token endpoint, never past the item's time budget.
 * A renewed token that is refused too comes back as the 401 (amlRequest repeats once); after MAX_REFUSED_FRESH such
 * refusals in a row the run stops sending and answers each request with the last refusal. A renewed token refused only
 * after half its lifetime may have expired before the request went out: it is renewed again (within TOKEN_WAIT_MS and
 * the deadline) and not counted.
 */
export async function send<T>(
	ctx: AmlContext,
	state: RunState,
	options: IHttpRequestOptions,
	deadline?: Deadline,
): Promise<Sent<T>> {
	const { gate, tokenUrl, ignoreSslIssues } = await state.info;
	if (state.refusedFresh >= MAX_REFUSED_FRESH && state.lastRefusal) return state.lastRefusal;
	// The token wait counts from the last token this process obtained: a request released by a renewal or a probe that
	// passed, and refused again (its token expired meanwhile), waits anew; a token endpoint that only refuses does not.
	let started = Date.now();
	let progress = gate.generation;
	const canRenew = canRenewToken(ctx);
	let renewedSinceSent = false;
	for (let pass = 0; ; pass++) {
		// A send again after a renewal or a pause starts only within the budget (else: spent, this send never went out).
		if (pass > 0 && timeLeft(deadline) <= 0) return { ...tokenEndpointSilent(0), final: true };
		const seen = gate.generation;
		if (seen !== progress) {
			progress = seen;
			started = Date.now();
		}
		const renewalsSeen = gate.renewals;
		// Each send (after a renewal or a pause too) waits at most its Timeout and what is left of the budget.
		const timeout = Math.max(
			1,
			Math.min(options.timeout ?? TOKEN_WAIT_MS, Math.ceil(timeLeft(deadline))),
		);
		const limitAt = Date.now() + timeout;
		let response: FullResponse<T>;
		try {
			response = await requestWithin<FullResponse<T>>(
				ctx as IExecuteFunctions,
				CREDENTIAL_TYPE,
				{
					...options,
					timeout,
					headers: { ...(options.headers as IDataObject) },
					skipSslCertificateValidation: ignoreSslIssues,
				},
				state.tokenHeld ? Infinity : limitAt,
				deadline?.at,
			);
		} catch (error) {
			const outcome =
				error instanceof GivenUp
					? error.placed
					: await placeFailure(classify(error, tokenUrl), credentialsOf(ctx));
			if (outcome.kind === 'other' || !outcome.fromTokenEndpoint) {
				if (serviceRefusal(outcome) === 'refusedAfterRenewal')
					refusedFresh(state, { error, outcome });
				return { error, outcome };
			}
			// n8n's own token fetch (a credential without a token) or renewal failed at the token endpoint.
			if (isTokenRefusal(outcome)) return refusedByTokenEndpoint(state, error, outcome);
			if (!isTokenEndpointBusy(outcome)) return { error, outcome };
			// Busy, failing or unreachable: wait with every run of the process, send again.
			pause(gate, error, outcome);
			const failure = await waitOutPause(ctx, gate, seen, started, deadline);
			if (failure) return { ...failure, final: true };
			continue;
		}
		state.tokenHeld = true;
		if (serviceRefusal(response) !== 'renew') {
			if (response.statusCode < 300) {
				state.refusedFresh = 0;
				// A request refused during a pause passed (another process stored a token): the waiting ones go now.
				if (gate.pausedUntil > Date.now() && seen === gate.generation) gate.generation++;
			}
			return { response };
		}
		if (!canRenew) return { response };
		if (renewedSinceSent) {
			// Refused soon after the renewal: a fresh token refused (counted). Refused after half its lifetime (the
			// seam's renewedTokenMayHaveExpired), when it may have expired before the request went out (short-lived
			// tokens, a busy process): renewed again, within the token wait, and not counted.
			if (!(await renewedTokenMayHaveExpired(credentialsOf(ctx), gate.renewedAt))) {
				refusedFresh(state, { response }, gate.renewals);
				return { response };
			}
			if (Date.now() - started > TOKEN_WAIT_MS || timeLeft(deadline) <= 0) return { response };
		}
		if (state.refusedFresh >= MAX_REFUSED_FRESH) return { response };
		const failure = await renewToken(ctx, gate, tokenUrl, seen, started, deadline);
		if (failure) {
			if (isTokenRefusal(failure.outcome))
				return refusedByTokenEndpoint(state, failure.error, failure.outcome);
			return { error: failure.error, outcome: failure.outcome, final: failure.waited };
		}
		renewedSinceSent = gate.renewals !== renewalsSeen;
	}
}

/** Reads the credential as n8n hands it to the node (for the seam's readings of its token data). */
function credentialsOf(ctx: AmlContext): () => Promise<IDataObject> {
	return async () => await ctx.getCredentials<IDataObject>(CREDENTIAL_TYPE);
}

/**
 * The token endpoint refused the credential (invalid_client: a rotated secret, a revoked client): counted like refused
 * fresh tokens, at once up to the limit, so the rest of the run asks for no token and sends nothing.
 */
function refusedByTokenEndpoint(state: RunState, error: unknown, outcome: Classified): Sent<never> {
	const refusal: Sent<never> = { error, outcome, final: true };
	state.lastRefusal = refusal;
	state.refusedFresh = MAX_REFUSED_FRESH;
	return refusal;
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
