import { control, n8n, context } from '../harness/context';
import type { Json } from '../harness/client';
import { randomUUID } from 'node:crypto';

/** CSV upload in real n8n: a Code-free chain Webhook → Convert to File (CSV) → AML Data Upload. */
async function upload(rows: Json[], parameters: Json, opts: { continueOnFail?: boolean } = {}) {
	const client = n8n();
	const path = `upload-${randomUUID()}`;
	const wf = await client.createWorkflow({
		name: `upload ${path}`,
		nodes: [
			{ id: randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID(), parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'noData', options: {} } },
			{ id: randomUUID(), name: 'Rows', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.rows', options: {} } },
			{ id: randomUUID(), name: 'CSV', type: 'n8n-nodes-base.convertToFile', typeVersion: 1.1, position: [400, 0], parameters: { operation: 'csv', options: { fileName: 'data.csv' } } },
			{
				id: randomUUID(), name: 'AML', type: 'n8n-nodes-aml.aml', typeVersion: 1, position: [600, 0], parameters: { resource: 'dataUpload', operation: 'upload', ...parameters },
				credentials: { amlOAuth2Api: context().credential }, ...(opts.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
			},
		],
		connections: { Webhook: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] }, Rows: { main: [[{ node: 'CSV', type: 'main', index: 0 }]] }, CSV: { main: [[{ node: 'AML', type: 'main', index: 0 }]] } },
	});
	try {
		await client.activate(wf.id);
		await client.callWebhook(path, { rows });
		const execution = await client.waitForExecution(wf.id);
		const run = execution.data.resultData.runData.AML?.[0];
		return { status: execution.status, output: (run?.data?.main?.[0] ?? []).map((i: Json) => i.json), error: run?.error };
	} finally {
		await client.deleteWorkflow(wf.id);
	}
}

describe('Data Upload in real n8n', () => {
	beforeAll(async () => {
		await control.post('/reset');
	});

	test('persons CSV → COMPLETED after waiting; the sandbox stores them', async () => {
		const rows = Array.from({ length: 30 }, (_, i) => ({ id: `csv-${i}`, type: 'INDIVIDUAL', first_name: `F${i}` }));
		const run = await upload(rows, { uploadType: 'PERSON', waitForCompletion: true });
		expect(run.status).toBe('success');
		expect(run.output[0]).toMatchObject({ status: 'COMPLETED', success: true, type: 'PERSON' });
		const stored = await control.get<Json[]>('/persons');
		expect(stored.filter((p) => p.id.startsWith('csv-'))).toHaveLength(30);
	});

	test('a duplicate id after the first 1000 rows → PARTIALLY_COMPLETED is an error naming the first id not saved', async () => {
		const rows = Array.from({ length: 1200 }, (_, i) => ({ id: `pp-${i}`, type: 'INDIVIDUAL' }));
		rows[1100] = { id: 'pp-3', type: 'INDIVIDUAL' };
		const run = await upload(rows, { uploadType: 'PERSON' });
		expect(run.status).toBe('error');
		expect(run.error.message).toMatch(/PARTIALLY_COMPLETED/);
		expect(run.error.description).toMatch(/firstIdNotSaved: pp-1000/);
		const cof = await upload(rows.map((r) => ({ ...r, id: `q${r.id}` })), { uploadType: 'PERSON' }, { continueOnFail: true });
		expect(cof.output[0]).toMatchObject({ status: 'PARTIALLY_COMPLETED', success: false, firstIdNotSaved: 'qpp-1000', lastSavedId: 'qpp-999' });
	});

	test('a bad timestamp → FAILED with the reason; nothing stored', async () => {
		const rows = [
			{ id: 'ft-1', person_id: 'cust-1001', timestamp: '2026-01-01T00:00:00Z', amount: '1.00', direction: 'I' },
			{ id: 'ft-2', person_id: 'cust-1001', timestamp: 'yesterday', amount: '2.00', direction: 'O' },
		];
		const run = await upload(rows, { uploadType: 'TRANSACTION' }, { continueOnFail: true });
		expect(run.output[0]).toMatchObject({ status: 'FAILED', success: false });
		expect(String(run.output[0].reason)).toMatch(/timestamp/);
		expect((await control.get<Json[]>('/transactions')).some((t) => t.id === 'ft-1')).toBe(false);
	});

	test('missing required columns and a wrong binary field fail before any request', async () => {
		const mark = await control.mark();
		const missing = await upload([{ id: 'x', first_name: 'no type' }], { uploadType: 'PERSON' });
		expect(missing.error.message).toMatch(/Item 0: "CSV header" misses the required column\(s\) type/);
		const wrong = await upload([{ id: 'x', type: 'INDIVIDUAL' }], { uploadType: 'PERSON', binaryPropertyName: 'file' });
		expect(wrong.error.message).toMatch(/Item 0: "Input Binary Field" names no binary data of the item \(it has: data\)/);
		expect((await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api'))).toHaveLength(0);
	});

	test('a token expired right before the upload: the file still arrives exactly once', async () => {
		await control.post('/tokens/expire');
		const before = (await control.get<Json[]>('/uploads')).length;
		const run = await upload([{ id: 'tok-up-1', type: 'INDIVIDUAL' }], { uploadType: 'PERSON' });
		expect(run.output[0]).toMatchObject({ status: 'COMPLETED', success: true });
		expect((await control.get<Json[]>('/uploads')).length - before).toBe(1);
	});
});
