import axios, { type AxiosInstance } from 'axios';
import { createHmac, randomUUID } from 'node:crypto';

import { context, control, n8n, ownerRest, type Json } from '../harness/context';
import { readExample } from '../harness/examples';
import { amlTriggerWorkflow, nodeOutput } from '../harness/client';
import {
	cleanup,
	NODE,
	deliveries,
	publish,
	registered,
	runCleanup,
	runs,
	settled,
	sleep,
	target,
	until,
} from '../harness/trigger';
import { alertTypeOf, EVENT_ACTIONS } from '../../nodes/AmlTrigger/events';
import { SAMPLE_PAYLOADS, sampleItem } from '../fixtures/triggerSamples';

/**
 * AML Trigger in real n8n: published workflows (public API), fed by the sandbox's real webhook deliveries
 * (targets configured through POST /_control/webhooks), executions read back through n8n's public API.
 */

let api: AxiosInstance;

beforeAll(async () => {
	const c = context().sandbox;
	let token: string | undefined;
	for (let i = 0; i < 20 && !token; i++) {
		const r = await axios.post(c.tokenUrl, 'grant_type=client_credentials', {
			auth: { username: c.clientId, password: c.clientSecret },
			validateStatus: () => true,
		});
		if (r.status === 200) token = r.data.access_token;
		else await sleep(Number(r.headers['retry-after'] ?? 5) * 1000);
	}
	api = axios.create({
		baseURL: `${c.baseUrl}/api`,
		headers: { Authorization: `Bearer ${token}` },
		validateStatus: () => true,
	});
});

afterAll(async () => {
	await runCleanup();
});

