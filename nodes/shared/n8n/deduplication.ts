import type { DeduplicationHelperFunctions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * Seam with n8n: its deduplication store, where the AML Trigger records the key of every delivery it runs, and the
 * process model the trigger's in-process map (nodes/AmlTrigger/dedup.ts) relies on.
 *
 * Relies on:
 * - `this.helpers.checkProcessedAndRecord(keys, 'node', { mode: 'entries', maxEntries })` in a node's `execute`
 *   (n8n-core's deduplication helpers, kept in n8n's database, shared by every n8n process): answers which keys it
 *   had already recorded, and records the others. Feature-detected: an n8n without it runs every delivery
 *   (deduplication then rests on the in-process map alone).
 * - n8n's store reads, changes and writes a record whole (find, then insert or update): on its own, executions that
 *   ask together all read the record before any of them writes (copies all run, and one execution's write drops the
 *   key another wrote a moment before). But a record that does not exist is inserted, and the table's primary key
 *   (workflow, scope) lets one insert of it succeed. So the workflow's record (scope `workflow`) serves as a lock
 *   around the trigger's record (scope `node`): taken by inserting it (mode `latestIncrementalKey`, the smallest safe
 *   integer: an existing record of that mode answers the value as processed and keeps its own), released by deleting
 *   it (`clearAllProcessedItems`). A lock left behind takes a probe just above its value (another node's number does
 *   not) and is then deleted. A record of another mode there (a Remove Duplicates node with scope Workflow in the same
 *   workflow) makes n8n refuse the call ("incompatible setting"): the trigger then works without the lock and never
 *   changes that record.
 * - In n8n's regular mode the process that runs `webhook()` also runs the execution it starts (so the trigger's
 *   in-process map sees its own executions record their keys); in queue mode the execution runs in a worker.
 * Measured on: n8n 2.41.1 and 1.123.81 (test/faults/dedup.test.ts, SQLite, regular mode; test/queue, PostgreSQL);
 * the store, its unique insert, the lock and its release on n8n-core 1.123.81, 2.0.3 and 2.41.1
 * (test/contract/deduplication.test.ts).
 * Breaks when n8n changes: without the store, a redelivery after an n8n restart (or one reaching another webhook
 * process in queue mode) runs the workflow again; if inserting a record stops being unique, the lock no longer
 * excludes (copies can run twice, as without it); if the store's signature changes, every execution fails its check
 * three times and runs (duplicates, never a lost event).
 */

type Helpers = Partial<DeduplicationHelperFunctions>;
type Store = DeduplicationHelperFunctions['checkProcessedAndRecord'];

/** The lock record's one value: no number of mode `latestIncrementalKey` is smaller, so it never replaces one. */
const LOCK_VALUE = String(Number.MIN_SAFE_INTEGER);
const LOCK = { mode: 'latestIncrementalKey' as const };
/** Waiting for the lock: after this long it is taken as left behind (its holder stopped) and removed once. */
export const LOCK_STALE_MS = 10_000;
/** Waiting for the lock: after this long the check runs without it (a duplicate is the smaller harm than a wait). */
export const LOCK_GIVE_UP_MS = 20_000;
/** A workflow whose record belongs to another node is checked without the lock for this long, then tried again. */
export const LOCK_UNUSABLE_MS = 600_000;

/** Whether this n8n offers its deduplication store to the node. */
export function deduplicationStore(ctx: IExecuteFunctions): Store | undefined {
	const store = (ctx.helpers as Helpers).checkProcessedAndRecord;
	return typeof store === 'function' ? store : undefined;
}

const refusedForMode = (error: unknown) =>
	/incompatible setting/i.test(String((error as Error)?.message ?? ''));

type Attempt = 'taken' | 'held' | 'failed' | 'unusable';

async function tryLock(helpers: DeduplicationHelperFunctions): Promise<Attempt> {
	try {
		const answer = await helpers.checkProcessedAndRecord([LOCK_VALUE], 'workflow', LOCK);
		return answer.new.length ? 'taken' : 'held';
	} catch (error) {
		// Another execution inserted the record at the same moment (the primary key refused this one: asked again, it
		// is held or free), or the database failed. A record of another mode is another node's: not ours to lock.
		return refusedForMode(error) ? 'unusable' : 'failed';
	}
}

/**
 * Removes a lock left behind and answers 'held' (ask again); 'unusable' where the record is another node's. The probe
 * is larger than the lock's value and any earlier probe (the lock's value plus the time), smaller than any value a
 * node keeps there in practice: a record that takes it held the lock (n8n writes the probe over it, then it is
 * deleted); one that does not is another node's, and keeps its value.
 */
