import { sleep } from 'n8n-workflow';

import { NEVER_SENT } from '../../shared/n8n/errors';
import { isBusyStatus, type Outcome } from './errors';

/** Retry timing shared by every request: Retry-After when sent, else exponential backoff with equal jitter. */
export interface BackoffPolicy {
	/** Attempts in total, the first included. */
	maxAttempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
	/** Longest Retry-After honoured; a longer one is clamped to it. */
	maxRetryAfterMs: number;
}

/**
 * The least time an attempt needs to be answered in (a token step and one round trip): a repeat starts only if this
 * much of the budget is left after its wait. The one rule of "no repeat that could not be answered before the deadline".
 */
export const MIN_ATTEMPT_MS = 100;
export const DEFAULT_BACKOFF: BackoffPolicy = {
	maxAttempts: 6,
	baseDelayMs: 250,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};

/** The one time budget value: when it ends (`at`, epoch ms) and its length (`ms`, for messages). */
export interface Deadline {
	at: number;
	ms: number;
}

/** Time left of the budget in ms (Infinity without one). */
export function timeLeft(deadline: Deadline | undefined): number {
	return deadline === undefined ? Infinity : deadline.at - Date.now();
}

export const TIMED_OUT = Symbol('timed out');
/** The longest timer a wait leaves behind: a timer cannot be cleared here, so long waits are taken in steps. */
const WAIT_STEP_MS = 1_000;

/** The promise's result, or TIMED_OUT when it has not settled by `limitAt` (epoch ms). */
export async function settledBy<T>(
	promise: Promise<T>,
	limitAt: number,
): Promise<T | typeof TIMED_OUT> {
	for (;;) {
		const left = limitAt - Date.now();
		const result = await Promise.race<T | typeof TIMED_OUT>([
			promise,
			sleep(Math.max(0, Math.min(left, WAIT_STEP_MS))).then((): typeof TIMED_OUT => TIMED_OUT),
		]);
		if (result !== TIMED_OUT || left <= WAIT_STEP_MS) return result;
	}
}

