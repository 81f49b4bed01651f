import type { DeduplicationHelperFunctions, IExecuteFunctions } from 'n8n-workflow';

import { N8N_VERSION, n8nCoreContains, n8nDeduplicationHelpers, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/deduplication.ts against this n8n's deduplication store (its n8n-core's helper over its n8n's
 * DeduplicationHelper, the table in memory with a round trip per read and write): the trigger's execute context is
 * offered `checkProcessedAndRecord`; the seam records keys and answers the ones recorded before; and copies checked
 * at once all pass (no atomic claim): the reason the trigger keeps its in-process map (nodes/AmlTrigger/dedup.ts). If
 * an n8n makes the check atomic, the last test fails, and the map may go.
 */
const seam = withN8n(
	() =>
		require('../../nodes/shared/n8n/deduplication') as typeof import('../../nodes/shared/n8n/deduplication'),
);
let helpers: (workflow: object, node: object) => any;
/** The lock as the seam takes it: the workflow's record, mode latestIncrementalKey, the smallest safe integer. */
const LOCK_VALUE = String(Number.MIN_SAFE_INTEGER);
const LOCK = { mode: 'latestIncrementalKey' as const };

beforeAll(async () => {
	helpers = await n8nDeduplicationHelpers();
});

/** The trigger's execute context, as far as the seam reads it: n8n's deduplication helpers for one trigger node. */
function triggerContext(nodeId: string): IExecuteFunctions {
	return {
		helpers: helpers({ id: 'w1' }, { id: nodeId, name: 'AML Trigger' }),
	} as unknown as IExecuteFunctions;
}

