import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import axios from 'axios';

import { context, control, n8n } from '../harness/context';
import type { Json } from '../harness/client';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');

/** Loads an example as the demo imports it: placeholders replaced with the running sandbox and credential. */
export function loadExample(file: string): Json {
	const c = context();
	const text = fs
		.readFileSync(path.join(EXAMPLES, file), 'utf8')
		.replaceAll('__SANDBOX_URL__', c.sandbox.baseUrl)
		.replaceAll('__SLACK_WEBHOOK_URL__', `${c.sandbox.baseUrl}/_demo/slack`)
		.replaceAll('__AML_CREDENTIAL_ID__', c.credential.id);
	return JSON.parse(text);
}

/** Schedule triggers cannot be fired through the API: the test starts the same chain from a webhook. */
function scheduleToWebhook(workflow: Json): { workflow: Json; path: string } {
	const hookPath = `example-${randomUUID()}`;
	const schedule = workflow.nodes.find((n: Json) => n.type === 'n8n-nodes-base.scheduleTrigger');
	Object.assign(schedule, { type: 'n8n-nodes-base.webhook', typeVersion: 2, webhookId: randomUUID(), parameters: { httpMethod: 'POST', path: hookPath, responseMode: 'lastNode', responseData: 'noData', options: {} } });
	return { workflow, path: hookPath };
}

