import type { IExecuteFunctions } from 'n8n-workflow';

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
		expect([...(await seam.recordedBefore(trigger, ['k1', 'k2'], 10))]).toEqual([]);
		expect([...(await seam.recordedBefore(trigger, ['k2', 'k3'], 10))]).toEqual(['k2']);
		expect([...(await seam.recordedBefore(triggerContext('n2'), ['k2'], 10))]).toEqual([]);
	});

	test('the newest maxEntries keys are kept', async () => {
		const trigger = triggerContext('n3');
		for (const key of ['a', 'b', 'c', 'd']) await seam.recordedBefore(trigger, [key], 3);
		expect([...(await seam.recordedBefore(trigger, ['a', 'd'], 3))]).toEqual(['d']);
	});

	test('an n8n without the store: nothing is answered, the delivery runs', async () => {
		expect([
			...(await seam.recordedBefore({ helpers: {} } as IExecuteFunctions, ['k'], 10)),
		]).toEqual([]);
	});

	test('no atomic claim: 5 copies of a new key checked at once on a trigger with a record all pass', async () => {
		const trigger = triggerContext('n4');
		await seam.recordedBefore(trigger, ['first'], 10);
		const answers = await Promise.all(
			Array.from({ length: 5 }, async () => [
				...(await seam.recordedBefore(trigger, ['copy'], 10)),
			]),
		);
		expect(answers).toEqual([[], [], [], [], []]);
		expect([...(await seam.recordedBefore(trigger, ['copy'], 10))]).toEqual(['copy']);
	});

	test("the trigger's first record inserted by copies at once: the unique key fails one; asked again, it reads the key as recorded", async () => {
		const trigger = triggerContext('n5');
		const answers = await Promise.all(
			Array.from({ length: 2 }, async () => [...(await seam.recordedBefore(trigger, ['k'], 10))]),
		);
		// one inserted it (new), the other's insert failed on the unique key and, asked again, found it (recorded)
		expect(answers.map((a) => a.join()).sort()).toEqual(['', 'k']);
	});
});
