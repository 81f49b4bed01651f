import { createHash } from 'crypto';

/**
 * Deduplication of redelivered webhooks. The service retries a delivery until it gets a 2xx and may deliver an
 * event twice; a retried delivery carries the same body (the service re-sends the bytes of the event). Two different
 * events never have the same body (it carries the event's `createdTime` and ids), so the SHA-256 of the raw body
 * identifies an event.
 *
 * Two places know accepted keys, each shown necessary by test/faults/dedup.test.ts (the same delivery in sequence,
 * 20 copies at once, later again; each event must run the workflow once):
 * 1. n8n's deduplication store (nodes/shared/n8n/deduplication.ts): the trigger's `execute` records the key there and
 *    outputs nothing for a key already recorded. In n8n's database, so it covers a redelivery after a restart and a
 *    copy reaching another n8n process (queue mode). It offers no atomic claim: 20 copies at once, the store alone
 *    ran the workflow 4 times (n8n 2.41.1; 2 times on 1.123.81).
 * 2. A small in-process map: keys accepted here whose execution has not recorded them yet ("pending": an identical
 *    delivery is answered 503, so the service retries), and keys an execution in this process has recorded (answered
 *    "duplicate delivery", nothing started). With it the 20 copies ran the workflow once (4 runs of the test, n8n
 *    2.41.1 and 1.123.81: 3 executions started for 45 copies of 3 events).
 *    An execution claims its key in this map in one synchronous step before it asks n8n's store: a copy accepted again
 *    after PENDING_MS while the first execution waited to start (a loaded n8n) stops at the trigger even when both
 *    executions ask the store together (faults burst of 200: 210 and 262 executions before, 200 after).
 * The workflow's static data is not used as a third place: with the two above the test showed no lost or doubled
 * delivery (the same figures as with it).
 */

/** Default window: one day, longer than the service's fast retry steps (2 min … 4 h, about 8 h in total). */
export const DEFAULT_DEDUP_WINDOW_MINUTES = 1440;

/** At most this many keys are kept per trigger in n8n's deduplication store (the newest). */
export const MAX_REMEMBERED_DELIVERIES = 10_000;

/**
 * How long a delivery accepted in this process but not yet recorded by its execution holds back an identical
 * one (answered 503, so the service retries). After that the identical delivery starts an execution again: the
 * first one's execution may never have started (the service would otherwise lose the event), and where it did,
 * the execution's check in n8n's deduplication store stops the copy at the trigger. In queue mode the execution
 * runs in a worker, so this process never learns that it recorded the key: the window is short.
 */
export const PENDING_MS = 60_000;

/** Item field that carries the key from `webhook()` to `execute()`; removed before the item is output. */
export const KEY_FIELD = '__amlDeliveryKey';

/** SHA-256 of the raw body bytes as received (base64url, 43 characters). */
export function deliveryKey(rawBody: Buffer): string {
	return createHash('sha256').update(rawBody).digest('base64url');
}

/** The in-process part: per trigger (workflow id + node name) and key, when it was accepted and whether recorded. */
export class RecentDeliveries {
	private entries = new Map<string, { at: number; recorded: boolean }>();

	private prunedAt = 0;

	constructor(private readonly maxEntries = 50_000) {}

	/** Drops expired entries (a full pass at most once a second, not one per delivery) and the oldest beyond the cap. */
	private prune(nowMs: number, windowMs: number): void {
		if (nowMs - this.prunedAt >= 1000 || nowMs < this.prunedAt) {
			this.prunedAt = nowMs;
			for (const [id, e] of this.entries) {
				if (nowMs - e.at > (e.recorded ? windowMs : PENDING_MS)) this.entries.delete(id);
			}
		}
		while (this.entries.size > this.maxEntries) {
			const oldest = this.entries.keys().next().value as string;
			this.entries.delete(oldest);
		}
	}

	/** 'recorded', 'pending' (accepted here, execution has not recorded it yet, within PENDING_MS) or undefined. */
	state(id: string, nowMs: number, windowMinutes: number): 'recorded' | 'pending' | undefined {
		this.prune(nowMs, windowMinutes * 60_000);
		const e = this.entries.get(id);
		if (e && nowMs - e.at > (e.recorded ? windowMinutes * 60_000 : PENDING_MS)) {
			this.entries.delete(id);
			return undefined;
		}
		return e ? (e.recorded ? 'recorded' : 'pending') : undefined;
	}

	markPending(id: string, nowMs: number): void {
		this.entries.delete(id);
		this.entries.set(id, { at: nowMs, recorded: false });
	}

	markRecorded(id: string, nowMs: number): void {
		const at = this.entries.get(id)?.at ?? nowMs;
		this.entries.delete(id);
		this.entries.set(id, { at, recorded: true });
	}
}

/** One per n8n process: a delivery and its execution run in the same process in n8n's regular mode. */
export const recentDeliveries = new RecentDeliveries();

/** Identity of a key of one trigger node of one workflow. */
export function triggerKeyId(
	workflowId: string | undefined,
	nodeName: string,
	key: string,
): string {
	return `${workflowId ?? ''}\u0000${nodeName}\u0000${key}`;
}
