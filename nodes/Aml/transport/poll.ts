import { sleep } from 'n8n-workflow';

import { executionCancelSignal } from './auth';
import { failureOf } from './errors';

/** How a poll waits: the first read after `firstMs`, each wait `factor` times the one before, at most `maxMs`. */
export interface PollPolicy {
	firstMs: number;
	factor: number;
	maxMs: number;
	/** When the poll ends unfinished (epoch ms): no wait goes past it, and the read after it is the last. */
	endsAt: number;
}

/** The last read (its value or its transient failure) and how the poll ended. */
export type PollResult<T> = {
	value?: T;
	lastError?: Error;
	ended: 'done' | 'timedOut' | 'cancelled';
};

/**
 * The one poll of the package: `read` (a request, its own repeats `decide`'s) after each wait of `policy`, until `done`
 * says its value is final or the end passes. A read that failed transiently (`transient`) says nothing of the thing
 * polled: the poll goes on, keeping the failure as the last read; any other failure ends the poll, thrown. A cancelled
 * execution ends it before the next read.
 */
export async function pollUntil<T>(
	ctx: object,
	policy: PollPolicy,
	read: () => Promise<T>,
	done: (value: T) => boolean,
): Promise<PollResult<T>> {
	const signal = executionCancelSignal(ctx);
	for (let waitMs = policy.firstMs; ; waitMs = Math.min(policy.maxMs, waitMs * policy.factor)) {
		await sleep(Math.max(0, Math.min(Math.round(waitMs), policy.endsAt - Date.now())));
		if (signal?.aborted) return { ended: 'cancelled' };
		const last = await read().then(
			(value): PollResult<T> => ({ value, ended: done(value) ? 'done' : 'timedOut' }),
			(error: Error): PollResult<T> => {
				if (!failureOf(error)?.transient) throw error;
				return { lastError: error, ended: 'timedOut' };
			},
		);
		if (last.ended === 'done' || Date.now() >= policy.endsAt) return last;
	}
}