describe('AML Trigger in a published workflow', () => {
	test('every event type, caused for real in the sandbox, starts exactly one execution with the delivered payload', async () => {
		const wf = await publish({
			authentication: 'none',
			events: EVENT_ACTIONS.map((e) => e.value),
			options: { decisionRules: 'PERSON_CLEARED, TRANSACTION_CLEARED, TRANSACTION_RELEASABLE' },
		});
		await target(wf.url);
		const eventsBefore = (await control.get<Json[]>('/events')).length;
		const run = randomUUID().slice(0, 8);
		const P = `trg-${run}-p`;
		const T = `trg-${run}-t`;
		const S = `trg-${run}-s`;
		const expectOk = (r: { status: number; data: unknown }, what: string) =>
			expect({ what, status: r.status, data: r.status < 300 ? 'ok' : r.data }).toEqual({
				what,
				status: 200,
				data: 'ok',
			});

		// A person in a high-risk country: OFFLINE person scenario → ALERT_CREATED (PERSON); its risk → FINAL_RISK_UPDATED.
		expectOk(
			await api.post('/v2/persons', {
				id: P,
				type: 'INDIVIDUAL',
				attributes: { first_name: 'Omid', last_name: 'Trigger', country: 'IR' },
			}),
			'create person',
		);
		// A very large transaction: OFFLINE transaction scenario → ALERT_CREATED (TRANSACTION).
		expectOk(
			await api.post(`/v1/persons/${P}/transactions`, {
				id: T,
				attributes: {
					amount: '62000.00',
					type: 'wire_transfer',
					direction: 'O',
					timestamp: new Date().toISOString(),
				},
			}),
			'create transaction',
		);
		const alerts = (await control.get<Json[]>('/alerts')).filter((a) => a.personId === P);
		expect(alerts.map((a) => a.transactionId ?? null).sort()).toEqual([null, T].sort());
		// Closing them (person alert first): ALERT_STATUS_UPDATED ×2, then every alert of T and of P is closed →
		// decision rules TRANSACTION_CLEARED, TRANSACTION_RELEASABLE (none closed as a true positive) and PERSON_CLEARED.
		for (const a of [...alerts].sort(
			(x, y) => (x.transactionId ? 1 : 0) - (y.transactionId ? 1 : 0),
		)) {
			expectOk(
				await api.put('/v1/alerts/status', {
					alertType: 'MONITORING',
					alertId: a.id,
					status: 'CLOSED',
					note: 'reviewed in e2e',
				}),
				`close alert ${a.id}`,
			);
		}
		// Screening a transliterated sanctioned name → SCREENING_ALERT_CREATED; its status → SCREENING_ALERT_STATUS_UPDATED;
		// a new hit (a PEP shareholder added, then screened again) → SCREENING_ALERT_UPDATED.
		expectOk(
			await api.post('/v2/persons', {
				id: S,
				type: 'INDIVIDUAL',
				attributes: { first_name: 'Viktor', last_name: 'Drabenko', country: 'DE' },
			}),
			'create screened person',
		);
		const screening = await api.post(`/v1/persons/${S}/screening-checks`);
		expectOk(screening, 'screen person');
		const screeningAlertId = screening.data.matches[0].alertId;
		expectOk(
			await api.put('/v1/alerts/status', {
				alertType: 'SCREENING',
				alertId: screeningAlertId,
				status: 'IN_PROGRESS',
			}),
			'screening alert status',
		);
		expectOk(
			await api.patch(`/v2/persons/${S}`, {
				attributes: { shareholders: [{ id: 'sh-1', name: 'Ivana Petrenkova' }] },
			}),
			'add shareholder',
		);
		expectOk(await api.post(`/v1/persons/${S}/screening-checks`), 'screen again');
		// Person status through the v1 patch → PERSON_STATUS_UPDATED.
		expectOk(await api.patch(`/v1/persons/${S}`, { id: S, status: 'MONITORING' }), 'person status');
		// Custom list record lifecycle → CUSTOM_LIST_RECORD_CREATED / UPDATED / ARCHIVED.
		const records = '/v1/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10/records';
		const R = `trg-${run}-r`;
		expectOk(
			await api.post(records, { id: R, attributes: { name: 'Trigger Record' } }),
			'create record',
		);
		expectOk(
			await api.put(`${records}/${R}`, { id: R, attributes: { name: 'Trigger Record 2' } }),
			'update record',
		);
		expectOk(await api.delete(`${records}/${R}`), 'archive record');
		// Manual alert → MANUAL_ALERT_CREATED; its status → MANUAL_ALERT_STATUS_UPDATED.
		const manual = await api.post('/v1/manual-alerts', { personId: S, rationale: 'OTHER' });
		expectOk(manual, 'manual alert');
		expectOk(
			await api.put(`/v1/manual-alerts/${manual.data.id}`, {
				rationale: 'OTHER',
				status: 'CLOSED',
				note: 'done',
			}),
			'manual alert status',
		);

		// What the sandbox emitted for these causes, and what it delivered to this workflow.
		const emitted = (await control.get<Json[]>('/events')).slice(eventsBefore);
		const expectedActions = [
			...EVENT_ACTIONS.map((e) => e.value),
			'PERSON_CLEARED',
			'TRANSACTION_CLEARED',
			// the sandbox's rule for example 08: every alert of the transaction closed, none confirmed
			'TRANSACTION_RELEASABLE',
		].sort();
		expect([...new Set(emitted.map((e) => e.action))].sort()).toEqual(expectedActions);
		const log = await until('every delivery accepted', async () => {
			const d = await deliveries(wf.url);
			return d.length >= emitted.length && d.every((x) => x.accepted) ? d : undefined;
		});
		expect(new Set(log.map((d) => d.eventId)).size).toBe(emitted.length);

		// Exactly one execution per event, each with exactly the emitted payload.
		const out = await settled(wf.id, emitted.length);
		expect(out).toHaveLength(emitted.length);
		const key = (e: Json) => JSON.stringify([e.action, e.createdTime, e.metadata]);
		expect(out.map(key).sort()).toEqual(emitted.map(key).sort());
		for (const item of out) {
			expect(Object.keys(item).sort()).toEqual([
				'action',
				'alertType',
				'createdTime',
				'deliveryKey',
				'metadata',
				'sample',
			]);
			// the alert type the alert operations take, read from the event: no workflow maps it by hand
			expect(item.alertType).toBe(alertTypeOf(item.action));
			expect(item.sample).toBe(false);
			// the delivery's key: the SHA-256 of its bytes, base64url
			expect(item.deliveryKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
			// The documented samples carry the same metadata fields as the real deliveries.
			// (a decision rule's event has the shape of the documented TRANSACTION_CLEARED sample, whatever the rule's name)
			const sample = SAMPLE_PAYLOADS[item.action] ?? SAMPLE_PAYLOADS.TRANSACTION_CLEARED;
			expect(Object.keys(item.metadata).sort()).toEqual(
				Object.keys(sample.metadata as Json).sort(),
			);
		}
		const txAlert = alerts.find((a) => a.transactionId === T)!;
		expect(
			out.find((o) => o.action === 'ALERT_CREATED' && o.metadata.transactionId === T)?.metadata,
		).toEqual({
			alertId: txAlert.id,
			personId: P,
			transactionId: T,
			entityType: 'TRANSACTION',
			scenarioType: 'OFFLINE',
			hits: [
				{
					reason: expect.any(String),
					details: expect.any(String),
					scenarioHandle: '4fad5052-61be-4099-9e87-bd7261515e55',
				},
			],
		});
		expect(out.find((o) => o.action === 'TRANSACTION_CLEARED')?.metadata).toMatchObject({
			personId: P,
			transactionId: T,
		});
		expect(out.find((o) => o.action === 'PERSON_STATUS_UPDATED')?.metadata).toMatchObject({
			personId: S,
			status: 'MONITORING',
		});
		expect(
			out.filter((o) => o.action.startsWith('CUSTOM_LIST_RECORD_')).map((o) => o.metadata.recordId),
		).toEqual([R, R, R]);
		expect(out.find((o) => o.action === 'MANUAL_ALERT_STATUS_UPDATED')?.metadata).toMatchObject({
			alertId: manual.data.id,
			status: 'CLOSED',
		});
		expect(out.find((o) => o.action === 'SCREENING_ALERT_UPDATED')?.metadata).toMatchObject({
			alertId: screeningAlertId,
			personId: S,
		});
	});

	test('unselected and filtered-out events are answered 200 and start nothing; filters ignore case; an event without the filtered field starts the workflow, marked', async () => {
		const alerts = await publish({
			authentication: 'none',
			events: ['ALERT_CREATED'],
			options: { entityType: 'TRANSACTION', scenarioType: 'OFFLINE' },
		});
		const risk = await publish({
			authentication: 'none',
			events: ['FINAL_RISK_UPDATED'],
			options: { decisionRules: '', riskLevels: 'high, UNACCEPTABLE' },
		});
		const rules = await publish({
			authentication: 'none',
			events: [],
			options: { decisionRules: 'case_closed' },
		});
		for (const wf of [alerts, risk, rules]) await target(wf.url);
		const marker = randomUUID();
		const emit = (action: string, metadata: Json) =>
			control.post('/webhooks/emit', { action, metadata: { ...metadata, marker } });
		await emit('ALERT_CREATED', {
			alertId: 1,
			personId: 'p',
			transactionId: 't',
			entityType: 'TRANSACTION',
			scenarioType: 'offline',
		}); // starts `alerts`
		await emit('ALERT_CREATED', {
			alertId: 2,
			personId: 'p',
			transactionId: null,
			entityType: 'PERSON',
			scenarioType: 'OFFLINE',
		});
		await emit('ALERT_CREATED', {
			alertId: 3,
			personId: 'p',
			transactionId: 't',
			entityType: 'TRANSACTION',
			scenarioType: 'ONLINE',
		});
		await emit('MANUAL_ALERT_CREATED', { alertId: 4, personId: 'p', transactionId: 't' });
		await emit('FINAL_RISK_UPDATED', {
			personId: 'p',
			finalRisk: 'Unacceptable',
			previousRisk: 'HIGH',
		}); // starts `risk`
		await emit('FINAL_RISK_UPDATED', { personId: 'p', finalRisk: 'LOW', previousRisk: 'HIGH' });
		await emit('CASE_CLOSED', { personId: 'p' }); // a decision rule: starts `rules`
		// the risk level under a name the filter does not read, and an alert without scenario type: each starts the
		// workflow, marked (never dropped without a trace)
		await emit('FINAL_RISK_UPDATED', { personId: 'p', riskClass: 'LOW' }); // starts `risk`
		await emit('ALERT_CREATED', {
			alertId: 5,
			personId: 'p',
			transactionId: 't',
			entityType: 'TRANSACTION',
		}); // starts `alerts`
		for (const wf of [alerts, risk, rules]) {
			// the last attempt of each of the 9 events (an attempt n8n answered too late on a loaded machine is retried)
			const d = await until(`9 deliveries to ${wf.url} answered`, async () => {
				const last = new Map<string, Json>();
				for (const x of await deliveries(wf.url)) last.set(x.eventId, x);
				const answered = [...last.values()];
				return answered.length >= 9 && answered.every((x) => x.status !== null)
					? answered
					: undefined;
			});
			expect(d.map((x) => x.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200]);
		}
		const alertItems = await settled(alerts.id, 2);
		expect(alertItems.map((o) => [o.metadata.alertId, o.alertType, o.unappliedFilters])).toEqual(
			expect.arrayContaining([
				[1, 'MONITORING', undefined],
				[5, 'MONITORING', ['Scenario Type: the event has no metadata.scenarioType']],
			]),
		);
		expect(alertItems).toHaveLength(2);
		const riskItems = await settled(risk.id, 2, 0);
		expect(riskItems.map((o) => [o.metadata.finalRisk, o.unappliedFilters])).toEqual(
			expect.arrayContaining([
				['Unacceptable', undefined],
				[undefined, ['Risk Levels: the event has no risk level (metadata.finalRisk)']],
			]),
		);
		expect(riskItems).toHaveLength(2);
		expect((await settled(rules.id, 1, 0)).map((o) => o.action)).toEqual(['CASE_CLOSED']);
	});
});

describe('AML Trigger verification', () => {
	const event = (alertId: number) => ({
		action: 'MANUAL_ALERT_CREATED',
		metadata: {
			alertId,
			personId: 'cust-1001',
			transactionId: null,
			rationale: 'OTHER',
			status: 'NEW',
		},
	});

	test.each([
		[
			'secret header',
			{ method: 'header', headerName: 'X-Hook-Token', headerSecret: 'tok-right' },
			{ mode: 'header', headerName: 'X-Hook-Token', secret: 'tok-right' },
			{ mode: 'header', headerName: 'X-Hook-Token', secret: 'tok-wrong' },
		],
		[
			'basic auth',
			{ method: 'basicAuth', user: 'aml', password: 'pw-right' },
			{ mode: 'basic', username: 'aml', password: 'pw-right' },
			{ mode: 'basic', username: 'aml', password: 'pw-wrong' },
		],
		[
			'HMAC-SHA256',
			{ method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: 'key-right' },
			{ mode: 'hmac', secret: 'key-right' },
			{ mode: 'hmac', secret: 'key-wrong' },
		],
	])(
		'%s: the right secret starts one execution; a wrong one is answered 401 and starts nothing',
		async (name, data, right, wrong) => {
			const cred = await n8n().createCredential(`AML webhook e2e ${name}`, 'amlWebhookApi', data);
			cleanup.push(() => n8n().deleteCredential(cred.id));
			const wf = await publish(
				{ authentication: 'amlWebhookApi', events: ['*'], options: { includeHeaders: true } },
				cred,
			);
			const wrongTarget = await target(wf.url, { verification: wrong });
			await control.post('/webhooks/emit', event(7001));
			const refused = await until('two refused attempts', async () => {
				const d = await deliveries(wf.url);
				return d.length >= 2 ? d : undefined;
			});
			expect(refused.every((d) => d.status === 401 && !d.accepted)).toBe(true);
			await control.del(`/webhooks/${wrongTarget}`);
			await target(wf.url, { verification: right });
			await control.post('/webhooks/emit', event(7002));
			await until('accepted', async () => (await deliveries(wf.url)).some((d) => d.accepted));
			const out = await settled(wf.id, 1);
			expect(out.map((o) => o.metadata.alertId)).toEqual([7002]);
			// Include Headers: the verification header is redacted, the secret appears nowhere in the execution.
			const secretHeader =
				name === 'basic auth'
					? 'authorization'
					: name === 'secret header'
						? 'x-hook-token'
						: 'x-aml-signature';
			expect(out[0].headers[secretHeader]).toBe('[redacted]');
			expect(out[0].headers['content-type']).toBe('application/json');
			const stored = JSON.stringify(await n8n().listExecutions(wf.id, { includeData: true }));
			expect(stored).not.toContain('tok-right');
			expect(stored).not.toContain(Buffer.from('aml:pw-right').toString('base64'));
		},
	);

	test('verification is on by default: with Verification left unset an unsigned delivery is refused; None accepts it', async () => {
		const cred = await n8n().createCredential('AML webhook e2e default', 'amlWebhookApi', {
			method: 'hmac',
			hmacHeaderName: 'X-AML-Signature',
			hmacSecret: 'default-key',
		});
		cleanup.push(() => n8n().deleteCredential(cred.id));
		const strict = await publish({ events: ['*'] }, cred);
		const unsigned = await axios.post(strict.url, event(7101), { validateStatus: () => true });
		expect(unsigned.status).toBe(401);
		await target(strict.url, { verification: { mode: 'hmac', secret: 'default-key' } });
		await control.post('/webhooks/emit', event(7102));
		await until('accepted', async () => (await deliveries(strict.url)).some((d) => d.accepted));
		expect((await settled(strict.id, 1)).map((o) => o.metadata.alertId)).toEqual([7102]);

		const legacy = await publish({ authentication: 'none', events: ['*'] });
		const accepted = await axios.post(legacy.url, event(7103), { validateStatus: () => true });
		expect(accepted.status).toBe(200);
		expect((await settled(legacy.id, 1)).map((o) => o.metadata.alertId)).toEqual([7103]);
	});

	test('HMAC is checked on the raw bytes: exotic JSON formatting, sha256= prefix, any content type; re-serialised or missing signatures get 401', async () => {
		const cred = await n8n().createCredential('AML webhook e2e raw', 'amlWebhookApi', {
			method: 'hmac',
			hmacHeaderName: 'X-Sig',
			hmacSecret: 'raw-secret',
		});
		cleanup.push(() => n8n().deleteCredential(cred.id));
		expect(await n8n().testCredential(cred.id)).toMatchObject({ status: 'OK' });
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, cred);
		// Key order, spacing, a unicode escape and a trailing newline: JSON.stringify(JSON.parse(raw)) differs from raw.
		// Dated an hour ago with 6 fractional digits (a signed event older than 15 days would be refused as a replay).
		const createdTime = new Date(Date.now() - 3_600_000).toISOString().replace('Z', '456Z');
		const raw = `{ "metadata" : {"personId":"cust-\\u00e9", "amount": 1.50}, "action":"MANUAL_ALERT_CREATED",\n "createdTime":"${createdTime}" }\n`;
		expect(JSON.stringify(JSON.parse(raw))).not.toBe(raw);
		const sign = (body: string, secret = 'raw-secret') =>
			createHmac('sha256', secret).update(body).digest('hex');
		const post = (headers: Json, body = raw) =>
			axios.post(wf.url, body, {
				headers: { 'content-type': 'application/json', ...headers },
				validateStatus: () => true,
				transformRequest: (b) => b,
			});
		expect((await post({})).status).toBe(401);
		expect((await post({ 'X-Sig': sign(JSON.stringify(JSON.parse(raw))) })).status).toBe(401);
		expect((await post({ 'X-Sig': sign(raw, 'other') })).status).toBe(401);
		expect((await post({ 'X-Sig': 'sha256=zz' })).status).toBe(401);
		const ok = await post({ 'X-Sig': `sha256=${sign(raw)}` });
		expect(ok.status).toBe(200);
		// The same event under a content type n8n does not parse: read from the raw bytes, verified, started.
		const other = raw.replace('cust-\\u00e9', 'cust-\\u00e8');
		expect(
			(await post({ 'content-type': 'application/octet-stream', 'X-Sig': sign(other) }, other))
				.status,
		).toBe(200);
		const out = await settled(wf.id, 2);
		const event = (personId: string) => ({
			action: 'MANUAL_ALERT_CREATED',
			createdTime,
			metadata: { personId, amount: 1.5 },
			alertType: 'MANUAL',
			sample: false,
		});
		expect(out.map(({ deliveryKey: _key, ...rest }) => rest)).toEqual(
			expect.arrayContaining([event('cust-é'), event('cust-è')]),
		);
		expect(out).toHaveLength(2);
	});
});

