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
 * - n8n's store reads, changes and writes a trigger's record whole (find, then insert or update; no atomic claim):
 *   executions of copies that start together can all read the record before any of them writes, and all run. The
 *   first record of a trigger is inserted: two executions inserting it together, one fails on the database's unique
 *   key, and asked again it updates (so a failure is asked again, twice; a store that keeps failing runs the
 *   delivery: a duplicate is the smaller harm than a lost event).
 * - In n8n's regular mode the process that runs `webhook()` also runs the execution it starts (so the trigger's
 *   in-process map sees its own executions record their keys); in queue mode the execution runs in a worker.
 * Measured on: n8n 2.41.1 and 1.123.81 (test/faults/dedup.test.ts, SQLite, regular mode): 20 copies of one delivery
 * at once, n8n's store alone ran the workflow 1 and 4 times (2.41.1, two runs), 1 and 2 times (1.123.81): the
 * in-process map is needed (with it: once, every run). The store is offered by n8n-core 1.123.81, 2.0.3 and 2.41.1
 * (test/contract/deduplication.test.ts).
 * Breaks when n8n changes: without the store, a redelivery after an n8n restart (or one reaching another webhook
 * process in queue mode) runs the workflow again; if the store's signature changes, every execution fails its check
 * three times and runs (duplicates, never a lost event).
 */

type Store = DeduplicationHelperFunctions['checkProcessedAndRecord'];

/** Whether this n8n offers its deduplication store to the node. */
export function deduplicationStore(ctx: IExecuteFunctions): Store | undefined {
	const store = (ctx.helpers as Partial<DeduplicationHelperFunctions>).checkProcessedAndRecord;
	return typeof store === 'function' ? store : undefined;
}

/**
 * Records `keys` in n8n's deduplication store of this node (the newest `maxEntries` kept) and answers the ones it had
 * already recorded. Nothing is answered where n8n offers no store or it keeps failing (three tries).
 */
export async function recordedBefore(
	ctx: IExecuteFunctions,
	keys: string[],
	maxEntries: number,
): Promise<Set<string>> {
	const store = deduplicationStore(ctx);
	const seen = new Set<string>();
	if (!keys.length || !store) return seen;
	for (let attempt = 1; attempt <= 3; attempt++) {
		try {
			const { processed } = await store.call(ctx.helpers, keys, 'node', {
				mode: 'entries',
				maxEntries,
			});
			for (const key of processed) seen.add(String(key));
			break;
		} catch {
			await sleep(50 * attempt);
		}
	}
	return seen;
}
