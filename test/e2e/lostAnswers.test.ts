import { randomUUID } from 'node:crypto';

import { control, createPerson, customListSyncFromInput, runAml } from '../harness/context';

/**
 * What the node reports equals what the service did, also when an answer is lost: the sandbox applies the request
 * and then drops the connection (`when: 'after'`, once), so the node sees no answer for a request that was applied.
 */
const suffix = randomUUID().slice(0, 8);
const id = (name: string) => `la-${name}-${suffix}`;

type Logged = { seq: number; method: string; path: string; status: number | string };
async function requestsTo(mark: number, path: string): Promise<Logged[]> {
	return (await control.requestsSince(mark)).filter((r: Logged) => r.path === path);
}

/** Applies the next matching request, then drops its connection (its answer is lost). */
async function loseNextAnswer(method: string, path: string): Promise<void> {
	await control.post('/faults', {
		rules: [{ method, path, dropRate: 1, when: 'after', times: 1 }],
	});
}

afterEach(async () => {
	await control.del('/faults');
});

/** Stores a 25,000 transaction of `personId` (the sandbox's monitoring scenario triggers on it). */
async function storeLargeTransaction(
	personId: string,
	transactionId: string,
	timestamp: string,
): Promise<void> {
	const created = await runAml({
		resource: 'transaction',
		operation: 'create',
		personId,
		transactionId,
		attributesMode: 'json',
		attributesJson: JSON.stringify({
			amount: '25000.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp,
		}),
	});
	expect(created.status).toBe('success');
}

