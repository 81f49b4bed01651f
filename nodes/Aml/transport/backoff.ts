/** Retry timing shared by every request: Retry-After when sent, else exponential backoff with equal jitter. */
export interface BackoffPolicy {
	/** Attempts in total, the first included. */
	maxAttempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
	/** Longest Retry-After honoured; a longer one is clamped to it. */
	maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
	maxAttempts: 6,
	baseDelayMs: 250,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};

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
 * Pure: what follows a failed attempt. `stop` when it may not be repeated or the attempts are used up (the caller
 * reports the failure itself); `budget` when a repeat, after waiting `waitMs`, could not start before the item's time
 * budget ends (`remainingMs`; Infinity without a budget), or the budget is already spent (an attempt cut short by
 * it); else `retry` after `waitMs`.
 */
export function nextStep(step: {
	retryable: boolean;
	/** The attempt got an HTTP answer (a refusal that is not repeated is reported as it is, budget or not). */
	answered: boolean;
	attempt: number;
	maxAttempts: number;
	waitMs: number;
	remainingMs: number;
}): 'retry' | 'stop' | 'budget' {
	if (!step.retryable && step.answered) return 'stop';
	if (step.remainingMs <= 0) return 'budget';
	if (!step.retryable || step.attempt >= step.maxAttempts) return 'stop';
	// a repeat needs some time to be answered in, not only to start
	return step.waitMs >= step.remainingMs ? 'budget' : 'retry';
}
