import { parse } from 'csv-parse/sync';

import type { Json, RunResult } from '../harness/client';
import { recordField } from '../../nodes/Aml/methods/usableFields';
import { control, customListSyncFromInput, runAml } from '../harness/context';

/**
 * Custom List → Sync (issue 8) in real n8n against the sandbox: a CSV-like source of 1,000 records over
 * a list pre-filled through the API; only the difference is written; safety stops; figures for the
 * benchmark table are printed (set AML_BENCH_10K=1 to add the 10,000-record run).
 */

type Stored = { id: string; attributes: Json; archived: boolean };

async function newList(name: string): Promise<string> {
	return (await control.post<{ id: string }>('/custom-lists', { name })).id;
}

async function active(listId: string): Promise<Map<string, Json>> {
	const records = await control.get<Stored[]>(`/custom-lists/${listId}/records`);
	return new Map(records.filter((r) => !r.archived).map((r) => [r.id, r.attributes]));
}

async function listRequests(since: number, listId: string) {
	return (await control.requestsSince(since)).filter((r) => r.path.includes(listId));
}

function countBy(requests: Array<{ method: string }>): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const r of requests) counts[r.method] = (counts[r.method] ?? 0) + 1;
	return counts;
}

/** Rows as a CSV export would give them: text columns, parsed by a CSV parser. */
function csvItems(rows: Array<{ id: string; name: string; country: string }>): Json[] {
	const text = [
		'id,country,name',
		...rows.map((r) => `${r.id},${r.country},"${r.name.replace(/"/g, '""')}"`),
	].join('\n');
	return parse(text, { columns: true, skip_empty_lines: true }) as Json[];
}

const id = (i: number) => `rec-${String(i).padStart(5, '0')}`;

async function prefill(listId: string, count: number): Promise<void> {
	const items = Array.from({ length: count }, (_, i) => ({
		id: id(i),
		name: `Person ${i}`,
		country: 'DE',
	}));
	const run = await runAml(
		{
			resource: 'customList',
			operation: 'create',
			customListId: listId,
			recordId: '={{ $json.id }}',
			attributesMode: 'input',
			excludeInputFields: 'id',
			options: { parallelRequests: 16 },
		},
		items,
	);
	expect(run.status).toBe('success');
	expect((await active(listId)).size).toBe(count);
}

/** 80% kept (of them an eighth changed), 20% dropped, 20% new. */
function sourceFor(count: number) {
	const rows: Array<{ id: string; name: string; country: string }> = [];
	const changed = count / 10;
	const kept = (count * 8) / 10;
	for (let i = 0; i < kept; i++)
		rows.push({
			id: id(i),
			country: 'DE',
			name: i < changed ? `Person ${i} (changed)` : `Person ${i}`,
		});
	for (let i = count; i < count + count / 5; i++)
		rows.push({ id: id(i), country: 'AT', name: `New "${i}"` });
	return {
		rows,
		created: count / 5,
		updated: changed,
		archived: count - kept,
		unchanged: kept - changed,
	};
}

const syncParams = (listId: string, options: Json = {}) =>
	customListSyncFromInput(listId, { parallelRequests: 8, ...options });

function nodeRun(run: RunResult): Json {
	return run.execution.data.resultData.runData.AML[0];
}

const figures: string[] = [];