describe('AML Trigger redelivery', () => {
	test('a delivery whose body was already accepted is answered 200 and starts nothing; window 0 turns that off', async () => {
		const dedup = await publish({ authentication: 'none', events: ['*'] });
		const off = await publish({
			authentication: 'none',
			events: ['*'],
			options: { dedupWindow: 0 },
		});
		const event = (alertId: number, createdTime = new Date().toISOString()) =>
			JSON.stringify({
				action: 'ALERT_STATUS_UPDATED',
				createdTime,
				metadata: { alertId, status: 'CLOSED', previousStatus: 'NEW' },
			});
		const post = (url: string, b: string) =>
			axios.post(url, b, {
				headers: { 'content-type': 'application/json' },
				validateStatus: () => true,
				transformRequest: (x) => x,
			});
		const duplicate = { received: true, started: false, reason: 'duplicate delivery' };

		const body = event(9100);
		const t0 = Date.now();
		const first = await post(dedup.url, body);
		// Answered as soon as the execution is queued, far inside the service's 9 s read timeout.
		expect(Date.now() - t0).toBeLessThan(2000);
		expect(first.status).toBe(200);
		expect(first.data).toBe('');
		await settled(dedup.id, 1, 300);
		// A redelivery (the service did not see our 2xx): 200, nothing started.
		const again = await post(dedup.url, body);
		expect({ status: again.status, data: again.data }).toEqual({ status: 200, data: duplicate });
		// Same event content, other bytes (another createdTime): a different delivery, so it starts.
		expect((await post(dedup.url, event(9100, '2026-01-01T00:00:00Z'))).data).toBe('');
		await settled(dedup.id, 2, 300);
		// Two identical deliveries at once: one starts, the other is a duplicate or asked to retry (503) — never two runs.
		const burst = event(9200);
		const both = await Promise.all([post(dedup.url, burst), post(dedup.url, burst)]);
		expect(both.filter((r) => r.status === 200 && r.data === '')).toHaveLength(1);
		for (const r of both.filter((x) => x.data !== '')) expect([200, 503]).toContain(r.status);
		await settled(dedup.id, 3);
		expect((await post(dedup.url, burst)).data).toEqual(duplicate);
		expect((await post(dedup.url, body)).data).toEqual(duplicate);
		const out = await settled(dedup.id, 3, 1000);
		expect(out.map((o) => `${o.metadata.alertId} ${o.createdTime}`)).toEqual([
			`9100 ${JSON.parse(body).createdTime}`,
			'9100 2026-01-01T00:00:00Z',
			`9200 ${JSON.parse(burst).createdTime}`,
		]);
		expect((await post(off.url, body)).data).toBe('');
		expect((await post(off.url, body)).data).toBe('');
		expect(await settled(off.id, 2, 500)).toHaveLength(2);
	});

	test("a Remove Duplicates node with scope Workflow after the trigger: each delivery runs once, that node's own record works", async () => {
		// The trigger keeps its keys in its own node's deduplication record; a node with scope Workflow keeps its data in
		// the workflow's record, which the trigger never reads or changes.
		const webhookId = randomUUID();
		const workflow = amlTriggerWorkflow(
			`AML Trigger e2e remove duplicates ${webhookId.slice(0, 8)}`,
			webhookId,
			{ authentication: 'none', events: ['*'] },
		);
		workflow.nodes.push({
			id: randomUUID(),
			name: 'Remove Duplicates',
			type: 'n8n-nodes-base.removeDuplicates',
			typeVersion: 2,
			position: [220, 0],
			parameters: {
				operation: 'removeItemsSeenInPreviousExecutions',
				dedupeValue: '={{ $json.metadata.alertId }}',
				options: { scope: 'workflow' },
			},
		});
		workflow.connections = {
			[NODE]: { main: [[{ node: 'Remove Duplicates', type: 'main', index: 0 }]] },
		};
		const wf = await n8n().createWorkflow(workflow);
		cleanup.push(() => n8n().deleteWorkflow(wf.id));
		await n8n().activate(wf.id);
		const url = `${context().n8n.baseUrl}/webhook/${webhookId}/aml`;
		await registered(url);
		const event = (alertId: number, createdTime: string) =>
			JSON.stringify({
				action: 'ALERT_STATUS_UPDATED',
				createdTime,
				metadata: { alertId, status: 'CLOSED', previousStatus: 'NEW' },
			});
		const post = async (b: string) =>
			(
				await axios.post(url, b, {
					headers: { 'content-type': 'application/json' },
					validateStatus: () => true,
					transformRequest: (x) => x,
				})
			).data;
		const now = Date.now();
		const first = event(9300, new Date(now - 3000).toISOString());
		expect(await post(first)).toBe('');
		await settled(wf.id, 1, 300);
		// the same alert in another event: the trigger runs it, Remove Duplicates (keyed by alert) removes it
		expect(await post(event(9300, new Date(now - 2000).toISOString()))).toBe('');
		await settled(wf.id, 2, 300);
		// a copy of the first delivery: starts nothing
		expect(await post(first)).toEqual({
			received: true,
			started: false,
			reason: 'duplicate delivery',
		});
		expect(await post(event(9301, new Date(now - 1000).toISOString()))).toBe('');
		expect((await settled(wf.id, 3, 1000)).map((o) => o.metadata.alertId)).toEqual([
			9300, 9300, 9301,
		]);
		// every execution succeeded (runs() checks it); what Remove Duplicates let through, per execution
		const executions = (
			await n8n().api.get('/executions', {
				params: { workflowId: wf.id, includeData: true, limit: 10 },
			})
		).data.data as Json[];
		const passed = executions
			.sort((a, b) => Number(a.id) - Number(b.id))
			.map((e) => nodeOutput(e, 'Remove Duplicates').map((o) => o.metadata.alertId));
		expect(passed).toEqual([[9300], [], [9301]]);
	});

	test('an event that failed while the workflow was unpublished arrives once through the service retries', async () => {
		const wf = await publish({ authentication: 'none', events: ['MANUAL_ALERT_CREATED'] });
		await target(wf.url, { events: ['MANUAL_ALERT_CREATED'] });
		await n8n().deactivate(wf.id);
		// Real cause while n8n does not serve the URL: n8n answers 404, the sandbox retries on its schedule.
		const manual = await api.post('/v1/manual-alerts', {
			personId: 'cust-1002',
			rationale: 'OTHER',
		});
		expect(manual.status).toBe(200);
		await until(
			'two refused deliveries',
			async () => (await deliveries(wf.url)).filter((d) => d.status === 404).length >= 2,
		);
		expect(await runs(wf.id)).toHaveLength(0);
		await n8n().activate(wf.id);
		const log = await until(
			'accepted after reactivation',
			async () => {
				const d = await deliveries(wf.url);
				return d.some((x) => x.accepted) ? d : undefined;
			},
			90_000,
		);
		expect(new Set(log.map((d) => d.eventId)).size).toBe(1);
		const out = await settled(wf.id, 1, 3000);
		expect(out).toHaveLength(1);
		expect(out[0]).toMatchObject({
			action: 'MANUAL_ALERT_CREATED',
			metadata: { alertId: manual.data.id, personId: 'cust-1002' },
		});
		// Accepted once: no further attempts after the 2xx.
		const after = await deliveries(wf.url);
		expect(after.filter((d) => d.accepted)).toHaveLength(1);
		expect(after[after.length - 1].accepted).toBe(true);
	});
});

