import type { DeduplicationHelperFunctions, IExecuteFunctions } from 'n8n-workflow';

/**
 * Seam with n8n: its deduplication store, where the AML Trigger records the key of every delivery it runs, and the
 * execution model the trigger's `execute` relies on.
 *
 * Relies on:
 * - `this.helpers.checkProcessedAndRecord(keys, 'node', { mode: 'entries', maxEntries })` in a node's `execute`
 *   (n8n-core's deduplication helpers, kept in n8n's database, shared by every n8n process): answers which keys it
 *   had already recorded, and records the others. Feature-detected: an n8n without it runs every delivery
 *   (deduplication then rests on the trigger's in-process map alone).
 * - That store as it is: it reads the trigger's record, changes it and writes it whole (no atomic claim). A key
 *   recorded before a copy asks is found, whichever process asks; copies that ask at the same moment may all be
 *   answered "new", and a write made at the same moment as another may drop the other's key. The trigger promises no
 *   more than that (README, SECURITY.md); exactly once at any timing is an atomic claim in an engine the user runs
 *   (the queue-mode example workflow claims the delivery's key in Redis).
 * - For a node type with both `webhook` and `execute`, n8n runs `execute` as the first step of the execution a
 *   delivery started, given the items `webhook` returned (in a worker, in queue mode), and the node's output is what
 *   `execute` returns.
 * - In n8n's regular mode the process that runs `webhook()` also runs the execution it starts (so the trigger's
 *   in-process map sees its own executions record their keys).
 * Measured on: n8n 2.41.1 and 1.123.81 (test/faults/dedup.test.ts, SQLite, regular mode; test/queue, PostgreSQL); the
 * store and the execute step on n8n 1.123.81, 2.0.3 and 2.41.1 (test/contract/deduplication.test.ts).
 * Breaks when n8n changes: without the store, a redelivery after an n8n restart (or one reaching another webhook
 * process in queue mode) runs the workflow again; if the store's signature changes, its call fails and the delivery
 * runs (a duplicate, never a lost event); if n8n stopped running `execute` for such a node, the trigger would output
 * the webhook's items unchecked (the contract test fails first).
 */

type Store = DeduplicationHelperFunctions['checkProcessedAndRecord'];

/** Whether this n8n offers its deduplication store to the node. */
export function deduplicationStore(ctx: IExecuteFunctions): Store | undefined {
	const store = (ctx.helpers as Partial<DeduplicationHelperFunctions>).checkProcessedAndRecord;
	return typeof store === 'function' ? store : undefined;
}

/**
 * Records `keys` in n8n's deduplication store of this node (the newest `maxEntries` kept) and answers the ones it had
 * already recorded. Nothing is answered where n8n offers no store or its call fails: the delivery then runs (a
 * duplicate is the smaller harm than an event lost after the service was answered).
 */
export async function recordedBefore(
	ctx: IExecuteFunctions,
	keys: string[],
	maxEntries: number,
): Promise<Set<string>> {
	const store = deduplicationStore(ctx);
	if (!keys.length || !store) return new Set();
	try {
		const answer = await store.call(ctx.helpers, keys, 'node', { mode: 'entries', maxEntries });
		return new Set(answer.processed.map(String));
	} catch {
		return new Set();
	}
}