/** Retry-After is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	if (Array.isArray(value)) value = value[0];
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(parseFloat(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Delay before attempt number `attempt + 1` (attempt counts from 1). */
export function backoffDelay(
	attempt: number,
	policy: BackoffPolicy,
	retryAfterMs?: number,
	random: () => number = Math.random,
): number {
	if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	// "Equal jitter": never less than half the ceiling, so a burst of retries spreads out but still waits.
	return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * How an endpoint may be repeated after a 5xx, a timeout or a dropped connection (a 429, a refused connection and a
 * 401 are repeated in every mode: the service did not act on them). After such a failure the request may have been
 * applied with its answer lost, so a repeat's answer is read in that light (`afterLostAnswer`).
 * - safe: repeating cannot duplicate data (GET, PUT, DELETE, PATCH of a whole state).
 * - create: a create keyed by the caller's ID; repeated. A 422 "already exists" on a repeat cannot tell "my lost
 *   attempt stored it" from "it existed before": the caller gets it as `afterLostAnswer` and never claims "created".
 * - none: not repeated once it may have reached the service (uploads, manual alerts, notes, alert status changes:
 *   each makes a new entry); the error says how to check (`checkHint`).
 * - check: a real-time check, repeated only as `none` is (a check that may have run may have raised its alert, and its
 *   repeat answers only the alerts it raises itself); an answer after the time budget fails as the budget's error.
 */
export type RetryMode = 'safe' | 'create' | 'none' | 'check';

/** What an endpoint declares beside its path: how it is repeated and which answers mean what. */
export interface EndpointPolicy {
	retry?: RetryMode;
	/** Statuses the caller handles itself (returned, not thrown). */
	passStatuses?: number[];
	/**
	 * Statuses that, on a repeat after a lost answer, mean the lost attempt was applied (a DELETE repeated into 404
	 * "already gone", an archive repeated into 409 "already archived"): returned with `afterLostAnswer`.
	 */
	doneOnRepeat?: number[];
	/**
	 * Statuses that mean "not yet" (a 404 right after the run's own create, before the service shows it): repeated with
	 * backoff in every mode, as a 429 is, within the attempts and the budget; the last one fails as itself.
	 */
	notYet?: number[];
	/** How the user can see whether a request that may have reached the service was applied (for error messages). */
	checkHint?: string;
}

export interface DecisionInput {
	outcome: Exclude<Outcome, { kind: 'other' }>;
	retry: RetryMode;
	policy: EndpointPolicy;
	/** This attempt's number, from 1. */
	attempt: number;
	maxAttempts: number;
	/** An earlier attempt reached the service without an answer. */
	unanswered: boolean;
	/** 401s this request got, this attempt's included. */
	refusals: number;
	/** A 401 can be answered with a renewed token (token.ts `renews`). */
	renews: boolean;
	/** The wait before a repeat (Retry-After or backoff). */
	waitMs: number;
	/** Time left of the budget when the attempt ended (Infinity without one). */
	remainingMs: number;
}

/**
 * What follows an attempt: `done` (the answer is the caller's; `afterLostAnswer` when it is a repeat's after a lost
 * answer), `retry` after `waitMs` (`renew`: with the token the 401 refused renewed first), or `fail`: as the attempt's
 * own failure (`answer`) or as the spent budget (`budget`). `unanswered` says whether any attempt so far reached the
 * service without an answer.
 */
export type Verdict = { unanswered: boolean } & (
	| { action: 'done'; afterLostAnswer: boolean }
	| { action: 'retry'; waitMs: number; renew?: boolean }
	| { action: 'fail'; as: 'answer' | 'budget' }
);

/** Pure: the one retry decision of every request (table-tested in test/unit/retry.test.ts). */
export function decide(input: DecisionInput): Verdict {
	const { outcome, retry, policy } = input;
	const repeatable = retry === 'safe' || retry === 'create';
	let unanswered = input.unanswered;
	let retryable = false;
	let renew = false;
	if (outcome.kind === 'answer') {
		const { status } = outcome;
		if (status < 300 || policy.passStatuses?.includes(status)) {
			// A check answered after the budget is not taken: the payment waited longer than it may.
			if (retry === 'check' && input.remainingMs <= 0)
				return { unanswered: true, action: 'fail', as: 'budget' };
			return { unanswered, action: 'done', afterLostAnswer: unanswered };
		}
		// The lost attempt may have done it: not a failure, and not a claim either (see RetryMode).
		if (
			unanswered &&
			((status === 422 && retry === 'create') || policy.doneOnRepeat?.includes(status))
		)
			return { unanswered, action: 'done', afterLostAnswer: true };
		// the token renewed (token.ts), then sent once more at once; without a renewal only the request's first 401
		if (status === 401) retryable = renew = input.refusals === 1 || input.renews;
		else if (status === 429 || policy.notYet?.includes(status)) retryable = true;
		else if (isBusyStatus(status)) {
			// a server error or a gateway's request timeout: the request may have reached the service
			retryable = repeatable;
			unanswered = true;
		}
		// A refusal that is not repeated is reported as it is, budget or not.
		if (!retryable) return { unanswered, action: 'fail', as: 'answer' };
	} else if (outcome.kind === 'network') {
		// a refused connection certainly did not reach the service
		const neverSent = NEVER_SENT.has(outcome.code);
		retryable = neverSent || repeatable;
		if (!neverSent) unanswered = true;
	} else if (outcome.kind !== 'tokenEndpoint') {
		// the run stopped asking for tokens (its 401, a `service` failure): nothing sent, nothing repeated
		return { unanswered, action: 'fail', as: 'answer' };
	} else if (outcome.again) {
		// the token endpoint paused: the token asked for again when the token step says (`waitMs`); nothing was sent,
		// so it is no attempt
		retryable = true;
	} else {
		// The token step's wait is over: the budget's error when it spent it, else the token endpoint's.
		return { unanswered, action: 'fail', as: input.remainingMs <= 0 ? 'budget' : 'answer' };
	}
	if (input.remainingMs <= 0) return { unanswered, action: 'fail', as: 'budget' };
	const sent = outcome.kind !== 'tokenEndpoint';
	if (!retryable || (sent && input.attempt >= input.maxAttempts))
		return { unanswered, action: 'fail', as: 'answer' };
	// a repeat needs time to be answered in, not only to start (MIN_ATTEMPT_MS)
	const waitMs = renew ? 0 : input.waitMs;
	if (input.remainingMs - waitMs < MIN_ATTEMPT_MS)
		return { unanswered, action: 'fail', as: 'budget' };
	return { unanswered, action: 'retry', waitMs, ...(renew ? { renew } : {}) };
}