async function removeStaleLock(helpers: DeduplicationHelperFunctions): Promise<Attempt> {
	try {
		const probe = String(Number.MIN_SAFE_INTEGER + Date.now());
		const answer = await helpers.checkProcessedAndRecord([probe], 'workflow', LOCK);
		if (!answer.new.length) return 'unusable';
		await helpers.clearAllProcessedItems('workflow', LOCK);
		return 'held';
	} catch (error) {
		return refusedForMode(error) ? 'unusable' : 'failed';
	}
}

/** Per workflow (`lockName`): until when this process checks without the lock (its record is another node's). */
const unusable = new Map<string, number>();

/** Takes the workflow's lock: true when taken, false when the check must run without it. */
async function lock(helpers: DeduplicationHelperFunctions, lockName: string): Promise<boolean> {
	if ((unusable.get(lockName) ?? 0) > Date.now()) return false;
	const started = Date.now();
	let removed = false;
	let failures = 0;
	for (let attempt = 0; ; attempt++) {
		let state = await tryLock(helpers);
		const waited = Date.now() - started;
		if (state === 'held' && !removed && waited >= LOCK_STALE_MS) {
			removed = true;
			state = await removeStaleLock(helpers);
			if (state === 'held') state = await tryLock(helpers);
		}
		if (state === 'unusable') unusable.set(lockName, Date.now() + LOCK_UNUSABLE_MS);
		if (state === 'taken' || state === 'unusable') return state === 'taken';
		// three failures in a row are not a race for the insert: the database or the store fails
		failures = state === 'failed' ? failures + 1 : 0;
		if (failures >= 3 || waited >= LOCK_GIVE_UP_MS) return false;
		// each pause longer than the last, up to a bound, and drawn at random so that waiters never ask together
		await sleep(Math.min(100, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random()));
	}
}

/** `run`'s answer, asked up to three times; undefined when every try failed. */
async function threeTries<T>(run: () => Promise<T>): Promise<T | undefined> {
	for (let attempt = 1; attempt <= 3; attempt++) {
		try {
			return await run();
		} catch {
			await sleep(50 * attempt);
		}
	}
	return undefined;
}

async function unlock(helpers: DeduplicationHelperFunctions): Promise<void> {
	await threeTries(async () => await helpers.clearAllProcessedItems('workflow', LOCK));
}

/** Each process asks for a workflow's lock one execution at a time (per `lockName`); the others wait here. */
const queues = new Map<string, Promise<unknown>>();

async function inTurn<T>(lockName: string, run: () => Promise<T>): Promise<T> {
	const before = queues.get(lockName) ?? Promise.resolve();
	const mine = before.then(run, run);
	const settled = mine.catch(() => undefined);
	queues.set(lockName, settled);
	try {
		return await mine;
	} finally {
		if (queues.get(lockName) === settled) queues.delete(lockName);
	}
}

async function record(
	ctx: IExecuteFunctions,
	store: Store,
	keys: string[],
	maxEntries: number,
): Promise<Set<string>> {
	const answer = await threeTries(
		async () => await store.call(ctx.helpers, keys, 'node', { mode: 'entries', maxEntries }),
	);
	return new Set((answer?.processed ?? []).map(String));
}

/**
 * Records `keys` in n8n's deduplication store of this node (the newest `maxEntries` kept) and answers the ones it had
 * already recorded, holding the lock of the workflow `lockName` (its id) meanwhile: one execution of the workflow at a
 * time, in every n8n process. Nothing is answered where n8n offers no store or it keeps failing (three tries).
 */
export async function recordedBefore(
	ctx: IExecuteFunctions,
	keys: string[],
	maxEntries: number,
	lockName: string,
): Promise<Set<string>> {
	const store = deduplicationStore(ctx);
	if (!keys.length || !store) return new Set();
	const helpers = ctx.helpers as Helpers;
	// without a workflow (never the case for a production delivery) there is no workflow record to lock
	if (!lockName || typeof helpers.clearAllProcessedItems !== 'function') {
		return await record(ctx, store, keys, maxEntries);
	}
	const full = helpers as DeduplicationHelperFunctions;
	return await inTurn(lockName, async () => {
		const locked = await lock(full, lockName);
		try {
			return await record(ctx, store, keys, maxEntries);
		} finally {
			if (locked) await unlock(full);
		}
	});
}
