import { createHash } from 'crypto';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { recordedBefore } from '../shared/n8n/deduplication';

/**
 * Deduplication of redelivered webhooks: the trigger's whole decision, one call from `webhook()` (`admitDelivery`)
 * and one from `execute()` (`firstRuns`). The service retries a delivery until it gets a 2xx and may deliver an event
 * twice; a retried delivery carries the same body (the service re-sends the bytes of the event). Assumed, not checked:
 * two different events never have the same body (each carries the event's `createdTime` and ids), so the SHA-256 of
 * the raw body identifies an event. Two events sent with identical bytes would run the workflow once.
 *
 * Two places know accepted keys, each necessary (test/faults/dedup.test.ts: the same delivery in sequence, many
 * copies at once, later again; each event runs the workflow once; figures in docs/internals.md):
 * 1. n8n's deduplication store (nodes/shared/n8n/deduplication.ts): `execute` records the key there and outputs
 *    nothing for a key already recorded. In n8n's database, so it covers a redelivery after a restart and a copy
 *    reaching another n8n process (queue mode) after the first copy's execution recorded it; copies reaching two
 *    processes at the same moment may both run (the store has no atomic claim). n8n's store (its
 *    DeduplicationHelper, mode 'entries') keeps one list per workflow and node ID, in the order keys were first
 *    recorded (a key found again does not move), cut to the newest `MAX_REMEMBERED_DELIVERIES`, with no time bound: a
 *    copy that comes after the window still starts an execution, which ends at the trigger with no output, as long
 *    as its key is in that list.
 * 2. A small in-process map, kept per trigger and bounded in time by the Deduplication Window: keys accepted here
 *    whose execution has not recorded them yet ("pending": an identical delivery is answered 503, so the service
 *    retries), and keys an execution in this process has recorded (answered "duplicate delivery", nothing started).
 *    An execution claims its key in this map in one synchronous step before it asks n8n's store: a copy accepted again
 *    after PENDING_MS while the first execution waited to start (a loaded n8n) stops at the trigger even when both
 *    executions ask the store together.
 * The window 0 turns both off. The workflow's static data is not a third place: it changes nothing the fault test
 * shows.
 */

/** Default window: one day, longer than the service's fast retry steps (2 min … 4 h, about 8 h in total). */
export const DEFAULT_DEDUP_WINDOW_MINUTES = 1440;

/** At most this many keys are kept per trigger node in n8n's deduplication store (the newest; no time bound). */
export const MAX_REMEMBERED_DELIVERIES = 10_000;

/**
 * How long a delivery accepted in this process but not yet recorded by its execution holds back an identical
 * one (answered 503, so the service retries). After that the identical delivery starts an execution again: the
 * first one's execution may never have started (the service would otherwise lose the event), and where it did,
 * the execution's check in n8n's deduplication store stops the copy at the trigger. In queue mode the execution
 * runs in a worker, so this process never learns that it recorded the key: the window is short.
 */
export const PENDING_MS = 60_000;

/**
 * Item field that carries the delivery's key (`deliveryKey`) from `webhook()` to `execute()` and on to the workflow:
 * the trigger sets it on every delivery (a body that carries one cannot choose it), so a workflow can claim the key in
 * an engine of its own (the queue-mode example claims it in Redis).
 */
export const KEY_FIELD = 'deliveryKey';

/** SHA-256 of the raw body bytes as received (base64url, 43 characters). */
export function deliveryKey(rawBody: Buffer): string {
	return createHash('sha256').update(rawBody).digest('base64url');
}

/** Most keys the in-process map keeps for one trigger (the newest); deliveries to one trigger never evict another's. */
export const MAX_KEYS_PER_TRIGGER = 10_000;

interface Entry {
	at: number;
	recorded: boolean;
}

/** One trigger's keys, expired by that trigger's own window. */
interface Part {
	entries: Map<string, Entry>;
	windowMs: number;
	prunedAt: number;
}

const expired = (e: Entry, nowMs: number, windowMs: number) =>
	nowMs - e.at > (e.recorded ? windowMs : PENDING_MS);

/**
 * The in-process part: per trigger (workflow id + node name, see `triggerIdOf`) and key, when it was accepted and
 * whether recorded. Each trigger's keys are kept apart: they expire by that trigger's window only and are bounded by
 * `maxPerTrigger` each, so no delivery to one trigger prunes or evicts another's keys.
 */
export class RecentDeliveries {
	private parts = new Map<string, Part>();

	private sweptAt = 0;

	constructor(private readonly maxPerTrigger = MAX_KEYS_PER_TRIGGER) {}

	private part(trigger: string, nowMs: number, windowMs: number): Part {
		let part = this.parts.get(trigger);
		if (!part) {
			part = { entries: new Map(), windowMs, prunedAt: nowMs };
			this.parts.set(trigger, part);
		}
		part.windowMs = windowMs;
		return part;
	}

	/** Drops a part's expired keys (a full pass at most once a second, not one per delivery). */
	private static prune(part: Part, nowMs: number): void {
		if (nowMs - part.prunedAt < 1000 && nowMs >= part.prunedAt) return;
		part.prunedAt = nowMs;
		for (const [key, e] of part.entries)
			if (expired(e, nowMs, part.windowMs)) part.entries.delete(key);
	}

