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