async function fullSync(count: number, label: string) {
	const listId = await newList(`sync ${label} ${Date.now()}`);
	await prefill(listId, count);
	const source = sourceFor(count);
	const items = csvItems(source.rows);

	const mark = await control.mark();
	const started = Date.now();
	const run = await runAml(syncParams(listId, { output: 'changes' }), items);
	const wall = Date.now() - started;
	expect(run.error).toBeUndefined();
	expect(run.status).toBe('success');
	const [summary, ...changes] = run.outputs[0];
	expect(summary).toMatchObject({
		customListId: listId,
		dryRun: false,
		created: source.created,
		updated: source.updated,
		archived: source.archived,
		unchanged: source.unchanged,
		failed: 0,
		failures: [],
	});
	expect(summary.createdIds).toHaveLength(source.created);
	expect(changes).toHaveLength(source.created + source.updated + source.archived);
	expect(changes.every((c) => c.status === 'done')).toBe(true);

	// The stored, non-archived list equals the source.
	const after = await active(listId);
	expect(after.size).toBe(source.rows.length);
	for (const row of source.rows)
		expect(after.get(row.id)).toEqual({ country: row.country, name: row.name });

	const requests = await listRequests(mark, listId);
	const counts = countBy(requests);
	const pages = Math.ceil(count / 50);
	expect(counts).toEqual({
		GET: pages,
		POST: source.created,
		PUT: source.updated,
		DELETE: source.archived,
	});
	figures.push(
		`${label}: first sync ${count} listed / ${items.length} input → ${JSON.stringify(counts)} (${requests.length} requests), node ${nodeRun(run).executionTime} ms, workflow round trip ${wall} ms`,
	);
	return { listId, items, run };
}

