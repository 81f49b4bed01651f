import axios, { type AxiosInstance } from 'axios';
import { createHmac, randomUUID } from 'node:crypto';

import { context, control, n8n } from '../harness/context';
import type { Json } from '../harness/client';

/** AML Trigger in a published workflow, fed by the sandbox's real webhook deliveries. */
describe('AML Trigger in real n8n', () => {
	let api: AxiosInstance;
	const client = () => n8n();
	const created: string[] = [];

	async function publishTrigger(parameters: Json, credentials?: Json): Promise<{ id: string; url: string }> {
		const webhookId = randomUUID();
		const wf = await client().createWorkflow({
			name: `trigger ${webhookId}`,
			nodes: [
				{ id: randomUUID(), name: 'AML Trigger', type: 'n8n-nodes-aml.amlTrigger', typeVersion: 1, position: [0, 0], webhookId, parameters, ...(credentials ? { credentials } : {}) },
			],
			connections: {},
		});
		await client().activate(wf.id);
		created.push(wf.id);
		const url = `${context().n8n.baseUrl}/webhook/${webhookId}/aml`;
		// n8n registers the webhook a moment after publishing.
		for (let i = 0; i < 100; i++) {
			const probe = await axios.post(url, { action: 'PROBE', createdTime: new Date().toISOString(), metadata: { probe: i } }, { validateStatus: () => true });
			if (probe.status !== 404) break;
			await new Promise((r) => setTimeout(r, 100));
		}
		return { id: wf.id, url };
	}

	async function executions(workflowId: string): Promise<Json[]> {
		return (await client().executions(workflowId, 250)).filter((e) => e.status === 'success');
	}

	function actionsOf(list: Json[]): string[] {
		return list.map((e) => e.data?.resultData?.runData?.['AML Trigger']?.[0]?.data?.main?.[0]?.[0]?.json?.action).sort();
	}

	async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
		const started = Date.now();
		while (!(await check())) {
			if (Date.now() - started > ms) throw new Error('condition not reached in time');
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	beforeAll(async () => {
		await control.post('/reset');
		const c = context().sandbox;
		const token = await axios.post(c.tokenUrl, 'grant_type=client_credentials', { auth: { username: c.clientId, password: c.clientSecret } });
		api = axios.create({ baseURL: `${c.baseUrl}/api`, headers: { Authorization: `Bearer ${token.data.access_token}` }, validateStatus: () => true });
	});

	afterAll(async () => {
		for (const id of created) await client().deleteWorkflow(id);
	});

	test('every event type, caused for real, starts exactly one execution with its payload', async () => {
		const { id, url } = await publishTrigger({ events: ['ALERT_CREATED', 'ALERT_STATUS_UPDATED', 'SCREENING_ALERT_CREATED', 'SCREENING_ALERT_STATUS_UPDATED', 'SCREENING_ALERT_UPDATED', 'FINAL_RISK_UPDATED', 'PERSON_STATUS_UPDATED', 'CUSTOM_LIST_RECORD_CREATED', 'CUSTOM_LIST_RECORD_UPDATED', 'CUSTOM_LIST_RECORD_ARCHIVED', 'MANUAL_ALERT_CREATED', 'MANUAL_ALERT_STATUS_UPDATED'], decisionRules: 'PERSON_CLEARED' });
		await control.post('/webhooks', { url });

		// A person in a high-risk country: OFFLINE scenario → ALERT_CREATED, risk → FINAL_RISK_UPDATED.
		expect((await api.post('/v2/persons', { id: 'trg-1', type: 'INDIVIDUAL', attributes: { first_name: 'Omar', last_name: 'Test', country: 'IR' } })).status).toBe(200);
		const alert = (await control.get<Json[]>('/alerts')).find((a) => a.personId === 'trg-1');
		expect(alert).toBeDefined();
		// Closing it: ALERT_STATUS_UPDATED, and the decision rule PERSON_CLEARED.
		expect((await api.put('/v1/alerts/status', { alertType: 'MONITORING', alertId: alert!.id, status: 'CLOSED', note: 'checked' })).status).toBe(200);
		// Screening a sanctioned name: SCREENING_ALERT_CREATED; then its status.
		const screening = await api.post('/v1/persons/cust-1006/screening-checks');
		const screeningAlertId = screening.data.matches[0].alertId;
		await api.put('/v1/alerts/status', { alertType: 'SCREENING', alertId: screeningAlertId, status: 'IN_PROGRESS' });
		// The service emits SCREENING_ALERT_UPDATED on new hits; the sandbox has no such cause, so it is emitted directly.
		await control.post('/webhooks/emit', { action: 'SCREENING_ALERT_UPDATED', metadata: { alertId: screeningAlertId, personId: 'cust-1006' } });
		// Person status via the v1 patch.
		await api.patch('/v1/persons/cust-1001', { id: 'cust-1001', status: 'MONITORING' });
		// Custom list record lifecycle.
		const list = '/v1/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10/records';
		await api.post(list, { id: 'trg-rec', attributes: { name: 'Trigger Test' } });
		await api.put(`${list}/trg-rec`, { id: 'trg-rec', attributes: { name: 'Trigger Test 2' } });
		await api.delete(`${list}/trg-rec`);
		// Manual alert and its status.
		const manual = await api.post('/v1/manual-alerts', { personId: 'cust-1001', rationale: 'OTHER' });
		await api.put(`/v1/manual-alerts/${manual.data.id}`, { rationale: 'OTHER', status: 'CLOSED', note: 'done' });

		const expected = [
			'ALERT_CREATED', 'ALERT_STATUS_UPDATED', 'CUSTOM_LIST_RECORD_ARCHIVED', 'CUSTOM_LIST_RECORD_CREATED', 'CUSTOM_LIST_RECORD_UPDATED',
			'FINAL_RISK_UPDATED', 'MANUAL_ALERT_CREATED', 'MANUAL_ALERT_STATUS_UPDATED', 'PERSON_CLEARED', 'PERSON_STATUS_UPDATED',
			'SCREENING_ALERT_CREATED', 'SCREENING_ALERT_STATUS_UPDATED', 'SCREENING_ALERT_UPDATED',
		];
		const accepted = async () => (await control.get<Json[]>('/webhooks/deliveries')).filter((d) => d.accepted);
		await until(async () => (await accepted()).length >= (await control.get<Json[]>('/webhooks/deliveries')).map((d) => d.eventId).filter((v, i, a) => a.indexOf(v) === i).length);
		const events = new Map<string, number>();
		for (const d of await accepted()) events.set(d.action, (events.get(d.action) ?? 0) + 1);
		await until(async () => (await executions(id)).length >= expected.length);
		await new Promise((r) => setTimeout(r, 500));
		const runs = await executions(id);
		const actions = actionsOf(runs);
		for (const action of expected) expect(actions).toContain(action);
		// Exactly one execution per delivered event (FINAL_RISK_UPDATED may be emitted more than once by real rescoring).
		for (const [action, count] of events) expect(actions.filter((a) => a === action)).toHaveLength(count);
		const created = runs.map((e) => e.data.resultData.runData['AML Trigger'][0].data.main[0][0].json).find((j: Json) => j.action === 'ALERT_CREATED');
		expect(created.metadata).toMatchObject({ alertId: alert!.id, personId: 'trg-1', entityType: 'PERSON', scenarioType: 'OFFLINE' });
		expect(created.metadata.hits[0]).toHaveProperty('scenarioHandle');
		await control.post('/reset');
	});

	test('HMAC verification: wrong signature → 401 and nothing started; right one → one execution; replay → nothing', async () => {
		const cred = await client().createCredential('AML webhook hmac', 'amlWebhookApi', { method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: 'right-secret' });
		const { id, url } = await publishTrigger({ authentication: 'amlWebhookApi', events: ['*'] }, { amlWebhookApi: cred });
		const body = JSON.stringify({ action: 'MANUAL_ALERT_CREATED', createdTime: '2026-11-22T10:00:00Z', metadata: { alertId: 9 } });
		const sign = (secret: string) => createHmac('sha256', secret).update(body).digest('hex');
		const post = (signature?: string) =>
			axios.post(url, body, { headers: { 'content-type': 'application/json', ...(signature ? { 'X-AML-Signature': signature } : {}) }, validateStatus: () => true });
		const probeRuns = (await executions(id)).length;
		expect((await post()).status).toBe(401);
		expect((await post(sign('wrong-secret'))).status).toBe(401);
		expect((await post(sign('right-secret'))).status).toBe(200);
		expect((await post(sign('right-secret'))).status).toBe(200);
		await new Promise((r) => setTimeout(r, 1500));
		const runs = await executions(id);
		expect(runs.length - probeRuns).toBe(1);
		// Through the sandbox as well: a target configured with the wrong secret gets 401s.
		await control.post('/webhooks', { url, verification: { mode: 'hmac', secret: 'wrong-secret' } });
		await control.post('/webhooks/emit', { action: 'ALERT_CREATED', metadata: { alertId: 77 } });
		await until(async () => (await control.get<Json[]>('/webhooks/deliveries')).some((d) => d.status === 401));
		expect((await executions(id)).length - probeRuns).toBe(1);
		await control.post('/reset');
	});

	test('a delivery that failed while the workflow was down arrives once through the retries', async () => {
		const { id, url } = await publishTrigger({ events: ['MANUAL_ALERT_CREATED'] });
		const before = (await executions(id)).length;
		await client().deactivate(id);
		await control.post('/webhooks', { url, events: ['MANUAL_ALERT_CREATED'] });
		await control.post('/webhooks/emit', { action: 'MANUAL_ALERT_CREATED', metadata: { alertId: 4242 } });
		await until(async () => (await control.get<Json[]>('/webhooks/deliveries')).filter((d) => d.status === 404).length >= 2);
		await client().activate(id);
		await until(async () => (await control.get<Json[]>('/webhooks/deliveries')).some((d) => d.accepted), 60_000);
		await new Promise((r) => setTimeout(r, 2000));
		const runs = (await executions(id)).slice(0, (await executions(id)).length - before);
		expect(actionsOf(runs)).toEqual(['MANUAL_ALERT_CREATED']);
		await control.post('/reset');
	});
});