	/** Once a minute, every trigger's part by its own window; parts left empty (a removed trigger) are dropped. */
	private sweep(nowMs: number): void {
		if (nowMs - this.sweptAt < 60_000 && nowMs >= this.sweptAt) return;
		this.sweptAt = nowMs;
		for (const [trigger, part] of this.parts) {
			RecentDeliveries.prune(part, nowMs);
			if (!part.entries.size) this.parts.delete(trigger);
		}
	}

	/** 'recorded', 'pending' (accepted here, execution has not recorded it yet, within PENDING_MS) or undefined. */
	state(
		trigger: string,
		key: string,
		nowMs: number,
		windowMinutes: number,
	): 'recorded' | 'pending' | undefined {
		this.sweep(nowMs);
		const part = this.part(trigger, nowMs, windowMinutes * 60_000);
		RecentDeliveries.prune(part, nowMs);
		const e = part.entries.get(key);
		if (e && expired(e, nowMs, part.windowMs)) {
			part.entries.delete(key);
			return undefined;
		}
		return e ? (e.recorded ? 'recorded' : 'pending') : undefined;
	}

	markPending(trigger: string, key: string, nowMs: number): void {
		this.set(trigger, key, { at: nowMs, recorded: false }, nowMs);
	}

	markRecorded(trigger: string, key: string, nowMs: number): void {
		const at = this.parts.get(trigger)?.entries.get(key)?.at ?? nowMs;
		this.set(trigger, key, { at, recorded: true }, nowMs);
	}

	/** Sets a key as the trigger's newest; beyond `maxPerTrigger` the trigger's oldest keys go. */
	private set(trigger: string, key: string, entry: Entry, nowMs: number): void {
		const part = this.parts.get(trigger) ?? this.part(trigger, nowMs, PENDING_MS);
		part.entries.delete(key);
		part.entries.set(key, entry);
		while (part.entries.size > this.maxPerTrigger) {
			const oldest = part.entries.keys().next().value as string;
			part.entries.delete(oldest);
		}
	}

	/** How many triggers have keys here, and how many keys in all (for tests). */
	size(): { triggers: number; keys: number } {
		let keys = 0;
		for (const part of this.parts.values()) keys += part.entries.size;
		return { triggers: this.parts.size, keys };
	}
}

/** One per n8n process: a delivery and its execution run in the same process in n8n's regular mode. */
export const recentDeliveries = new RecentDeliveries();

/** Identity of one trigger node of one workflow: the scope of its in-process keys and of its refusal log. */
export function triggerIdOf(ctx: {
	getWorkflow(): { id?: string };
	getNode(): { name: string };
}): string {
	return `${ctx.getWorkflow().id ?? ''}\u0000${ctx.getNode().name}`;
}

/** What `webhook()` does with a delivery that passed verification and the filters. */
export type Admission = 'start' | 'duplicate' | 'retry later';

/**
 * The decision of `webhook()`: 'duplicate' for a key an execution in this process recorded within the window (answered
 * 200, nothing started), 'retry later' for a key accepted here within PENDING_MS whose execution has not recorded it
 * yet (answered 503), otherwise 'start' (the key is marked pending). Not with the window 0, and not in test mode: a
 * test URL serves one delivery and is removed.
 */
export function admitDelivery(
	trigger: string,
	key: string | undefined,
	windowMinutes: number,
	manual: boolean,
	nowMs: number,
	deliveries: RecentDeliveries = recentDeliveries,
): Admission {
	if (!key || windowMinutes <= 0 || manual) return 'start';
	const here = deliveries.state(trigger, key, nowMs, windowMinutes);
	if (here === 'recorded') return 'duplicate';
	if (here === 'pending') return 'retry later';
	deliveries.markPending(trigger, key, nowMs);
	return 'start';
}

const keyOf = (item: INodeExecutionData): string | undefined =>
	typeof item.json[KEY_FIELD] === 'string' ? (item.json[KEY_FIELD] as string) : undefined;

/**
 * The decision of `execute()`: the items whose delivery runs for the first time. Each key is claimed in this process
 * first, in one synchronous step (no await between the read and the mark), then recorded in n8n's store; an item goes
 * when either had it (an execution of the same delivery that already ran here stops this one, whatever n8n's store
 * answers for executions running together). All items pass with the window 0 and in test mode.
 */
export async function firstRuns(
	ctx: IExecuteFunctions,
	trigger: string,
	items: INodeExecutionData[],
	windowMinutes: number,
	nowMs: number,
	deliveries: RecentDeliveries = recentDeliveries,
): Promise<INodeExecutionData[]> {
	if (windowMinutes <= 0 || ctx.getMode() === 'manual') return items;
	const keys = items.map(keyOf).filter((k): k is string => k !== undefined);
	const ranHere = new Set<string>();
	for (const key of keys) {
		if (deliveries.state(trigger, key, nowMs, windowMinutes) === 'recorded') ranHere.add(key);
		deliveries.markRecorded(trigger, key, nowMs);
	}
	const seen = await recordedBefore(ctx, keys, MAX_REMEMBERED_DELIVERIES);
	return items.filter((item) => {
		const key = keyOf(item);
		return !key || !(seen.has(key) || ranHere.has(key));
	});
}