describe('Custom List → Sync in real n8n', () => {
	let listId: string;
	let items: Json[];

	afterAll(() => {
		console.log(`[bench] custom list sync\n  ${figures.join('\n  ')}`);
	});

	test('1,000-record CSV source over a pre-filled list: only the difference is written, list equals the source', async () => {
		const result = await fullSync(1000, '1k');
		listId = result.listId;
		items = result.items;
		// Pairing: summary pairs with every input item, a change item with its source item.
		const out = nodeRun(result.run).data.main[0];
		expect(out[0].pairedItem).toHaveLength(items.length);
		const created = out.find((o: Json) => o.json.change === 'create');
		expect(items[created.pairedItem.item].id).toBe(created.json.id);
	});

	test('second run with the same source writes nothing (only the page reads)', async () => {
		const mark = await control.mark();
		const started = Date.now();
		const run = await runAml(syncParams(listId), items);
		const wall = Date.now() - started;
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toHaveLength(1);
		expect(run.outputs[0][0]).toMatchObject({
			created: 0,
			updated: 0,
			archived: 0,
			unchanged: 1000,
			failed: 0,
		});
		const requests = await listRequests(mark, listId);
		expect(requests.every((r) => r.method === 'GET')).toBe(true);
		expect(requests).toHaveLength(20);
		figures.push(
			`1k: repeat sync (no change) → ${requests.length} GET, 0 writes, node ${nodeRun(run).executionTime} ms, round trip ${wall} ms`,
		);
	});

	test('guard: an empty source (n8n empty item) stops before any write and archives nothing', async () => {
		const before = await active(listId);
		const mark = await control.mark();
		const run = await runAml(syncParams(listId), [{}]);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			/Sync stopped: it would archive 1000 of the 1000 records in the list \(100%\), more than the allowed 50%/,
		);
		expect(String(run.error?.description)).toMatch(/Max Share to Archive/);
		const requests = await listRequests(mark, listId);
		expect(requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
		expect(await active(listId)).toEqual(before);
	});

	test('guard: an incomplete source (30% of the list) is refused; dry run reports it would be refused', async () => {
		const partial = items.slice(0, 300);
		const mark = await control.mark();
		const run = await runAml(syncParams(listId), partial);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/archive 700 of the 1000 records in the list \(70%\)/);
		const dry = await runAml(syncParams(listId, { dryRun: true }), partial);
		expect(dry.status).toBe('success');
		expect(dry.outputs[0][0]).toMatchObject({ dryRun: true, archived: 700, wouldBeRefused: true });
		expect((await listRequests(mark, listId)).filter((r) => r.method !== 'GET')).toHaveLength(0);
	});

	test('dry run reports the plan and changes nothing', async () => {
		const changedItems = items
			.map((item, i) => (i < 5 ? { ...item, name: `${item.name} v2` } : item))
			.slice(0, 990);
		changedItems.push({ id: 'rec-new-1', country: 'FR', name: 'Dry' });
		const before = await active(listId);
		const mark = await control.mark();
		const run = await runAml(syncParams(listId, { dryRun: true, output: 'changes' }), changedItems);
		expect(run.status).toBe('success');
		const [summary, ...changes] = run.outputs[0];
		expect(summary).toMatchObject({
			dryRun: true,
			created: 1,
			updated: 5,
			archived: 10,
			unchanged: 985,
			createdIds: ['rec-new-1'],
		});
		expect(changes).toHaveLength(16);
		expect(changes.every((c) => c.status === 'planned')).toBe(true);
		expect((await listRequests(mark, listId)).filter((r) => r.method !== 'GET')).toHaveLength(0);
		expect(await active(listId)).toEqual(before);
	});

	test('duplicate ids are an error naming both items; nothing is sent', async () => {
		const mark = await control.mark();
		const run = await runAml(syncParams(listId), [
			{ id: 'dup-a', name: 'A' },
			{ id: 'dup-b', name: 'B' },
			{ id: 'dup-a', name: 'A again' },
		]);
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('Items 0 and 2 both have the record ID "dup-a"');
		expect(await listRequests(mark, listId)).toHaveLength(0);
	});

	test('an invalid item stops the sync before any request', async () => {
		const mark = await control.mark();
		const run = await runAml(syncParams(listId), [
			{ id: 'ok-1', name: 'A' },
			{ id: 'bad id', name: 'B' },
		]);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Item 1: "Record ID" may only contain/);
		expect(await listRequests(mark, listId)).toHaveLength(0);
	});

	test('invalid rows (an ID with a space, an ID twice): one error listing every row, never one error item per row; nothing is sent', async () => {
		const mark = await control.mark();
		const source = [
			{ id: 'ok-1', name: 'A' },
			{ id: 'bad id', name: 'B' },
			{ id: 'twice', name: 'C' },
			{ id: 'ok-2', name: 'D' },
			{ id: 'twice', name: 'C again' },
		];
		const run = await runAml(syncParams(listId), source, { continueErrorOutput: true });
		expect(run.status).toBe('success');
		expect(run.outputs[0] ?? []).toEqual([]);
		expect(run.outputs[1]).toHaveLength(1);
		expect(run.outputs[1][0].error).toBe(
			'3 input rows cannot be synced, so nothing was sent to the AML service',
		);
		const failed = await runAml(syncParams(listId), source);
		expect(failed.status).toBe('error');
		expect(String(failed.error?.description)).toMatch(
			/^Item 1: "Record ID" may only contain.*; Item 2: the record ID "twice" is also in item\(s\) 4; Item 4: the record ID "twice" is also in item\(s\) 2\./,
		);
		expect(await listRequests(mark, listId)).toHaveLength(0);
	});

	test('Invalid Rows → Sync the Valid Rows: the valid rows are created and updated, the invalid ones reported by row, nothing archived', async () => {
		const small = await newList(`sync invalid rows ${Date.now()}`);
		const first = await runAml(syncParams(small), [
			{ id: 'v-1', name: 'One' },
			{ id: 'v-2', name: 'Two' },
			{ id: 'v-3', name: 'Three' },
		]);
		expect(first.outputs[0][0]).toMatchObject({ created: 3 });
		const run = await runAml(syncParams(small, { invalidRows: 'skip' }), [
			{ id: 'v-1', name: 'One v2' },
			{ id: 'new 4', name: 'Four' },
			{ id: 'v-5', name: 'Five' },
			{ id: 'v-2', name: 'Two' },
			{ id: 'v-2', name: 'Two again' },
		]);
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toHaveLength(1);
		const [summary] = run.outputs[0];
		expect(summary).toMatchObject({
			created: 1,
			updated: 1,
			archived: 0,
			failed: 0,
			invalid: 3,
			createdIds: ['v-5'],
			updatedIds: ['v-1'],
		});
		expect(summary.invalidRows).toEqual([
			{ itemIndex: 1, id: 'new 4', error: expect.stringMatching(/^Item 1: "Record ID"/) },
			{ itemIndex: 3, id: 'v-2', error: expect.stringMatching(/also in item\(s\) 4/) },
			{ itemIndex: 4, id: 'v-2', error: expect.stringMatching(/also in item\(s\) 3/) },
		]);
		expect(summary.archiveSkipped).toMatch(/^Nothing was archived: 3 input row/);
		// v-2 (given twice) and v-3 (missing from the input) stay as they were: a run with invalid rows archives nothing
		expect(await active(small)).toEqual(
			new Map([
				['v-1', { name: 'One v2' }],
				['v-2', { name: 'Two' }],
				['v-3', { name: 'Three' }],
				['v-5', { name: 'Five' }],
			]),
		);
	});

	test('a failed write is reported, the rest is applied, and the node fails afterwards (or reports with continue on fail)', async () => {
		const small = await newList(`sync failures ${Date.now()}`);
		const seed = [
			{ id: 'f-1', name: 'One' },
			{ id: 'f-2', name: 'Two' },
			{ id: 'f-3', name: 'Three' },
		];
		const create = await runAml(
			{
				resource: 'customList',
				operation: 'create',
				customListId: small,
				recordId: '={{ $json.id }}',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			seed,
		);
		expect(create.status).toBe('success');
		await control.post('/faults', {
			rules: [
				{ method: 'PUT', path: `${small}/records/f-1$`, errorRate: 1, errorStatus: 400, times: 1 },
			],
		});
		const source = [
			{ id: 'f-1', name: 'One v2' },
			{ id: 'f-2', name: 'Two v2' },
			{ id: 'f-3', name: 'Three' },
			{ id: 'f-4', name: 'Four' },
		];
		const run = await runAml(syncParams(small), source);
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe(
			'Sync finished with 1 failed change(s): created 1, updated 1, archived 0, unchanged 1, failed 1',
		);
		expect(String(run.error?.description)).toMatch(/update "f-1"/);
		let stored = await active(small);
		expect(stored.get('f-2')).toEqual({ name: 'Two v2' });
		expect(stored.get('f-4')).toEqual({ name: 'Four' });
		expect(stored.get('f-1')).toEqual({ name: 'One' });

		await control.post('/faults', {
			rules: [
				{ method: 'PUT', path: `${small}/records/f-1$`, errorRate: 1, errorStatus: 400, times: 1 },
			],
		});
		const tolerant = await runAml(syncParams(small, { output: 'changes' }), source, {
			continueOnFail: true,
		});
		expect(tolerant.status).toBe('success');
		const [summary, ...changes] = tolerant.outputs[0];
		expect(summary).toMatchObject({ updated: 0, failed: 1, unchanged: 3 });
		expect(summary.failures[0]).toMatchObject({ id: 'f-1', operation: 'update' });
		expect(changes).toEqual([
			expect.objectContaining({ id: 'f-1', change: 'update', status: 'failed' }),
		]);
		await control.del('/faults');
		const last = await runAml(syncParams(small), source);
		expect(last.outputs[0][0]).toMatchObject({ updated: 1, failed: 0, unchanged: 3 });
		stored = await active(small);
		expect(stored.get('f-1')).toEqual({ name: 'One v2' });
	});

	test('answers lost after the write: a create whose repeat finds the record counts as updated, an archive as already archived, never as created or archived', async () => {
		const listId = await newList('sync lost answers');
		await prefill(listId, 3);
		// rec-00003 is new (its create is stored, then its answer dropped), rec-00002 is missing (its archive likewise)
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `/custom-lists/${listId}/records$`,
					dropRate: 1,
					when: 'after',
					times: 1,
				},
				{
					method: 'DELETE',
					path: `/custom-lists/${listId}/records/rec-00002$`,
					dropRate: 1,
					when: 'after',
					times: 1,
				},
			],
		});
		try {
			const run = await runAml(customListSyncFromInput(listId, { maxArchivePercent: 100 }), [
				{ id: id(0), name: 'Person 0', country: 'DE' },
				{ id: id(1), name: 'Person 1', country: 'DE' },
				{ id: id(3), name: 'Person 3', country: 'DE' },
			]);
			expect(run.status).toBe('success');
			expect(run.outputs[0][0]).toMatchObject({
				created: 0,
				updated: 1,
				archived: 0,
				alreadyArchived: 1,
				failed: 0,
				updatedIds: [id(3)],
				alreadyArchivedIds: [id(2)],
			});
		} finally {
			await control.del('/faults');
		}
		// the service holds what the source says
		expect([...(await active(listId)).keys()].sort()).toEqual([id(0), id(1), id(3)]);
	});

	test('an archived id back in the source is created again; "Leave Unchanged" never archives', async () => {
		const small = await newList(`sync archived ${Date.now()}`);
		await runAml(
			{
				resource: 'customList',
				operation: 'create',
				customListId: small,
				recordId: '={{ $json.id }}',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			[
				{ id: 'a-1', name: 'One' },
				{ id: 'a-2', name: 'Two' },
				{ id: 'a-3', name: 'Three' },
			],
		);
		await runAml({
			resource: 'customList',
			operation: 'archive',
			customListId: small,
			recordId: 'a-1',
		});
		const run = await runAml({ ...syncParams(small), onMissing: 'leave' }, [
			{ id: 'a-1', name: 'One again' },
		]);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ created: 1, archived: 0, createdIds: ['a-1'] });
		const stored = await active(small);
		expect([...stored.keys()].sort()).toEqual(['a-1', 'a-2', 'a-3']);
		expect(stored.get('a-1')).toEqual({ name: 'One again' });
	});

	(process.env.AML_BENCH_10K === '1' ? test : test.skip)(
		'benchmark: 10,000 records',
		async () => {
			const { listId: bigList, items: bigItems } = await fullSync(10_000, '10k');
			const mark = await control.mark();
			const started = Date.now();
			const again = await runAml(syncParams(bigList), bigItems);
			const wall = Date.now() - started;
			expect(again.outputs[0][0]).toMatchObject({
				created: 0,
				updated: 0,
				archived: 0,
				unchanged: 10_000,
			});
			const requests = await listRequests(mark, bigList);
			expect(requests.every((r) => r.method === 'GET')).toBe(true);
			figures.push(
				`10k: repeat sync (no change) → ${requests.length} GET, 0 writes, node ${nodeRun(again).executionTime} ms, round trip ${wall} ms`,
			);
		},
		600_000,
	);

	test('Sync gets the per-item parameter validation every operation gets: a choice set by an expression to an unknown value fails naming item and field, before any request', async () => {
		const listId = await newList(`sync checks ${Date.now()}`);
		await prefill(listId, 5);
		const since = await control.mark();
		// item 1 asks for an unknown way of handling missing records: before, anything but "archive" meant "leave unchanged"
		const run = await runAml({ ...syncParams(listId), onMissing: '={{ $json.mode }}' }, [
			{ id: 'r-1', name: 'One', mode: 'archive' },
			{ id: 'r-2', name: 'Two', mode: 'delete-everything' },
		]);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			/Item 1: "Records Missing From Input" must be one of archive, leave/,
		);
		expect(await listRequests(since, listId)).toHaveLength(0);
		expect((await active(listId)).size).toBe(5);
	});

	test('a nightly source as databases and Google Sheets give it (null and empty cells, row_number): with Empty Cells → Remove the list ends equal to the source in Use Input Item Fields and in Map Automatically; a second run writes nothing', async () => {
		const fields = ['name', 'country', 'note'];
		for (const mode of ['input', 'mapper'] as const) {
			const { id: list } = await control.post<{ id: string }>('/custom-lists', {
				name: `sync real data ${mode} ${Date.now()}`,
				fields: [
					{ id: '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', name: 'name' },
					{ id: '7b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e', name: 'country' },
					{ id: '8c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f', name: 'note' },
				],
			});
			await prefill(list, 4);
			// Google Sheets adds row_number to every row; a database export gives NULL for an empty column
			const rows: Json[] = [
				{ row_number: 2, id: id(0), name: 'Person 0', country: 'DE', note: null },
				{ row_number: 3, id: id(1), name: 'Person 1', country: null, note: '' },
				{ row_number: 4, id: id(2), name: 'Person 2', country: 'AT', note: 'watch' },
				{ row_number: 5, id: 'gs-new', name: 'New Row', country: '', note: null },
			];
			const parameters: Json =
				mode === 'input'
					? {
							resource: 'customList',
							operation: 'sync',
							customListId: list,
							recordId: '={{ $json.id }}',
							attributesMode: 'input',
							onMissing: 'archive',
							options: { maxArchivePercent: 100, emptyValues: 'remove' },
						}
					: {
							resource: 'customList',
							operation: 'sync',
							customListId: list,
							recordId: '={{ $json.id }}',
							attributesMode: 'mapper',
							listFields: {
								mappingMode: 'autoMapInputData',
								value: null,
								matchingColumns: [],
								schema: fields.map(recordField),
							},
							onMissing: 'archive',
							options: { maxArchivePercent: 100, emptyValues: 'remove' },
						};
			const mark = await control.mark();
			const run = await runAml(parameters, rows);
			expect(run.error).toBeUndefined();
			expect(run.status).toBe('success');
			expect(run.outputs[0][0]).toMatchObject({
				created: 1,
				updated: 2,
				archived: 1,
				unchanged: 1,
				failed: 0,
			});
			// what the source says, no more: no row_number, no empty or null attribute
			const wanted = new Map(
				rows.map((row) => [
					String(row.id),
					Object.fromEntries(
						fields.filter((f) => row[f] !== null && row[f] !== '').map((f) => [f, String(row[f])]),
					),
				]),
			);
			expect(await active(list)).toEqual(wanted);
			const writes = (await listRequests(mark, list)).filter((r) => r.method !== 'GET');
			expect(countBy(writes)).toEqual({ POST: 1, PUT: 2, DELETE: 1 });

			const again = await control.mark();
			const second = await runAml(parameters, rows);
			expect(second.outputs[0][0]).toMatchObject({ created: 0, updated: 0, unchanged: 4 });
			expect((await listRequests(again, list)).filter((r) => r.method !== 'GET')).toHaveLength(0);
		}
	});

	test('an empty cell never takes a screened value off a record unless Empty Cells → Remove is chosen, and then the run reports it; an export that lost a column stops before any change', async () => {
		const listId = await newList(`sync empty cells ${Date.now()}`);
		const seed = await runAml(syncParams(listId), [
			{ id: 'acc-1', name: 'Holder One', bank_account_numbers: '["DE44500105175407324931"]' },
			{
				id: 'acc-2',
				name: 'Holder Two',
				bank_account_numbers: '["DE02120300000000202051","DE02500105170137075030"]',
			},
			{ id: 'acc-3', name: 'Holder Three', bank_account_numbers: '' },
		]);
		expect(seed.status).toBe('success');
		const before = await active(listId);
		// the export leaves acc-1's account cell empty and drops one of acc-2's two accounts
		const rows = [
			{ id: 'acc-1', name: 'Holder One', bank_account_numbers: '' },
			{ id: 'acc-2', name: 'Holder Two', bank_account_numbers: '["DE02120300000000202051"]' },
			{ id: 'acc-3', name: 'Holder Three', bank_account_numbers: '' },
		];
		const kept = await runAml(syncParams(listId), rows);
		expect(kept.status).toBe('success');
		// default: acc-1 keeps its account; acc-2 loses one entry of its list, which the summary names
		expect(kept.outputs[0][0]).toMatchObject({
			updated: 1,
			unchanged: 2,
			valuesRemoved: 1,
			valuesRemovedIds: ['acc-2'],
		});
		expect((await active(listId)).get('acc-1')).toEqual(before.get('acc-1'));
		expect((await active(listId)).get('acc-2')).toEqual({
			name: 'Holder Two',
			bank_account_numbers: ['DE02120300000000202051'],
		});

		const removed = await runAml(
			syncParams(listId, { emptyValues: 'remove', output: 'changes' }),
			rows,
		);
		expect(removed.status).toBe('success');
		expect(removed.outputs[0][0]).toMatchObject({
			updated: 1,
			valuesRemoved: 1,
			valuesRemovedIds: ['acc-1'],
			removals: [{ id: 'acc-1', fields: ['bank_account_numbers'] }],
		});
		expect((await active(listId)).get('acc-1')).toEqual({ name: 'Holder One' });

		// an export without the column: nothing is changed, the error names the field
		const mark = await control.mark();
		const lost = await runAml(syncParams(listId, { maxArchivePercent: 100 }), [
			{ id: 'acc-1', name: 'Holder One' },
			{ id: 'acc-2', name: 'Holder Two' },
			{ id: 'acc-3', name: 'Holder Three' },
		]);
		expect(lost.error?.message).toMatch(
			/^Sync stopped: no input row gives a value for "bank_account_numbers" \(held by 1 record\(s\)\)/,
		);
		expect((await listRequests(mark, listId)).filter((r) => r.method !== 'GET')).toHaveLength(0);
		const allowed = await runAml(syncParams(listId, { allowMissingFields: true }), [
			{ id: 'acc-1', name: 'Holder One' },
			{ id: 'acc-2', name: 'Holder Two' },
			{ id: 'acc-3', name: 'Holder Three' },
		]);
		expect(allowed.outputs[0][0]).toMatchObject({ updated: 0, unchanged: 3, valuesRemoved: 0 });
	});

	test("Map List Fields with Map Automatically: each item's fields named like the list's fields are its record; other columns are not stored", async () => {
		const { id: mappedList } = await control.post<{ id: string }>('/custom-lists', {
			name: `sync mapped ${Date.now()}`,
			fields: [
				{ id: '4e4f5061-7283-4d94-8ea5-f60718293a4b', name: 'name' },
				{ id: '5f506172-8394-4ea5-9fb6-0718293a4b5c', name: 'country' },
			],
		});
		await prefill(mappedList, 5);
		// what the editor stores after loading the list's fields (getRecordFields)
		const schema = ['name', 'country'].map(recordField);
		const rows = [
			{ id: id(0), name: 'Person 0', country: 'DE', segment: 'retail' },
			{ id: id(1), name: 'Person 1 (changed)', country: 'DE', segment: 'retail' },
			{ id: id(2), name: 'Person 2', country: 'AT', segment: 'sme' },
			{ id: 'new-1', name: 'Brand New', country: 'CY', segment: 'sme' },
		];
		const run = await runAml(
			{
				resource: 'customList',
				operation: 'sync',
				customListId: mappedList,
				recordId: '={{ $json.id }}',
				attributesMode: 'mapper',
				listFields: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema },
				onMissing: 'archive',
				options: { maxArchivePercent: 100 },
			},
			rows,
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ created: 1, updated: 2, archived: 2, unchanged: 1 });
		const after = await active(mappedList);
		expect([...after.keys()].sort()).toEqual([id(0), id(1), id(2), 'new-1'].sort());
		for (const row of rows)
			expect(after.get(row.id)).toEqual({ name: row.name, country: row.country });
	});
});
