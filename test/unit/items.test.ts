import type { IExecuteFunctions } from 'n8n-workflow';

import { prepareEveryItem, runItems } from '../../nodes/Aml/helpers/items';

/**
 * Detail of the per-item engine: the router's `validate` runs on every item before its `prepare` and before any
 * send; the first item is sent alone (one token fetch), the rest at most Parallel Requests at a time; without
 * Continue On Fail nothing new starts after a failure.
 */
const ctx = (options: { parallel?: number; continueOnFail?: boolean } = {}) =>
	({
		getNode: () => ({
			id: 'n1',
			name: 'AML',
			type: 'n8n-nodes-aml.aml',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		}),
		getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
			name === 'options.parallelRequests' ? (options.parallel ?? fallback) : fallback,
		continueOnFail: () => options.continueOnFail ?? false,
	}) as unknown as IExecuteFunctions;

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { i } }));
const tick = async () => await new Promise((resolve) => setImmediate(resolve));

describe('runItems', () => {
	test('validates and prepares every item before the first send; outputs keep order and pairing', async () => {
		const log: string[] = [];
		const outputs = await runItems(
			ctx({ parallel: 3 }),
			items(4),
			(i) => log.push(`validate ${i}`),
			{
				prepare: (i) => {
					log.push(`prepare ${i}`);
					return i * 10;
				},
				send: async (value, i) => {
					log.push(`send ${i}`);
					await tick();
					return { value };
				},
			},
		);
		expect(log.slice(0, 8)).toEqual([
			'validate 0',
			'prepare 0',
			'validate 1',
			'prepare 1',
			'validate 2',
			'prepare 2',
			'validate 3',
			'prepare 3',
		]);
		expect(outputs).toEqual([
			[0, 1, 2, 3].map((i) => ({ json: { value: i * 10 }, pairedItem: { item: i } })),
		]);
	});

	test('a validation error fails the run naming the item, before any send', async () => {
		const sent: number[] = [];
		const run = runItems(
			ctx(),
			items(3),
			(i) => {
				if (i === 1) throw new Error('bad choice');
			},
			{ prepare: (i) => i, send: async (i) => (sent.push(i), {}) },
		);
		await expect(run).rejects.toMatchObject({ message: 'bad choice', context: { itemIndex: 1 } });
		expect(sent).toEqual([]);
	});

	test('the first item alone, then at most Parallel Requests at a time; no new start after a failure', async () => {
		let running = 0;
		let most = 0;
		const started: number[] = [];
		const run = runItems(ctx({ parallel: 2 }), items(8), () => undefined, {
			prepare: (i) => i,
			send: async (i) => {
				started.push(i);
				running++;
				most = Math.max(most, running);
				if (i === 0) expect(running).toBe(1);
				await tick();
				running--;
				if (i === 3) throw new Error('service down');
				return {};
			},
		});
		await expect(run).rejects.toThrow('service down');
		expect(most).toBe(2);
		// 0 alone; 1 and 2; 3 and 4 as 1 and 2 end; 3 fails while 4 runs: nothing after 4 starts
		expect(started).toEqual([0, 1, 2, 3, 4]);
	});

	test('items with the same key run one after another in input order; other keys still side by side', async () => {
		const log: string[] = [];
		const running = new Map<string, number>();
		let most = 0;
		let together = 0;
		const keys = ['a', 'x', 'x', 'y', 'x', 'z'];
		await runItems(ctx({ parallel: 4 }), items(keys.length), () => undefined, {
			prepare: (i) => keys[i],
			key: (key) => key,
			send: async (key, i) => {
				log.push(`start ${i}`);
				running.set(key, (running.get(key) ?? 0) + 1);
				most = Math.max(most, running.get(key) ?? 0);
				together = Math.max(
					together,
					[...running.values()].reduce((a, b) => a + b, 0),
				);
				await tick();
				await tick();
				running.set(key, (running.get(key) ?? 0) - 1);
				log.push(`end ${i}`);
				return {};
			},
		});
		expect(most).toBe(1);
		expect(together).toBeGreaterThan(1);
		// the three "x" items in input order, each after the one before it ended
		const order = log.filter((entry) => / (1|2|4)$/.test(entry));
		expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 4', 'end 4']);
	});

	test('an item waiting for its turn does not start after a failure (without Continue On Fail)', async () => {
		const started: number[] = [];
		const run = runItems(ctx({ parallel: 4 }), items(4), () => undefined, {
			prepare: (i) => (i === 0 ? 'first' : 'same'),
			key: (key) => key,
			send: async (_key, i) => {
				started.push(i);
				await tick();
				if (i === 1) throw new Error('refused');
				return {};
			},
		});
		await expect(run).rejects.toThrow('refused');
		expect(started).toEqual([0, 1]);
	});

	test('with Continue On Fail every item is sent and a failure becomes its error item', async () => {
		const outputs = await runItems(ctx({ continueOnFail: true }), items(3), () => undefined, {
			prepare: (i) => i,
			send: async (i) => {
				if (i === 1) throw new Error('refused');
				return { i };
			},
		});
		expect(outputs[0].map((item) => item.json)).toEqual([
			{ i: 0 },
			{ error: 'refused', itemIndex: 1 },
			{ i: 2 },
		]);
	});
});

describe('prepareEveryItem (Sync: plans over all items)', () => {
	test('validates, then prepares each item; the first bad one fails naming it', async () => {
		expect(
			await prepareEveryItem(
				ctx(),
				3,
				() => undefined,
				(i) => `r${i}`,
			),
		).toEqual(['r0', 'r1', 'r2']);
		const validated: number[] = [];
		const run = prepareEveryItem(
			ctx(),
			3,
			(i) => {
				validated.push(i);
				if (i === 2) throw new Error('bad');
			},
			(i) => i,
		);
		await expect(run).rejects.toMatchObject({ context: { itemIndex: 2 } });
		expect(validated).toEqual([0, 1, 2]);
	});
});