describe(`n8n's deduplication store on n8n ${N8N_VERSION}`, () => {
	test("n8n-core offers it to a node's execute context", () => {
		expect(n8nCoreContains('getDeduplicationHelperFunctions')).toBe(true);
		expect(seam.deduplicationStore(triggerContext('n0'))).toBeInstanceOf(Function);
	});

	test('the seam records keys and answers the ones recorded before, per trigger node', async () => {
		const trigger = triggerContext('n1');
		expect([...(await seam.recordedBefore(trigger, ['k1', 'k2'], 10, 'w1'))]).toEqual([]);
		expect([...(await seam.recordedBefore(trigger, ['k2', 'k3'], 10, 'w1'))]).toEqual(['k2']);
		expect([...(await seam.recordedBefore(triggerContext('n2'), ['k2'], 10, 'w1'))]).toEqual([]);
	});

	test('the newest maxEntries keys are kept', async () => {
		const trigger = triggerContext('n3');
		for (const key of ['a', 'b', 'c', 'd']) await seam.recordedBefore(trigger, [key], 3, 'w1');
		expect([...(await seam.recordedBefore(trigger, ['a', 'd'], 3, 'w1'))]).toEqual(['d']);
	});

	test('an n8n without the store: nothing is answered, the delivery runs', async () => {
		expect([
			...(await seam.recordedBefore({ helpers: {} } as IExecuteFunctions, ['k'], 10, 'w1')),
		]).toEqual([]);
	});

	test('a store that keeps failing: nothing is answered after three tries each, the delivery runs at once', async () => {
		const failing = async () => {
			throw new Error('connection refused');
		};
		const ctx = {
			helpers: { checkProcessedAndRecord: failing, clearAllProcessedItems: failing },
		} as unknown as IExecuteFunctions;
		const started = Date.now();
		expect([...(await seam.recordedBefore(ctx, ['k'], 10, 'w-failing'))]).toEqual([]);
		expect(Date.now() - started).toBeLessThan(2000);
	});

	test("no atomic claim in n8n's store: 5 copies of a new key checked at once on a trigger with a record all pass", async () => {
		const store = triggerContext('n4').helpers;
		const check = async (key: string) =>
			(await store.checkProcessedAndRecord([key], 'node', { mode: 'entries', maxEntries: 10 }))
				.processed;
		await check('first');
		const answers = await Promise.all(Array.from({ length: 5 }, async () => await check('copy')));
		expect(answers).toEqual([[], [], [], [], []]);
		expect(await check('copy')).toEqual(['copy']);
	});

	test("the lock: a workflow's record is inserted by one of 5 executions asking at once, and deleted it can be taken again", async () => {
		const store = triggerContext('n5').helpers;
		const take = async () => {
			try {
				const answer = await store.checkProcessedAndRecord([LOCK_VALUE], 'workflow', LOCK);
				return answer.new.length ? 'taken' : 'held';
			} catch (error) {
				return `refused: ${String((error as Error).message).slice(0, 40)}`;
			}
		};
		const answers = await Promise.all(Array.from({ length: 5 }, take));
		expect(answers.filter((a) => a === 'taken')).toHaveLength(1);
		expect(await take()).toBe('held');
		await store.clearAllProcessedItems('workflow', LOCK);
		expect(await take()).toBe('taken');
		await store.clearAllProcessedItems('workflow', LOCK);
	});

	test('copies from 5 processes at once: with the lock one records the key, the other 4 find it', async () => {
		// one trigger's execution context; each lock name stands for another process (its own turn there)
		const trigger = triggerContext('n6');
		await seam.recordedBefore(trigger, ['first'], 10, 'w6-p0');
		const answers = await Promise.all(
			Array.from({ length: 5 }, async (_, p) => [
				...(await seam.recordedBefore(trigger, ['copy'], 10, `w6-p${p}`)),
			]),
		);
		expect(answers.map((a) => a.join()).sort()).toEqual(['', 'copy', 'copy', 'copy', 'copy']);
		// released: the workflow's record is gone
		expect(await trigger.helpers.getProcessedDataCount('workflow', { mode: 'entries' })).toBe(0);
	});

	test("another node's record for the workflow (Remove Duplicates, scope Workflow): checked without the lock, that record unchanged", async () => {
		const helpersOf: DeduplicationHelperFunctions = helpers(
			{ id: 'w7' },
			{ id: 'n7', name: 'AML Trigger' },
		);
		await helpersOf.checkProcessedAndRecord(['theirs'], 'workflow', { mode: 'entries' });
		const trigger = { helpers: helpersOf } as unknown as IExecuteFunctions;
		expect([...(await seam.recordedBefore(trigger, ['k', 'k2'], 10, 'w7'))]).toEqual([]);
		expect([...(await seam.recordedBefore(trigger, ['k'], 10, 'w7'))]).toEqual(['k']);
		const theirs = await helpersOf.checkProcessedAndRecord(['theirs'], 'workflow', {
			mode: 'entries',
		});
		expect(theirs.processed).toEqual(['theirs']);
		expect(await helpersOf.getProcessedDataCount('workflow', { mode: 'entries' })).toBe(1);
	});

	describe('waits measured on a fake clock', () => {
		beforeEach(() => jest.useFakeTimers());
		afterEach(() => jest.useRealTimers());
		/** `promise` once the fake clock has run far enough for its round trips. */
		const settled = async <T>(promise: Promise<T>): Promise<T> => {
			await jest.advanceTimersByTimeAsync(100);
			return await promise;
		};

		test(`a lock left behind (its process stopped) is removed after ${seam.LOCK_STALE_MS / 1000} s`, async () => {
			const helpersOf: DeduplicationHelperFunctions = helpers(
				{ id: 'w8' },
				{ id: 'n8', name: 'AML Trigger' },
			);
			const left = await settled(helpersOf.checkProcessedAndRecord([LOCK_VALUE], 'workflow', LOCK));
			expect(left.new).toEqual([LOCK_VALUE]);
			const trigger = { helpers: helpersOf } as unknown as IExecuteFunctions;
			let answer: Set<string> | undefined;
			void seam.recordedBefore(trigger, ['k'], 10, 'w8').then((a) => (answer = a));
			await jest.advanceTimersByTimeAsync(seam.LOCK_STALE_MS - 500);
			expect(answer).toBeUndefined();
			await jest.advanceTimersByTimeAsync(2000);
			expect(answer && [...answer]).toEqual([]);
			// taken and released: the workflow's record is gone
			expect(await settled(helpersOf.getProcessedDataCount('workflow', LOCK))).toBe(0);
			expect([...(await settled(seam.recordedBefore(trigger, ['k'], 10, 'w8')))]).toEqual(['k']);
		});

		test("another node's record of the lock's mode (a number kept there): its value kept, the check runs without the lock, at once the next time", async () => {
			const helpersOf: DeduplicationHelperFunctions = helpers(
				{ id: 'w9' },
				{ id: 'n9', name: 'AML Trigger' },
			);
			await settled(helpersOf.checkProcessedAndRecord(['42'], 'workflow', LOCK));
			const trigger = { helpers: helpersOf } as unknown as IExecuteFunctions;
			let answer: Set<string> | undefined;
			void seam.recordedBefore(trigger, ['k'], 10, 'w9').then((a) => (answer = a));
			await jest.advanceTimersByTimeAsync(seam.LOCK_STALE_MS + 2000);
			expect(answer && [...answer]).toEqual([]);
			expect([...(await settled(seam.recordedBefore(trigger, ['k'], 10, 'w9')))]).toEqual(['k']);
			expect(
				await settled(helpersOf.checkProcessedAndRecord(['42', '43'], 'workflow', LOCK)),
			).toEqual({ new: ['43'], processed: ['42'] });
		});
	});
});