describe('lost answers in real n8n', () => {
	test('Person Create with Replace: the create is stored but its answer lost → the repeat gets 422 and the replace still follows; never reported as created', async () => {
		const personId = id('upsert');
		await loseNextAnswer('POST', '^/api/v2/persons$');
		const mark = await control.mark();
		const run = await createPerson(
			personId,
			{ first_name: 'Lost', last_name: 'Answer' },
			{ onExisting: 'replace' },
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({
			id: personId,
			result: 'replaced',
			afterLostAnswer: true,
		});
		const posts = await requestsTo(mark, '/api/v2/persons');
		expect(posts.map((r) => r.status)).toEqual([0, 422]); // 0: applied, then the connection dropped
		expect(
			(await requestsTo(mark, `/api/v2/persons/${personId}`)).map((r) => `${r.method} ${r.status}`),
		).toEqual(['PUT 200']);

		// the same with "error if it exists": not a failure, not a claim of "created"
		const second = id('plain');
		await loseNextAnswer('POST', '^/api/v2/persons$');
		const plain = await createPerson(second, { first_name: 'Lost' });
		expect(plain.status).toBe('success');
		expect(plain.outputs[0][0]).toMatchObject({
			id: second,
			result: 'exists',
			afterLostAnswer: true,
		});
		expect(await control.get<any>(`/persons/${second}`)).toMatchObject({ id: second });
	});

	test('Custom List Create or Update: a lost create answer still sends the update, so the record holds what was sent, and the item says the answer was lost (it may have been created by this run)', async () => {
		const { id: listId } = await control.post<{ id: string }>('/custom-lists', {
			name: `lost ${suffix}`,
			fields: [{ id: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' }],
		});
		await loseNextAnswer('POST', `^/api/v1/custom-lists/${listId}/records$`);
		const mark = await control.mark();
		const run = await runAml({
			resource: 'customList',
			operation: 'upsert',
			customListId: listId,
			recordId: 'r-1',
			attributesMode: 'json',
			attributesJson: '{"name":"Sent Name"}',
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({
			id: 'r-1',
			result: 'updated',
			afterLostAnswer: true,
		});
		expect(
			(await requestsTo(mark, `/api/v1/custom-lists/${listId}/records/r-1`)).map((r) => r.method),
		).toEqual(['PUT']);
		expect(
			(await control.get<any[]>(`/custom-lists/${listId}/records`)).map((r) => r.attributes),
		).toEqual([{ name: 'Sent Name' }]);
	});

	test('Create Manual Alert whose answer is lost: one request, one alert, and the error says it may have been applied and where to look', async () => {
		const before = (await control.get<any[]>('/manual-alerts')).length;
		await loseNextAnswer('POST', '^/api/v1/manual-alerts$');
		const mark = await control.mark();
		const run = await runAml({
			resource: 'alert',
			operation: 'createManualAlert',
			personId: 'cust-1001',
			rationale: 'OTHER',
			rationaleComment: `lost ${suffix}`,
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			/^No answer from the AML service \(connection dropped\)\. The request reached the service and may have been applied; it was not repeated/,
		);
		expect(run.error?.message).toMatch(/manual alerts of person cust-1001/);
		expect(run.error?.message).not.toMatch(/base URL|retried/);
		expect(await requestsTo(mark, '/api/v1/manual-alerts')).toHaveLength(1);
		expect((await control.get<any[]>('/manual-alerts')).length).toBe(before + 1);
	});

	test('Alert Update Status whose answer is lost is not sent twice (each change is a status entry, a note and a webhook event)', async () => {
		const personId = id('status');
		const transactionId = id('status-tx');
		expect((await createPerson(personId, { first_name: 'Status' })).status).toBe('success');
		await storeLargeTransaction(personId, transactionId, '2026-03-07T10:00:00Z');
		const checked = await runAml({
			resource: 'transaction',
			operation: 'runMonitoringCheck',
			transactionId,
			routeOutputs: false,
		});
		const alertId = checked.outputs[0][0].alertIds[0];
		expect(alertId).toBeGreaterThan(0);
		await loseNextAnswer('PUT', '^/api/v1/alerts/status$');
		const mark = await control.mark();
		const run = await runAml({
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MONITORING',
			alertId: String(alertId),
			status: 'CLOSED',
			note: `lost ${suffix}`,
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/may have been applied/);
		expect(await requestsTo(mark, '/api/v1/alerts/status')).toHaveLength(1);
		const stored = (await control.get<any[]>('/alerts')).find((a) => a.id === alertId);
		expect(stored.notes.filter((n: any) => n.content === `lost ${suffix}`)).toHaveLength(1);
	});

	test('Run Monitoring Check whose answer is lost: not repeated (a repeat would not report the alert it raised), Block "check outcome unknown" with mayHaveApplied', async () => {
		const personId = id('check');
		const transactionId = id('check-tx');
		expect((await createPerson(personId, { first_name: 'Check' })).status).toBe('success');
		await storeLargeTransaction(personId, transactionId, '2026-03-08T10:00:00Z');
		const path = `/api/v1/transactions/${transactionId}/monitoring-checks`;
		await loseNextAnswer('POST', `^${path}$`);
		const mark = await control.mark();
		const run = await runAml({
			resource: 'transaction',
			operation: 'runMonitoringCheck',
			transactionId,
		});
		expect(run.status).toBe('success');
		// Block is output 0, Clear output 1
		expect(run.outputs[1]).toEqual([]);
		expect(run.outputs[0]).toEqual([
			expect.objectContaining({
				transactionId,
				decision: 'block',
				mayHaveApplied: true,
				results: [],
				alertIds: [],
				reason: expect.stringMatching(
					/^check outcome unknown: No answer from the AML service \(connection dropped\)\. The request reached the service and may have been applied/,
				),
			}),
		]);
		expect((await requestsTo(mark, path)).map((r) => r.status)).toEqual([0]);
		// the lost check ran and raised its alert, once
		expect(
			(await control.get<any[]>('/alerts')).filter((a) => a.transactionId === transactionId),
		).toHaveLength(1);
	});

	test("Gate whose store answer is lost: the repeat finds it stored (422), reads it back (same data, this run's own claim), then checks; never reported as created", async () => {
		const personId = id('gate');
		const transactionId = id('gate-tx');
		expect((await createPerson(personId, { first_name: 'Gate' })).status).toBe('success');
		await loseNextAnswer('POST', `^/api/v1/persons/${personId}/transactions$`);
		const mark = await control.mark();
		const run = await runAml({
			resource: 'transaction',
			operation: 'gate',
			personId,
			transactionId,
			attributesMode: 'json',
			attributesJson: JSON.stringify({
				amount: '40.00',
				type: 'payment',
				direction: 'O',
				timestamp: '2026-03-08T11:00:00Z',
			}),
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toEqual([]);
		expect(run.outputs[1]).toEqual([
			expect.objectContaining({
				transactionId,
				decision: 'clear',
				steps: expect.objectContaining({
					store: 'exists',
					monitoring: 'clear',
					screening: 'clear',
				}),
			}),
		]);
		expect(
			(await requestsTo(mark, `/api/v1/persons/${personId}/transactions`)).map((r) => r.status),
		).toEqual([0, 422]);
		expect(
			(await control.requestsSince(mark))
				// the clear is written to the transaction just after the answer
				.filter((r: Logged) => r.path.includes(transactionId) && r.method !== 'PATCH')
				.map((r: Logged) => `${r.method} ${r.path.replace(transactionId, 'T')}`)
				.sort(),
		).toEqual(
			[
				`GET /api/v1/persons/${personId}/transactions/T`,
				'POST /api/v1/transactions/T/monitoring-checks',
				'POST /api/v1/transactions/T/screening-checks',
				// the open-alerts lookup after the checks, before any clear
				'GET /api/v1/transactions/T/unresolved-alerts',
			].sort(),
		);
	});

	test('Sync whose create and archive answers are lost: the create found on its repeat counts as updated (never created), the archive found done as already archived (never archived)', async () => {
		const { id: listId } = await control.post<{ id: string }>('/custom-lists', {
			name: `sync lost ${suffix}`,
			fields: [{ id: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' }],
		});
		for (const [recordId, name] of [
			['keep', 'Keep'],
			['gone', 'Gone'],
		]) {
			const created = await runAml({
				resource: 'customList',
				operation: 'create',
				customListId: listId,
				recordId,
				attributesMode: 'json',
				attributesJson: JSON.stringify({ name }),
			});
			expect(created.status).toBe('success');
		}
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/custom-lists/${listId}/records$`,
					dropRate: 1,
					when: 'after',
					times: 1,
				},
				{
					method: 'DELETE',
					path: `^/api/v1/custom-lists/${listId}/records/gone$`,
					dropRate: 1,
					when: 'after',
					times: 1,
				},
			],
		});
		const run = await runAml(
			customListSyncFromInput(listId, { maxArchivePercent: 100, output: 'changes' }),
			[
				{ id: 'keep', name: 'Keep' },
				{ id: 'new', name: 'New' },
			],
		);
		expect(run.status).toBe('success');
		const [summary, ...changes] = run.outputs[0];
		expect(summary).toMatchObject({
			created: 0,
			updated: 1,
			updatedIds: ['new'],
			archived: 0,
			alreadyArchived: 1,
			alreadyArchivedIds: ['gone'],
			unchanged: 1,
			failed: 0,
		});
		expect(changes).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ id: 'new', change: 'update', status: 'done' }),
				expect.objectContaining({ id: 'gone', change: 'archive', status: 'skipped' }),
			]),
		);
		const records = await control.get<any[]>(`/custom-lists/${listId}/records`);
		expect(records.find((r) => r.id === 'new')?.attributes).toEqual({ name: 'New' });
		expect(records.find((r) => r.id === 'gone')?.archived).toBe(true);
	});

	test('Archive Record and Person Delete whose answers are lost: the repeat finds it done (409 / 404) and the item succeeds', async () => {
		const { id: listId } = await control.post<{ id: string }>('/custom-lists', {
			name: `archive ${suffix}`,
			fields: [{ id: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' }],
		});
		expect(
			(
				await runAml({
					resource: 'customList',
					operation: 'create',
					customListId: listId,
					recordId: 'r-9',
					attributesMode: 'json',
					attributesJson: '{"name":"Gone"}',
				})
			).status,
		).toBe('success');
		await loseNextAnswer('DELETE', `^/api/v1/custom-lists/${listId}/records/r-9$`);
		const archived = await runAml({
			resource: 'customList',
			operation: 'archive',
			customListId: listId,
			recordId: 'r-9',
		});
		expect(archived.status).toBe('success');
		expect(archived.outputs[0][0]).toMatchObject({
			id: 'r-9',
			archived: true,
			afterLostAnswer: true,
		});
		expect(
			(await control.get<any[]>(`/custom-lists/${listId}/records`)).find((r) => r.id === 'r-9')
				?.archived,
		).toBe(true);

		const personId = id('delete');
		expect((await createPerson(personId, { first_name: 'Delete' })).status).toBe('success');
		await loseNextAnswer('DELETE', `^/api/v2/persons/${personId}$`);
		// deletion done at once (the service queues it; here it is gone by the time the repeat arrives)
		await control.post('/config', { deletionDelayMs: 0 });
		const mark = await control.mark();
		const deleted = await runAml({ resource: 'person', operation: 'delete', personId }).finally(
			() => control.post('/config', { deletionDelayMs: 2000 }),
		);
		expect(deleted.status).toBe('success');
		expect(deleted.outputs[0][0]).toMatchObject({ id: personId, afterLostAnswer: true });
		expect((await requestsTo(mark, `/api/v2/persons/${personId}`)).map((r) => r.status)).toEqual([
			0, 404,
		]);
	});
});
