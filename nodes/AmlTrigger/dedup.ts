import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/**
 * Deduplication of redelivered webhooks. The service retries a delivery until it gets a 2xx and may deliver an
 * event twice; a retried delivery carries the same body (the service re-sends the bytes of the event). Two different events never have the
 * same body (it carries the event's `createdTime` and ids), so the SHA-256 of the raw body identifies an event.
 *
 * Where accepted keys live:
 * 0. n8n's deduplication store (`checkProcessedAndRecord`, in n8n's database, every process), where the n8n
 *    running the execution offers it: the trigger's `execute` records the key there and outputs nothing for a key
 *    already recorded. n8n offers no atomic claim to nodes (the store and static data are read, changed and
 *    written whole), so two copies that start executions in two processes within the same instant can both run;
 *    copies that reach one process are held back by the in-process map (2.).
 * 1. The workflow's static data of this node, `{ acceptedDeliveries: { key: epochSeconds } }`: n8n's own
 *    per-workflow store, in its database, read afresh for every delivery and therefore shared by every n8n
 *    process (queue mode included), so that a redelivery is answered "duplicate" without an execution. It is
 *    written by the trigger's `execute`, which n8n runs as the first step of the started execution and whose
 *    static-data changes n8n saves, whole, when the execution ends: concurrent executions may overwrite each
 *    other's keys, which is why it is only the fast path and the deduplication store decides. (Static data
 *    changed inside `webhook()` is not reliably saved by n8n 2.41.1: the workflow runner re-wraps the same
 *    object and clears its change flag before the webhook handler saves it.)
 * 2. A small in-process map: keys accepted here whose execution has not recorded them yet ("pending"), and keys
 *    an execution in this process has recorded. It covers the gap until the database has the key.
 */

/** Default window: one day, longer than the service's fast retry steps (2 min … 4 h, about 8 h in total). */
export const DEFAULT_DEDUP_WINDOW_MINUTES = 1440;

/** At most this many keys are kept per trigger (the newest); static data is saved as a whole. */
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

const PROPERTY = 'acceptedDeliveries';

/** SHA-256 of the raw body bytes as received (base64url, 43 characters). */
export function deliveryKey(rawBody: Buffer): string {
	return createHash('sha256').update(rawBody).digest('base64url');
}

/** Keys of `nodeStaticData` still inside the window (garbage and future-dated entries dropped). */
function liveKeys(
	nodeStaticData: IDataObject,
	nowSeconds: number,
	windowMinutes: number,
): Record<string, number> {
	const oldest = nowSeconds - Math.ceil(windowMinutes * 60);
	const stored = nodeStaticData[PROPERTY];
	const seen: Record<string, number> = {};
	if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
		for (const [k, at] of Object.entries(stored as Record<string, unknown>)) {
			if (typeof at === 'number' && at > oldest && at <= nowSeconds + 60) seen[k] = at;
		}
	}
	return seen;
}

/** Whether `key` was recorded as accepted within the last `windowMinutes`. Reads only, one key (no copy of the store). */
export function acceptedWithin(
	nodeStaticData: IDataObject,
	key: string,
	nowMs: number,
	windowMinutes: number,
): boolean {
	const stored = nodeStaticData[PROPERTY];
	if (
		!stored ||
		typeof stored !== 'object' ||
		Array.isArray(stored) ||
		!Object.prototype.hasOwnProperty.call(stored, key)
	)
		return false;
	const at = (stored as Record<string, unknown>)[key];
	const now = Math.floor(nowMs / 1000);
	return typeof at === 'number' && at > now - Math.ceil(windowMinutes * 60) && at <= now + 60;
}

/**
 * Records `key` as accepted now; drops expired keys and the oldest beyond `maxEntries`. The store is assigned
 * (not only mutated in place) so that n8n's change tracking of static data sees it.
 */
export function recordAccepted(
	nodeStaticData: IDataObject,
	key: string,
	nowMs: number,
	windowMinutes: number,
	maxEntries = MAX_REMEMBERED_DELIVERIES,
): void {
	const now = Math.floor(nowMs / 1000);
	const seen = liveKeys(nodeStaticData, now, windowMinutes);
	seen[key] = seen[key] ?? now;
	const keys = Object.keys(seen);
	if (keys.length > maxEntries) {
		keys
			.sort((a, b) => seen[a] - seen[b])
			.slice(0, keys.length - maxEntries)
			.forEach((k) => delete seen[k]);
	}
	nodeStaticData[PROPERTY] = seen;
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