describe('example workflows run as shipped', () => {
	const created: string[] = [];
	afterAll(async () => {
		for (const id of created) await n8n().deleteWorkflow(id);
	});

	test('02 scheduled custom-list sync: the list equals the CSV source, a second run changes nothing', async () => {
		await control.post('/reset');
		const { workflow, path: hookPath } = scheduleToWebhook(loadExample('02-custom-list-sync.json'));
		const wf = await n8n().createWorkflow(workflow);
		created.push(wf.id);
		await n8n().activate(wf.id);
		// The seeded list has 2 active records (blk-1, blk-2) that the source also has, under other names.
		const first = await n8n().callWebhook(hookPath, {});
		expect(first.status).toBe(200);
		const execution = await n8n().waitForExecution(wf.id);
		expect(execution.status).toBe('success');
		const summary = execution.data.resultData.runData['Sync blocklist'][0].data.main[0][0].json;
		expect(summary).toMatchObject({ created: 998, updated: 2, archived: 0 });
		const records = (await control.get<Json[]>('/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10/records')).filter((r) => !r.archived);
		expect(records).toHaveLength(1000);
		expect(records.find((r) => r.id === 'blk-7')?.attributes).toEqual({ name: 'Blocked Entity 0007', country: 'VG' });

		const mark = await control.mark();
		await n8n().callWebhook(hookPath, {});
		const again = await n8n().waitForExecution(wf.id);
		const second = (await n8n().execution(String(Number(again.id) >= Number(execution.id) ? again.id : execution.id))).data.resultData.runData['Sync blocklist'][0].data.main[0][0].json;
		expect(second).toMatchObject({ created: 0, updated: 0, archived: 0, unchanged: 1000 });
		const writes = (await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api') && r.method !== 'GET');
		expect(writes).toHaveLength(0);
	});

	test('03 alert notification: a real alert and a real screening match each post one Slack message', async () => {
		await control.post('/reset');
		const workflow = loadExample('03-alert-notification.json');
		workflow.nodes[0].webhookId = randomUUID();
		const wf = await n8n().createWorkflow(workflow);
		created.push(wf.id);
		await n8n().activate(wf.id);
		const url = `${context().n8n.baseUrl}/webhook/${workflow.nodes[0].webhookId}/aml`;
		for (let i = 0; i < 100 && (await axios.post(url, {}, { validateStatus: () => true })).status === 404; i++) await new Promise((r) => setTimeout(r, 100));
		await control.post('/webhooks', { url, events: ['ALERT_CREATED', 'SCREENING_ALERT_CREATED'] });

		const c = context().sandbox;
		const token = (await axios.post(c.tokenUrl, 'grant_type=client_credentials', { auth: { username: c.clientId, password: c.clientSecret } })).data.access_token;
		const api = axios.create({ baseURL: `${c.baseUrl}/api`, headers: { Authorization: `Bearer ${token}` } });
		await api.post('/v1/persons/cust-1001/transactions', { id: 'ex3-tx', attributes: { amount: '25000.00', type: 'wire_transfer', direction: 'O', timestamp: '2026-11-22T10:00:00Z' } });
		await api.post('/v1/transactions/ex3-tx/monitoring-checks');
		await api.post('/v1/persons/cust-1006/screening-checks');

		let messages: Json[] = [];
		for (let i = 0; i < 100; i++) {
			messages = await control.get<Json[]>('/slack');
			if (messages.length >= 2) break;
			await new Promise((r) => setTimeout(r, 200));
		}
		const texts = messages.map((m) => m.body.text as string);
		expect(texts.some((t) => t.includes('AML alert') && t.includes('cust-1001') && t.includes('ex3-tx') && t.includes('Large transaction'))).toBe(true);
		expect(texts.some((t) => t.includes('Screening alert') && t.includes('cust-1006') && t.includes('Viktor Drabenko'))).toBe(true);
	});
});

describe('example 01: transaction gate', () => {
	let workflowId = '';
	beforeAll(async () => {
		await control.post('/reset');
		const workflow = loadExample('01-transaction-gate.json');
		workflow.nodes[0].webhookId = randomUUID();
		workflow.nodes[0].parameters.path = `gate-${randomUUID()}`;
		const wf = await n8n().createWorkflow(workflow);
		workflowId = wf.id;
		await n8n().activate(wf.id);
		(globalThis as Json).gatePath = workflow.nodes[0].parameters.path;
	});
	afterAll(async () => n8n().deleteWorkflow(workflowId));

	const pay = async (body: Json) => (await n8n().callWebhook((globalThis as Json).gatePath, body)).data as Json;
	const payment = (id: string, amount: string, extra: Json = {}) => ({ id, personId: 'cust-1001', amount, type: 'wire_transfer', direction: 'O', timestamp: '2026-11-22T09:00:00Z', ...extra });

	test('a clean payment is processed; it is stored', async () => {
		expect(await pay(payment('gate-1', '120.00', { receiver_name: 'Jonas Brandt' }))).toMatchObject({ transactionId: 'gate-1', decision: 'process' });
		expect((await control.get<Json[]>('/transactions', { personId: 'cust-1001' })).some((t) => t.id === 'gate-1')).toBe(true);
	});

	test('an amount over the scenario threshold is blocked by monitoring and an alert exists', async () => {
		const answer = await pay(payment('gate-2', '25000.00'));
		expect(answer).toMatchObject({ transactionId: 'gate-2', decision: 'block' });
		expect((await control.get<Json[]>('/alerts')).some((a) => a.transactionId === 'gate-2')).toBe(true);
	});

	test('a sanctioned receiver is blocked by screening', async () => {
		expect(await pay(payment('gate-3', '80.00', { receiver_name: 'Viktor Drabenko' }))).toMatchObject({ transactionId: 'gate-3', decision: 'block' });
	});

	test('fail-closed: a monitoring check answering 500 blocks the payment', async () => {
		await control.post('/faults', { rules: [{ path: '/monitoring-checks$', errorRate: 1, errorStatus: 500 }] });
		try {
			expect(await pay(payment('gate-4', '10.00'))).toMatchObject({ transactionId: 'gate-4', decision: 'block' });
		} finally {
			await control.del('/faults');
		}
	});
});

describe('example 04: nightly CSV upload', () => {
	test('a clean export is stored (COMPLETED, no report); a re-upload of the same file is reported as partial with the first id not saved', async () => {
		await control.post('/reset');
		const { workflow, path: hookPath } = scheduleToWebhook(loadExample('04-nightly-csv-upload.json'));
		const wf = await n8n().createWorkflow(workflow);
		await n8n().activate(wf.id);
		try {
			await n8n().callWebhook(hookPath, {});
			const first = await n8n().waitForExecution(wf.id);
			expect(first.data.resultData.runData['Upload to AML'][0].data.main[0][0].json).toMatchObject({ status: 'COMPLETED', success: true });
			expect((await control.get<Json[]>('/persons')).filter((p) => p.id.startsWith('nightly-'))).toHaveLength(500);
			expect(await control.get<Json[]>('/slack')).toHaveLength(0);
			// The same file again: every id exists, so the first batch fails → PARTIALLY_COMPLETED → a report.
			await n8n().callWebhook(hookPath, {});
			for (let i = 0; i < 100 && (await control.get<Json[]>('/slack')).length === 0; i++) await new Promise((r) => setTimeout(r, 200));
			const messages = await control.get<Json[]>('/slack');
			expect(messages).toHaveLength(1);
			expect(messages[0].body.text).toMatch(/PARTIALLY_COMPLETED/);
			expect(messages[0].body.text).toMatch(/First id not saved: nightly-0001/);
		} finally {
			await n8n().deleteWorkflow(wf.id);
		}
	});
});