describe('AML Trigger sample events', () => {
	test.each([
		'03-alert-notification.json',
		'06-alert-ticket-jira.json',
		'07-alert-review-slack.json',
	])(
		'%s: its trigger with the pinned data as shipped, credential chosen: "Test workflow" runs at once with the sample events, without waiting for a delivery',
		async (file) => {
			const shipped = readExample(file);
			const trigger = (shipped.nodes as Json[]).find((n) => n.name === NODE)!;
			const cred = await n8n().createCredential(
				`AML webhook samples ${randomUUID().slice(0, 8)}`,
				'amlWebhookApi',
				{ method: 'header', headerName: 'X-AML-Secret', headerSecret: randomUUID() },
			);
			cleanup.push(() => n8n().deleteCredential(cred.id));
			const rest = await ownerRest();
			// What the editor's import stores (n8n's public API drops pinned data); the other nodes need the user's
			// Slack or Jira credentials and are left out.
			const created = await rest.post('/workflows', {
				name: `${shipped.name} samples ${randomUUID().slice(0, 8)}`,
				nodes: [{ ...trigger, credentials: { amlWebhookApi: { id: cred.id, name: cred.name } } }],
				connections: {},
				pinData: shipped.pinData,
				settings: shipped.settings,
				active: false,
			});
			expect(created.status).toBe(200);
			const id = String(created.data.data.id);
			cleanup.push(() => n8n().deleteWorkflow(id));
			const started = await rest.post(`/workflows/${id}/run`, {
				workflowData: created.data.data,
				triggerToStartFrom: { name: NODE },
			});
			expect(started.status).toBe(200);
			expect(started.data.data).not.toHaveProperty('waitingForWebhook');
			const execution = await until('the test run', async () =>
				(await n8n().listExecutions(id, { includeData: true })).find((e) => e.stoppedAt),
			);
			const output = (execution.data?.resultData?.runData?.[NODE]?.[0]?.data?.main?.[0] ?? []).map(
				(i: Json) => i.json,
			);
			expect({ status: execution.status, output }).toEqual({
				status: 'success',
				output: trigger.parameters.events.map((e: string) => sampleItem(e)),
			});
		},
	);
});
