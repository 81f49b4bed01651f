/** Table-driven contract tests of the sandbox against the interface and decisions.md (see README). */
import axios, { type AxiosInstance } from 'axios';
import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox, DEMO_CUSTOM_LIST_ID } from './index';
import { retryDelayMs } from './webhooks';

type Started = Awaited<ReturnType<typeof startSandbox>>;
type Json = Record<string, any>;

let sb: Started;
let api: AxiosInstance;
let control: AxiosInstance;

async function token(): Promise<string> {
	const r = await axios.post(sb.tokenUrl, 'grant_type=client_credentials&scope=aml', {
		auth: { username: sb.clientId, password: sb.clientSecret },
	});
	return r.data.access_token;
}

async function fresh(config: Json = {}): Promise<void> {
	await control.post('/reset', {});
	if (Object.keys(config).length) await control.post('/config', config);
	api.defaults.headers.common.Authorization = `Bearer ${await token()}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(probe: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
	const started = Date.now();
	for (;;) {
		const v = await probe();
		if (v) return v;
		if (Date.now() - started > ms) throw new Error('condition not reached');
		await sleep(20);
	}
}

/** A local webhook receiver answering with the statuses of `plan` in turn (then 200). */
async function receiver(plan: number[] = []): Promise<{
	url: string;
	got: Array<{ headers: http.IncomingHttpHeaders; body: Buffer }>;
	close: () => Promise<void>;
}> {
	const got: Array<{ headers: http.IncomingHttpHeaders; body: Buffer }> = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			got.push({ headers: req.headers, body: Buffer.concat(chunks) });
			res.statusCode = plan.length ? plan.shift()! : 200;
			res.end();
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
		got,
		close: () =>
			new Promise<void>((r) => {
				server.closeAllConnections();
				server.close(() => r());
			}),
	};
}

beforeAll(async () => {
	sb = await startSandbox({ webhookRetryScale: 0.001, deletionDelayMs: 150, quiet: true });
	api = axios.create({ baseURL: `${sb.baseUrl}/api`, validateStatus: () => true });
	control = axios.create({ baseURL: sb.controlUrl, validateStatus: () => true });
	await fresh();
});
afterAll(async () => sb.close());

describe('token endpoint', () => {
	test('answer shape, opaque token, lifetime from config', async () => {
		await fresh({ tokenLifetimeSeconds: 1 });
		const r = await axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
			auth: { username: sb.clientId, password: sb.clientSecret },
		});
		expect(r.data).toEqual({
			access_token: expect.any(String),
			expires_in: 1,
			token_type: 'Bearer',
			scope: 'aml',
		});
		const auth = { Authorization: `Bearer ${r.data.access_token}` };
		expect((await api.get('/v1/persons/cust-1001', { headers: auth })).status).toBe(200);
		await sleep(1100);
		expect((await api.get('/v1/persons/cust-1001', { headers: auth })).status).toBe(401);
	});

	test.each([
		['no basic credentials', 'grant_type=client_credentials', undefined, 401],
		['wrong secret', 'grant_type=client_credentials', 'wrong', 401],
		['wrong grant type', 'grant_type=password', 'aml-demo-secret', 400],
		['unknown scope', 'grant_type=client_credentials&scope=admin', 'aml-demo-secret', 400],
	])('%s → %i', async (_n, form, secret, status) => {
		await fresh();
		const r = await axios.post(sb.tokenUrl, form, {
			...(secret ? { auth: { username: 'aml-demo-client', password: secret } } : {}),
			validateStatus: () => true,
		});
		expect(r.status).toBe(status);
	});

	test('rate limit: configurable; stats count 429s; reset clears the counters; tokens/expire → 401', async () => {
		await fresh({ tokenRateLimit: { max: 2, windowSeconds: 60 } });
		const t = await token(); // fresh() took the first
		const third = await axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
			auth: { username: sb.clientId, password: sb.clientSecret },
			validateStatus: () => true,
		});
		expect(third.status).toBe(429);
		expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
		const stats = (await control.get('/stats')).data;
		expect(stats).toMatchObject({ tokenRequests: 3, tokenRequests429: 1, tokensIssued: 2 });
		expect(
			(await api.get('/v1/persons/cust-1001', { headers: { Authorization: `Bearer ${t}` } }))
				.status,
		).toBe(200);
		await control.post('/tokens/expire');
		expect(
			(await api.get('/v1/persons/cust-1001', { headers: { Authorization: `Bearer ${t}` } }))
				.status,
		).toBe(401);
		await fresh();
		expect((await control.get('/stats')).data.tokenRequests).toBe(1);
		// every issued token stays listed (reset and expiry included), for secret scans
		expect((await control.get('/tokens')).data.issued).toEqual(expect.arrayContaining([t]));
	});
});

describe('request rules: 400 with a message for each violated rule', () => {
	const person = (attributes: unknown, extra: Json = {}) => ({
		id: 'rule-p',
		type: 'INDIVIDUAL',
		attributes,
		...extra,
	});
	const tx = (attributes: unknown, id = 'rule-t') => ({ id, attributes });
	const search = (extra: Json) => ({
		page: 0,
		size: 10,
		filters: [],
		logicalOperator: 'AND',
		category: 'CUSTOMER',
		...extra,
	});
	const cases: Array<[string, string, string, unknown, number]> = [
		['id with a space', 'post', '/v2/persons', person({}, { id: 'a b' }), 400],
		['id with a slash', 'post', '/v2/persons', person({}, { id: 'a/b' }), 400],
		['id allowed characters', 'post', '/v2/persons', person({}, { id: 'aZ0-_:.' }), 200],
		['empty id', 'post', '/v2/persons', person({}, { id: '' }), 400],
		['unknown type', 'post', '/v2/persons', person({}, { type: 'ALIEN' }), 400],
		['attributes missing', 'post', '/v2/persons', { id: 'rule-p', type: 'INDIVIDUAL' }, 400],
		['attributes an array', 'post', '/v2/persons', person([]), 400],
		['key with a dot', 'post', '/v2/persons', person({ 'a.b': 'x' }), 400],
		['whitespace-only key', 'post', '/v2/persons', person({ '  ': 'x' }), 400],
		['number value', 'post', '/v2/persons', person({ age: 5 }), 400],
		[
			'depth 2 is fine',
			'post',
			'/v2/persons',
			person({ address: { city: 'X' }, ids: [{ id: '1', n: 'a' }] }),
			200,
		],
		['depth 3', 'post', '/v2/persons', person({ a: { b: { c: 'd' } } }), 400],
		['depth 3 in an array item', 'post', '/v2/persons', person({ a: [{ b: { c: 'd' } }] }), 400],
		[
			'existing person',
			'post',
			'/v2/persons',
			{ id: 'cust-1001', type: 'INDIVIDUAL', attributes: {} },
			422,
		],
		[
			'v1 create existing person',
			'post',
			'/v1/persons',
			{ id: 'cust-1001', type: 'INDIVIDUAL' },
			422,
		],
		['patch v2 unknown person', 'patch', '/v2/persons/nobody', { attributes: {} }, 404],
		['patch v2 attributes missing', 'patch', '/v2/persons/cust-1001', {}, 400],
		['put v2 type missing', 'put', '/v2/persons/cust-1001', { attributes: {} }, 400],
		[
			'v1 patch bad status',
			'patch',
			'/v1/persons/cust-1001',
			{ id: 'cust-1001', status: 'HAPPY' },
			400,
		],
		['amount a number', 'post', '/v1/persons/cust-1001/transactions', tx({ amount: 10 }), 400],
		[
			'amount with a comma',
			'post',
			'/v1/persons/cust-1001/transactions',
			tx({ amount: '1,5' }),
			400,
		],
		['amount missing', 'post', '/v1/persons/cust-1001/transactions', tx({ type: 'payment' }), 400],
		[
			'timestamp not ISO',
			'post',
			'/v1/persons/cust-1001/transactions',
			tx({ amount: '1', timestamp: '03/01/2026' }),
			400,
		],
		[
			'timestamp 7 fractional digits',
			'post',
			'/v1/persons/cust-1001/transactions',
			tx({ amount: '1', timestamp: '2026-01-01T00:00:00.1234567Z' }),
			400,
		],
		[
			'timestamp 6 fractional digits',
			'post',
			'/v1/persons/cust-1001/transactions',
			tx({ amount: '1.50', timestamp: '2026-01-01T00:00:00.123456Z' }, 'rule-t6'),
			200,
		],
		[
			'transaction of an unknown person',
			'post',
			'/v1/persons/nobody/transactions',
			tx({ amount: '1' }),
			404,
		],
		[
			'existing transaction',
			'post',
			'/v1/persons/cust-1001/transactions',
			tx({ amount: '1' }, 'tx-cust-1001-1'),
			422,
		],
		[
			'transaction update without id',
			'patch',
			'/v1/persons/cust-1001/transactions/tx-cust-1001-1',
			{ attributes: { status: 'x' } },
			400,
		],
		['page -1', 'get', '/v1/persons/cust-1001/transactions?page=-1', undefined, 400],
		['size 0', 'get', '/v1/persons/cust-1001/transactions?size=0', undefined, 400],
		['size 51', 'get', '/v1/persons/cust-1001/transactions?size=51', undefined, 400],
		['size 50', 'get', '/v1/persons/cust-1001/transactions?size=50', undefined, 200],
		[
			'query 201 chars',
			'get',
			`/v1/persons/cust-1001/transactions?query=${'q'.repeat(201)}`,
			undefined,
			400,
		],
		['orderBy empty', 'get', '/v1/persons?page=0&size=5&orderBy=', undefined, 400],
		[
			'search 6 filters',
			'post',
			'/v2/persons/search',
			search({ filters: Array(6).fill({ attribute: 'country', operator: 'EXISTS' }) }),
			400,
		],
		[
			'search 5 filters',
			'post',
			'/v2/persons/search',
			search({ filters: Array(5).fill({ attribute: 'country', operator: 'EXISTS' }) }),
			200,
		],
		[
			'search unknown operator',
			'post',
			'/v2/persons/search',
			search({ filters: [{ attribute: 'country', operator: 'LIKE', query: 'D' }] }),
			400,
		],
		[
			'search bad logicalOperator',
			'post',
			'/v2/persons/search',
			search({ logicalOperator: 'XOR' }),
			400,
		],
		['search category missing', 'post', '/v2/persons/search', search({ category: undefined }), 400],
		[
			'search orderBy 201 chars',
			'post',
			'/v2/persons/search',
			search({ orderBy: 'o'.repeat(201) }),
			400,
		],
		['note empty', 'post', '/v1/persons/cust-1001/notes', { content: '' }, 400],
		['note of unknown person', 'post', '/v1/persons/nobody/notes', { content: 'x' }, 404],
		[
			'screening name 2 chars',
			'post',
			'/v2/screening-searches',
			{ name: 'ab', recordEntityType: 'ALL', configurations: [] },
			400,
		],
		[
			'screening bad entity type',
			'post',
			'/v2/screening-searches',
			{ name: 'abc', recordEntityType: 'CAT', configurations: [] },
			400,
		],
		[
			'screening configurations missing',
			'post',
			'/v2/screening-searches',
			{ name: 'abc', recordEntityType: 'ALL' },
			400,
		],
		['alert id not an integer', 'get', '/v1/alerts/abc', undefined, 400],
		['unknown alert', 'get', '/v1/alerts/999999', undefined, 404],
		['hits size 51', 'get', '/v1/screening-alerts/1/hits?size=51', undefined, 400],
		[
			'status: bad alertType',
			'put',
			'/v1/alerts/status',
			{ alertType: 'OTHER', alertId: 1, status: 'CLOSED' },
			400,
		],
		[
			'status: empty status',
			'put',
			'/v1/alerts/status',
			{ alertType: 'MONITORING', alertId: 1, status: '' },
			400,
		],
		[
			'status: empty note',
			'put',
			'/v1/alerts/status',
			{ alertType: 'MONITORING', alertId: 1, status: 'CLOSED', note: '' },
			400,
		],
		[
			'status: unknown code',
			'put',
			'/v1/alerts/status',
			{ alertType: 'SCREENING', alertId: 1, status: 'NOPE' },
			404,
		],
		[
			'status: unknown alert',
			'put',
			'/v1/alerts/status',
			{ alertType: 'MANUAL', alertId: 424242, status: 'CLOSED' },
			404,
		],
		['manual: rationale missing', 'post', '/v1/manual-alerts', { personId: 'cust-1001' }, 400],
		[
			'manual: comment 1001 chars',
			'post',
			'/v1/manual-alerts',
			{ personId: 'cust-1001', rationale: 'OTHER', rationaleComment: 'c'.repeat(1001) },
			400,
		],
		[
			'manual: comment 1000 chars',
			'post',
			'/v1/manual-alerts',
			{ personId: 'cust-1001', rationale: 'OTHER', rationaleComment: 'c'.repeat(1000) },
			200,
		],
		[
			'manual: unknown person',
			'post',
			'/v1/manual-alerts',
			{ personId: 'nobody', rationale: 'OTHER' },
			404,
		],
		[
			'manual update: unknown alert',
			'put',
			'/v1/manual-alerts/999999',
			{ rationale: 'OTHER' },
			404,
		],
		['custom list: not a uuid', 'get', '/v1/custom-lists/not-a-uuid/records', undefined, 400],
		[
			'custom list: unknown',
			'get',
			'/v1/custom-lists/00000000-0000-4000-8000-000000000000/records',
			undefined,
			404,
		],
		[
			'custom list: record without id',
			'post',
			`/v1/custom-lists/${DEMO_CUSTOM_LIST_ID}/records`,
			{ attributes: {} },
			400,
		],
		[
			'custom list: duplicate record',
			'post',
			`/v1/custom-lists/${DEMO_CUSTOM_LIST_ID}/records`,
			{ id: 'blk-1', attributes: {} },
			422,
		],
		[
			'custom list: update archived',
			'put',
			`/v1/custom-lists/${DEMO_CUSTOM_LIST_ID}/records/blk-3`,
			{ id: 'blk-3', attributes: {} },
			409,
		],
		[
			'custom list: unknown record',
			'get',
			`/v1/custom-lists/${DEMO_CUSTOM_LIST_ID}/records/nope`,
			undefined,
			404,
		],
		['upload: bad type', 'post', '/v1/data-upload?type=CATS', undefined, 400],
		['upload status: not an integer', 'get', '/v1/data-upload/x/status', undefined, 400],
		['upload status: unknown', 'get', '/v1/data-upload/99999/status', undefined, 404],
		['malformed JSON', 'post', '/v1/manual-alerts', '{"personId":', 400],
		['unknown operation', 'get', '/v1/nothing-here', undefined, 404],
	];
	beforeAll(() => fresh());
	test.each(cases)('%s', async (_name, method, path, body, status) => {
		const r =
			method === 'get'
				? await api.get(path)
				: await (api as any)[method](
						path,
						body,
						typeof body === 'string' ? { headers: { 'content-type': 'application/json' } } : {},
					);
		expect(r.status).toBe(status);
		if (status >= 400) {
			if (typeof r.data === 'string') expect(r.data.length).toBeGreaterThan(3);
			else
				expect(r.data).toMatchObject({
					status,
					error: expect.any(String),
					message: expect.any(String),
				});
		}
	});
});

describe('semantics', () => {
	beforeEach(() => fresh());

	test('success codes: create/patch/put v2 → 200 empty body; delete → 202; v1 create answers the person', async () => {
		const c = await api.post('/v2/persons', {
			id: 'sc-1',
			type: 'INDIVIDUAL',
			attributes: { first_name: 'A' },
		});
		expect([c.status, c.data]).toEqual([200, '']);
		expect((await api.patch('/v2/persons/sc-1', { attributes: { city: 'B' } })).data).toBe('');
		expect(
			(await api.put('/v2/persons/sc-1', { type: 'LEGAL', attributes: { company_name: 'C' } }))
				.status,
		).toBe(200);
		expect((await api.get('/v1/persons/sc-1')).data).toMatchObject({
			id: 'sc-1',
			type: 'LEGAL',
			attributes: { company_name: 'C' },
			status: 'NEW',
			category: 'CUSTOMER',
			snoozeConfiguration: null,
			scenarioSnoozeConfigurations: [],
		});
		expect((await api.post('/v1/persons', { id: 'sc-2', type: 'UNDEFINED' })).data).toEqual({
			id: 'sc-2',
			type: 'UNDEFINED',
			attributes: {},
		});
		const d = await api.delete('/v2/persons/sc-1');
		expect(d.status).toBe(202);
		expect((await api.get('/v1/persons/sc-1')).status).toBe(200);
		expect((await control.get('/persons/sc-1')).data.queuedForDeletion).toBe(true);
		await sleep(200);
		expect((await api.get('/v1/persons/sc-1')).status).toBe(404);
	});

	test('v1 patch: status change → history and PERSON_STATUS_UPDATED', async () => {
		const r = await api.patch('/v1/persons/cust-1002', { id: 'cust-1002', status: 'SUSPENDED' });
		expect(r.data.status).toBe('SUSPENDED');
		const h = (await api.get('/v1/persons/cust-1002/statuses')).data;
		expect(h.statuses.map((s: Json) => s.status)).toEqual(['NEW', 'SUSPENDED']);
		expect(h.statuses[0].endTime).toBeTruthy();
		const events = (await control.get('/events')).data;
		expect(events.find((e: Json) => e.action === 'PERSON_STATUS_UPDATED').metadata).toEqual({
			personId: 'cust-1002',
			status: 'SUSPENDED',
			previousStatus: 'NEW',
		});
	});

	test('paged shape and the 10,000-result cap on search', async () => {
		const big = Array.from({ length: 10_050 }, (_, i) => `cap-${i},INDIVIDUAL`).join('\n');
		const form = new FormData();
		form.append('file', new Blob([`id,type\n${big}\n`]), 'cap.csv');
		const up = await api.post('/v1/data-upload?type=PERSON', form);
		await until(
			async () =>
				(await api.get(`/v1/data-upload/${up.data.id}/status`)).data.status === 'COMPLETED',
			20000,
		);
		const body = {
			page: 0,
			size: 50,
			filters: [{ attribute: 'id', operator: 'STARTS_WITH', query: 'cap-' }],
			logicalOperator: 'AND',
			category: 'CUSTOMER',
		};
		const first = (await api.post('/v2/persons/search', body)).data;
		expect(first).toMatchObject({ number: 0, size: 50, total: 10000 });
		expect(first.content).toHaveLength(50);
		expect((await api.post('/v2/persons/search', { ...body, page: 199 })).status).toBe(200);
		expect((await api.post('/v2/persons/search', { ...body, page: 200 })).status).toBe(400);
		expect((await api.get('/v1/persons?page=200&size=50')).status).toBe(400);
	});

	test('monitoring: ONLINE transaction and person checks; OFFLINE on create with ALERT_CREATED metadata', async () => {
		const big = await api.post('/v1/transactions/tx-cust-1007-1/monitoring-checks');
		expect(big.data.results).toEqual([
			expect.objectContaining({
				reason: 'Large transaction',
				scenarioType: 'ONLINE',
				alertId: expect.any(Number),
				scenarioHandle: expect.any(String),
				score: 80,
				weight: 1,
			}),
		]);
		const alert = (await api.get(`/v1/alerts/${big.data.results[0].alertId}`)).data;
		expect(alert).toMatchObject({
			status: 'NEW',
			entityType: 'TRANSACTION',
			transaction: { id: 'tx-cust-1007-1' },
			person: { id: 'cust-1007' },
			score: { results: [expect.any(Object)] },
		});
		expect((await api.post('/v1/transactions/tx-cust-1001-1/monitoring-checks')).data).toEqual({
			results: [],
		});
		expect(
			(await api.post('/v1/persons/cust-1007/monitoring-checks')).data.results[0],
		).toMatchObject({ reason: 'High-risk country' });
		const created = await api.post('/v1/persons/cust-1001/transactions', {
			id: 'off-1',
			attributes: {
				amount: '60000.00',
				type: 'wire_transfer',
				direction: 'O',
				timestamp: '2026-03-01T10:00:00Z',
			},
		});
		expect(created.data).toEqual({
			id: 'off-1',
			personId: 'cust-1001',
			attributes: expect.objectContaining({ amount: '60000.00' }),
		});
		const ev = (await control.get('/events')).data.filter(
			(e: Json) => e.action === 'ALERT_CREATED' && e.metadata.transactionId === 'off-1',
		);
		expect(ev).toHaveLength(1);
		expect(Object.keys(ev[0].metadata).sort()).toEqual([
			'alertId',
			'entityType',
			'hits',
			'personId',
			'scenarioType',
			'transactionId',
		]);
		expect(ev[0].metadata).toMatchObject({
			personId: 'cust-1001',
			entityType: 'TRANSACTION',
			scenarioType: 'OFFLINE',
			hits: [
				{
					reason: expect.any(String),
					details: expect.any(String),
					scenarioHandle: expect.any(String),
				},
			],
		});
	});

	test('risk: finalRisk from rules; FINAL_RISK_UPDATED on a level change', async () => {
		expect((await api.get('/v1/persons/cust-1001/risks')).data).toMatchObject({
			finalRisk: 'LOW',
			risks: [],
		});
		expect((await api.get('/v1/persons/cust-1007/risks')).data.finalRisk).toBe('HIGH');
		await api.patch('/v2/persons/cust-1001', { attributes: { country: 'KP' } });
		const risk = (await api.get('/v1/persons/cust-1001/risks')).data;
		expect(risk.finalRisk).toBe('HIGH');
		expect(risk.risks[0]).toMatchObject({ factor: 'HIGH_RISK_COUNTRY', level: 'HIGH' });
		const ev = (await control.get('/events')).data.filter(
			(e: Json) => e.action === 'FINAL_RISK_UPDATED' && e.metadata.personId === 'cust-1001',
		);
		expect(ev.map((e: Json) => e.metadata.finalRisk)).toContain('HIGH');
	});

	test('decision rules: closing every alert of a person/transaction → PERSON_CLEARED and TRANSACTION_CLEARED', async () => {
		const r = await api.post('/v1/transactions/tx-cust-1007-1/monitoring-checks');
		const alertId = r.data.results[0].alertId;
		expect((await api.get('/v1/transactions/tx-cust-1007-1/unresolved-alerts')).data).toEqual({
			hasUnresolvedAlerts: true,
		});
		expect(
			(
				await api.put('/v1/alerts/status', {
					alertType: 'MONITORING',
					alertId,
					status: 'CLOSED',
					note: 'ok',
				})
			).status,
		).toBe(200);
		expect((await api.get('/v1/transactions/tx-cust-1007-1/unresolved-alerts')).data).toEqual({
			hasUnresolvedAlerts: false,
		});
		const actions = (await control.get('/events')).data.map((e: Json) => e.action);
		expect(actions).toContain('ALERT_STATUS_UPDATED');
		expect(actions).toContain('TRANSACTION_CLEARED');
		// cust-1007 still has its OFFLINE/other alerts? Close them all, then PERSON_CLEARED.
		for (const a of (await control.get('/alerts')).data.filter(
			(x: Json) => x.personId === 'cust-1007' && x.status !== 'CLOSED',
		)) {
			await api.put('/v1/alerts/status', {
				alertType: 'MONITORING',
				alertId: a.id,
				status: 'CLOSED AS FALSE POSITIVE',
			});
		}
		expect(
			(await control.get('/events')).data.some(
				(e: Json) => e.action === 'PERSON_CLEARED' && e.metadata.personId === 'cust-1007',
			),
		).toBe(true);
		const alert = (await api.get(`/v1/alerts/${alertId}`)).data;
		expect(alert.statuses.map((s: Json) => s.status)).toEqual(['NEW', 'CLOSED']);
		expect(alert.notes[0]).toMatchObject({ content: 'ok' });
	});

	test('screening: shareholders, custom-list account numbers, re-screen updates the open alert; hits paged', async () => {
		const legal = (await api.post('/v1/persons/cust-1008/screening-checks')).data.matches;
		expect(legal.map((m: Json) => m.inputData)).toContain('Ivana Petrenkova');
		expect(legal[0]).toMatchObject({
			checkType: 'PEP',
			alertId: expect.any(Number),
			screeningFlowId: expect.any(String),
			matchData: expect.any(String),
			providers: expect.any(Array),
		});
		const acct = (await api.post('/v1/transactions/tx-cust-1007-2/screening-checks')).data.matches;
		expect(acct).toEqual([
			expect.objectContaining({
				inputData: 'CY17002001280000001200527600',
				sanctionList: 'Internal blocklist',
				score: 100,
			}),
		]);
		const first = (await api.post('/v1/persons/cust-1006/screening-checks')).data.matches;
		const again = (await api.post('/v1/persons/cust-1006/screening-checks')).data.matches;
		expect(again.map((m: Json) => m.alertId)).toEqual(first.map((m: Json) => m.alertId));
		await control.post('/screening-list', {
			records: [{ id: 'ctl-1', name: 'Wiktor Drabienko', checkType: 'ADVERSE_MEDIA' }],
		});
		const third = (await api.post('/v1/persons/cust-1006/screening-checks')).data.matches;
		expect(third.length).toBe(first.length + 1);
		expect(
			(await control.get('/events')).data.filter(
				(e: Json) => e.action === 'SCREENING_ALERT_UPDATED',
			),
		).toHaveLength(1);
		const hits = (await api.get(`/v1/screening-alerts/${first[0].alertId}/hits?size=1`)).data;
		expect(hits).toMatchObject({ number: 0, size: 1, total: first.length + 1 });
		expect(hits.content[0]).toMatchObject({
			id: expect.any(String),
			listName: expect.any(String),
			listProvider: expect.any(String),
			listType: expect.any(String),
			score: expect.any(Number),
			attributes: {
				name: expect.any(String),
				recordDate: expect.any(Number),
				overview: expect.any(String),
			},
		});
		expect((await api.post('/v1/persons/cust-1001/screening-checks')).data).toEqual({
			matches: [],
		});
	});

	test('screening search: entity types, groups, custom list field; nothing stored; list groups', async () => {
		const before = (await control.get('/screening-alerts')).data.length;
		const all = (
			await api.post('/v2/screening-searches', {
				name: 'Viktor Drabenko',
				recordEntityType: 'ALL',
				configurations: [{ type: 'SANCTION', matchType: 'FUZZY_MATCH' }],
			})
		).data;
		expect(all[0]).toMatchObject({
			id: 'rec-1',
			type: 'PERSON',
			screeningType: 'SANCTION',
			identities: expect.arrayContaining([{ value: 'Viktor Drabenko', type: 'NAME' }]),
			representedInLists: [{ code: 'SYN-SANCTIONS', name: expect.any(String) }],
		});
		expect(
			(
				await api.post('/v2/screening-searches', {
					name: 'Viktor Drabenko',
					recordEntityType: 'ENTITY',
					configurations: [],
				})
			).data,
		).toEqual([]);
		expect(
			(
				await api.post('/v2/screening-searches', {
					name: 'Viktor Drabenko',
					recordEntityType: 'ALL',
					configurations: [{ selectorGroupCodes: ['PEP'] }],
				})
			).data,
		).toEqual([]);
		const fields = (await api.get(`/v1/custom-lists/${DEMO_CUSTOM_LIST_ID}/screening-fields`)).data;
		expect(fields).toEqual([
			{ id: expect.any(String), name: 'name' },
			{ id: expect.any(String), name: 'bank_account_numbers' },
		]);
		const custom = (
			await api.post('/v2/screening-searches', {
				name: 'Jaroslav Mekota',
				recordEntityType: 'ALL',
				configurations: [{ listId: DEMO_CUSTOM_LIST_ID, usableFieldId: fields[0].id }],
			})
		).data;
		expect(custom.map((x: Json) => x.id)).toEqual(['blk-2']);
		expect((await control.get('/screening-alerts')).data.length).toBe(before);
		expect((await api.get('/v1/screening-list-groups')).data).toEqual(
			expect.arrayContaining([{ code: 'SANCTIONS', name: expect.any(String) }]),
		);
	});

	test('custom list lifecycle: webhooks, archive hides, paged', async () => {
		const base = `/v1/custom-lists/${DEMO_CUSTOM_LIST_ID}/records`;
		expect((await api.post(base, { id: 'cl-1', attributes: { name: 'X' } })).data).toEqual({
			id: 'cl-1',
			attributes: { name: 'X' },
		});
		expect(
			(await api.put(`${base}/cl-1`, { id: 'cl-1', attributes: { name: 'Y' } })).data.attributes
				.name,
		).toBe('Y');
		expect((await api.delete(`${base}/cl-1`)).status).toBe(200);
		expect((await api.get(`${base}/cl-1`)).status).toBe(404);
		const page = (await api.get(`${base}?page=0&size=2`)).data;
		expect(page).toMatchObject({ number: 0, size: 2, total: 2 });
		const stored = (await control.get(`/custom-lists/${DEMO_CUSTOM_LIST_ID}/records`)).data;
		expect(stored.find((r: Json) => r.id === 'cl-1').archived).toBe(true);
		const actions = (await control.get('/events')).data.map((e: Json) => e.action);
		expect(actions).toEqual(
			expect.arrayContaining([
				'CUSTOM_LIST_RECORD_CREATED',
				'CUSTOM_LIST_RECORD_UPDATED',
				'CUSTOM_LIST_RECORD_ARCHIVED',
			]),
		);
	});

	test('transaction update: only new keys and status; notes; manual alert lifecycle', async () => {
		const t = await api.patch('/v1/persons/cust-1001/transactions/tx-cust-1001-1', {
			id: 'tx-cust-1001-1',
			attributes: { amount: '1.00', status: 'BLOCKED', channel: 'web' },
		});
		expect(t.data.attributes).toMatchObject({
			amount: '100.00',
			status: 'BLOCKED',
			channel: 'web',
		});
		const n = (await api.post('/v1/persons/cust-1001/notes', { content: 'hello' })).data;
		expect(n).toEqual({
			id: expect.any(Number),
			content: 'hello',
			createdTime: expect.any(String),
		});
		const m = (
			await api.post('/v1/manual-alerts', {
				personId: 'cust-1001',
				transactionId: 'tx-cust-1001-1',
				rationale: 'SUSPICIOUS_ACTIVITY',
			})
		).data;
		expect(m).toMatchObject({
			id: expect.any(Number),
			personId: 'cust-1001',
			transactionId: 'tx-cust-1001-1',
			rationale: 'SUSPICIOUS_ACTIVITY',
			status: 'NEW',
		});
		expect(
			(await api.put(`/v1/manual-alerts/${m.id}`, { rationale: 'OTHER', status: 'NOPE' })).status,
		).toBe(404);
		const u = (
			await api.put(`/v1/manual-alerts/${m.id}`, {
				rationale: 'OTHER',
				status: 'ESCALATED',
				note: 'look',
			})
		).data;
		expect(u).toMatchObject({ rationale: 'OTHER', status: 'ESCALATED' });
		expect(
			(await api.put('/v1/alerts/status', { alertType: 'MANUAL', alertId: m.id, status: 'CLOSED' }))
				.status,
		).toBe(200);
		const actions = (await control.get('/events')).data.map((e: Json) => e.action);
		expect(actions.filter((a: string) => a === 'MANUAL_ALERT_STATUS_UPDATED')).toHaveLength(2);
		expect(actions).toContain('MANUAL_ALERT_CREATED');
		await control.post('/config', { alertStatuses: ['OPEN', 'DONE'] });
		expect(
			(await api.put('/v1/alerts/status', { alertType: 'MANUAL', alertId: m.id, status: 'CLOSED' }))
				.status,
		).toBe(404);
		expect(
			(await api.put('/v1/alerts/status', { alertType: 'MANUAL', alertId: m.id, status: 'DONE' }))
				.status,
		).toBe(200);
	});
});

describe('control API: stats, request log, faults', () => {
	beforeEach(() => fresh());

	test('stats by route pattern and status; request log without secrets', async () => {
		const mark = (await control.get('/requests')).data.at(-1)?.seq ?? 0;
		await api.get('/v1/persons/cust-1001');
		await api.get('/v1/persons/nobody');
		await api.post('/v1/persons/cust-1001/transactions', {
			id: 'st-1',
			attributes: { amount: '1' },
		});
		await api.get('/v1/persons/cust-1001', { headers: { Authorization: 'Bearer nope' } });
		const stats = (await control.get('/stats')).data;
		expect(stats.byRoute['GET /api/v1/persons/:personId']).toBe(3);
		expect(stats.byRoute['POST /api/v1/persons/:personId/transactions']).toBe(1);
		expect(stats.status).toMatchObject({ '200': 3, '404': 1, '401': 1 });
		const log = (await control.get(`/requests?since=${mark}`)).data;
		expect(log.map((e: Json) => [e.method, e.path, e.status, e.hasAuth])).toEqual(
			[
				['POST', '/oauth/token', 200, true], // from fresh(): not logged before mark
				['GET', '/api/v1/persons/cust-1001', 200, true],
				['GET', '/api/v1/persons/nobody', 404, true],
				['POST', '/api/v1/persons/cust-1001/transactions', 200, true],
				['GET', '/api/v1/persons/cust-1001', 401, true],
			].slice(mark === 0 ? 0 : 1),
		);
		expect(JSON.stringify(log)).not.toMatch(/Bearer|aml-demo-secret/);
	});

	test("request log names the credential: the token URL's `c` parameter, also on requests with its token", async () => {
		const tagged = (
			await axios.post(`${sb.tokenUrl}?c=file.a`, 'grant_type=client_credentials', {
				auth: { username: sb.clientId, password: sb.clientSecret },
			})
		).data.access_token;
		const plain = await token();
		const mark = (await control.get('/requests')).data.at(-1)?.seq ?? 0;
		await axios.post(`${sb.tokenUrl}?c=other`, 'grant_type=client_credentials', {
			auth: { username: sb.clientId, password: 'wrong' },
			validateStatus: () => true,
		});
		await api.get('/v1/persons/cust-1001', { headers: { Authorization: `Bearer ${tagged}` } });
		await api.get('/v1/persons/cust-1001', { headers: { Authorization: `Bearer ${plain}` } });
		await control.post('/tokens/expire');
		await api.get('/v1/persons/cust-1001', { headers: { Authorization: `Bearer ${tagged}` } });
		await api.get('/v1/persons/cust-1001', { headers: { Authorization: 'Bearer nope' } });
		const log = (await control.get(`/requests?since=${mark}`)).data;
		expect(log.map((e: Json) => [e.path, e.status, e.credential])).toEqual([
			['/oauth/token', 401, 'other'],
			['/api/v1/persons/cust-1001', 200, 'file.a'],
			['/api/v1/persons/cust-1001', 200, undefined],
			['/api/v1/persons/cust-1001', 401, 'file.a'],
			['/api/v1/persons/cust-1001', 401, undefined],
		]);
	});

	test('faults: times, seeded repeatability, 429 with Retry-After, after = stored then failed', async () => {
		await control.post('/faults', {
			rules: [
				{
					method: 'GET',
					path: '^/api/v1/persons/cust-1001$',
					errorRate: 1,
					errorStatus: 503,
					times: 2,
				},
			],
		});
		const statuses = [];
		for (let i = 0; i < 3; i++) statuses.push((await api.get('/v1/persons/cust-1001')).status);
		expect(statuses).toEqual([503, 503, 200]);
		const run = async () => {
			await control.post('/faults', {
				seed: 42,
				rules: [{ path: '/persons/cust-1002$', errorRate: 0.5 }],
			});
			const out = [];
			for (let i = 0; i < 12; i++) out.push((await api.get('/v1/persons/cust-1002')).status);
			return out;
		};
		const a = await run();
		expect(await run()).toEqual(a);
		expect(new Set(a)).toEqual(new Set([200, 500]));
		await control.post('/faults', {
			seed: 1,
			rules: [{ path: 'cust-1003$', rate429: 1, retryAfterRate: 1 }],
		});
		const limited = await api.get('/v1/persons/cust-1003');
		expect([limited.status, limited.headers['retry-after']]).toEqual([429, '1']);
		await control.post('/faults', {
			rules: [{ method: 'POST', path: '/transactions$', errorRate: 1, when: 'after' }],
		});
		expect(
			(
				await api.post('/v1/persons/cust-1001/transactions', {
					id: 'lost-1',
					attributes: { amount: '5' },
				})
			).status,
		).toBe(500);
		await control.delete('/faults');
		expect((await api.get('/v1/persons/cust-1001/transactions/lost-1')).status).toBe(200);
	});

	test('faults: drop closes the connection, hang never answers, latency delays; /oauth only with an explicit path', async () => {
		await control.post('/faults', {
			rules: [
				{ path: 'cust-1001$', dropRate: 1 },
				{ path: 'cust-1002$', hangRate: 1 },
				{ path: 'cust-1003$', latencyMs: 300 },
				{ errorRate: 1 },
			],
		});
		await expect(api.get('/v1/persons/cust-1001')).rejects.toMatchObject({
			code: expect.stringMatching(/ECONNRESET|socket hang up/),
		});
		await expect(api.get('/v1/persons/cust-1002', { timeout: 300 })).rejects.toMatchObject({
			code: 'ECONNABORTED',
		});
		const started = Date.now();
		expect((await api.get('/v1/persons/cust-1003')).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(280);
		expect(
			(
				await axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
					auth: { username: sb.clientId, password: sb.clientSecret },
				})
			).status,
		).toBe(200);
		await control.post('/faults', {
			rules: [{ path: '^/oauth/token$', errorRate: 1, errorStatus: 502 }],
		});
		expect(
			(
				await axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
					auth: { username: sb.clientId, password: sb.clientSecret },
					validateStatus: () => true,
				})
			).status,
		).toBe(502);
		await control.delete('/faults');
	});

	test('faults: trickleMs sends the status and headers at once and the body until trickleMs after them, a piece every 100 ms', async () => {
		await control.post('/faults', { rules: [{ path: 'cust-1001$', trickleMs: 600, times: 1 }] });
		const started = Date.now();
		const answer = await new Promise<{ headersMs: number; body: string; pieces: number }>(
			(resolve, reject) => {
				const url = new URL(`${sb.baseUrl}/api/v1/persons/cust-1001`);
				const req = http.get(
					url,
					{ headers: { Authorization: api.defaults.headers.common.Authorization as string } },
					(res) => {
						const headersMs = Date.now() - started;
						let body = '';
						let pieces = 0;
						res.on('data', (chunk: Buffer) => {
							pieces++;
							body += chunk.toString();
						});
						res.on('end', () => resolve({ headersMs, body, pieces }));
					},
				);
				// an idle timeout shorter than the whole answer never fires: no pause is that long
				req.setTimeout(300, () => req.destroy(new Error('idle')));
				req.on('error', reject);
			},
		);
		expect(answer.headersMs).toBeLessThan(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(580);
		expect(answer.pieces).toBeGreaterThan(3);
		expect(JSON.parse(answer.body)).toMatchObject({ id: 'cust-1001' });
		await control.delete('/faults');
	});

	test('config validation and reset restores defaults', async () => {
		expect((await control.post('/config', { fuzzyThreshold: 101 })).status).toBe(400);
		expect((await control.post('/config', { bogus: 1 })).status).toBe(400);
		await control.post('/config', { personDeletionEnabled: false });
		expect((await api.delete('/v2/persons/cust-1001')).status).toBe(403);
		await control.post('/reset', { seed: false });
		const cfg = (await control.get('/config')).data;
		expect(cfg).toMatchObject({
			personDeletionEnabled: true,
			fuzzyThreshold: 85,
			tokenRateLimit: { max: 5, windowSeconds: 60 },
			alertStatuses: [
				'NEW',
				'IN_PROGRESS',
				'CLOSED',
				'CLOSED AS FALSE POSITIVE',
				'CLOSED AS TRUE POSITIVE',
				'ESCALATED',
			],
		});
		expect((await control.get('/persons')).data).toEqual([]);
	});
});

describe('uploads: validation failures (FAILED, nothing stored)', () => {
	async function upload(
		type: string,
		csv: string,
		name = 'data.csv',
	): Promise<{ status: string; reason: string | null }> {
		const form = new FormData();
		form.append('file', new Blob([csv], { type: 'text/csv' }), name);
		const accepted = await api.post(`/v1/data-upload?type=${type}`, form);
		expect(accepted.status).toBe(202);
		expect(accepted.data).toEqual({ id: expect.any(Number), fileName: name, type });
		return await until(async () => {
			const s = (await api.get(`/v1/data-upload/${accepted.data.id}/status`)).data;
			return s.status !== 'PROCESSING' && s;
		});
	}
	beforeAll(() => fresh());

	test.each([
		[
			'mixed snake and camel case header',
			'PERSON',
			'id,type,first_name,lastName\nv-1,INDIVIDUAL,A,B\n',
			/mixed/,
		],
		['duplicate column', 'PERSON', 'id,type,type\nv-1,INDIVIDUAL,LEGAL\n', /duplicate column/],
		[
			'missing required column',
			'TRANSACTION',
			'id,person_id,amount,direction\nv-1,cust-1001,1.00,I\n',
			/timestamp/,
		],
		['bad person type', 'PERSON', 'id,type\nv-1,INDIVIDUAL\nv-2,ROBOT\n', /line 3.*ROBOT/],
		['bad id', 'PERSON', 'id,type\nv 1,INDIVIDUAL\n', /line 2.*id/],
		[
			'bad timestamp',
			'TRANSACTION',
			'id,person_id,timestamp,amount,direction\nv-1,cust-1001,2026-13-45,1.00,I\n',
			/timestamp/,
		],
		[
			'7 fractional digits',
			'TRANSACTION',
			'id,person_id,timestamp,amount,direction\nv-1,cust-1001,2026-01-01T00:00:00.1234567Z,1.00,I\n',
			/fractional/,
		],
		[
			'non-decimal amount',
			'TRANSACTION',
			'id,person_id,timestamp,amount,direction\nv-1,cust-1001,2026-01-01T00:00:00Z,ten,I\n',
			/amount/,
		],
		['invalid JSON cell', 'PERSON', 'id,type,shareholders\nv-1,LEGAL,"[{""id"": 1,]"\n', /JSON/],
		['ragged row', 'PERSON', 'id,type\nv-1,INDIVIDUAL,extra\n', /malformed CSV/],
		['empty file', 'PERSON', '', /empty/],
	])('%s', async (_n, type, csv, reason) => {
		const s = await upload(type, csv);
		expect(s.status).toBe('FAILED');
		expect(s.reason).toMatch(reason);
		expect((await control.get('/persons')).data.some((p: Json) => p.id.startsWith('v-'))).toBe(
			false,
		);
		expect((await control.get('/transactions')).data.some((t: Json) => t.id.startsWith('v-'))).toBe(
			false,
		);
	});

	test('camelCase header, JSON cells, transaction for a missing person → PARTIALLY_COMPLETED; updates and relations', async () => {
		expect(
			(
				await upload(
					'PERSON',
					'id,type,companyName,shareholders\nj-1,LEGAL,J Corp,"[{""id"":""s1"",""name"":""Ann""}]"\n',
				)
			).status,
		).toBe('COMPLETED');
		expect((await api.get('/v1/persons/j-1')).data.attributes).toEqual({
			companyName: 'J Corp',
			shareholders: [{ id: 's1', name: 'Ann' }],
		});
		const rows = Array.from(
			{ length: 1001 },
			(_, i) => `jt-${i},${i === 1000 ? 'ghost' : 'j-1'},2026-01-01T00:00:00Z,1.00,I`,
		);
		const s = await upload(
			'TRANSACTION',
			`id,person_id,timestamp,amount,direction\n${rows.join('\n')}\n`,
		);
		expect(s).toEqual({
			status: 'PARTIALLY_COMPLETED',
			reason: expect.stringMatching(/jt-1000.*Last saved id: jt-999.*First id not saved: jt-1000/),
		});
		expect((await api.get('/v1/persons/j-1/transactions?size=1')).data.total).toBe(1000);
		expect(
			(await upload('TRANSACTION_UPDATE', 'id,person_id,status,amount\njt-1,j-1,DONE,99.00\n'))
				.status,
		).toBe('COMPLETED');
		expect((await api.get('/v1/persons/j-1/transactions/jt-1')).data.attributes).toMatchObject({
			status: 'DONE',
			amount: '1.00',
		});
		expect(
			(
				await upload(
					'PERSON_RELATION',
					'person_id,related_person_id,relation_type\nj-1,cust-1001,SHAREHOLDER\n',
				)
			).status,
		).toBe('COMPLETED');
		expect((await control.get('/relations')).data).toEqual([
			{ personId: 'j-1', relatedPersonId: 'cust-1001', relationType: 'SHAREHOLDER' },
		]);
		expect((await upload('PERSON', 'id,type\nn-1,INDIVIDUAL\n', 'data.txt')).status).toBe('FAILED');
	});

	test('a file over 100 MB → 413, streamed', async () => {
		const chunk = Buffer.alloc(1024 * 1024, 'a');
		const boundary = 'xxBOUNDARYxx';
		const head = Buffer.from(
			`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nid,type\n`,
		);
		const status = await new Promise<number>((resolve, reject) => {
			const req = http.request(
				`${sb.baseUrl}/api/v1/data-upload?type=PERSON`,
				{
					method: 'POST',
					headers: {
						Authorization: String(api.defaults.headers.common.Authorization),
						'content-type': `multipart/form-data; boundary=${boundary}`,
						'transfer-encoding': 'chunked',
					},
				},
				(res) => {
					res.resume();
					resolve(res.statusCode ?? 0);
				},
			);
			req.on('error', reject);
			req.write(head);
			let i = 0;
			const pump = (): void => {
				while (i < 101) {
					i++;
					if (!req.write(chunk)) {
						req.once('drain', pump);
						return;
					}
				}
				req.end(`\r\n--${boundary}--\r\n`);
			};
			pump();
		});
		expect(status).toBe(413);
	});
});

describe('webhooks', () => {
	beforeEach(() => fresh());

	test('schedule: 3 quick retries then 2, 5, 10, 15, 30 min, 1, 2, 4 h, then 8 h for 7 days', () => {
		const minutes = Array.from({ length: 30 }, (_, i) => retryDelayMs(i)).map((ms) =>
			ms === undefined ? undefined : ms / 60_000,
		);
		expect(minutes.slice(0, 9)).toEqual([2, 5, 10, 15, 30, 60, 120, 240, 480]);
		expect(minutes.filter((m) => m === 480)).toHaveLength(21);
		expect(minutes[29]).toBeUndefined();
	});

	test.each([
		[
			'none',
			{ mode: 'none' },
			(h: http.IncomingHttpHeaders) => expect(h['x-aml-signature']).toBeUndefined(),
		],
		[
			'header',
			{ mode: 'header', headerName: 'X-Hook-Secret', secret: 's3' },
			(h: http.IncomingHttpHeaders) => expect(h['x-hook-secret']).toBe('s3'),
		],
		[
			'basic',
			{ mode: 'basic', username: 'u', password: 'p' },
			(h: http.IncomingHttpHeaders) =>
				expect(h.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`),
		],
		[
			'hmac',
			{ mode: 'hmac', secret: 'k' },
			(h: http.IncomingHttpHeaders, body: Buffer) =>
				expect(h['x-aml-signature']).toBe(createHmac('sha256', 'k').update(body).digest('hex')),
		],
	])('verification %s', async (_n, verification, check) => {
		const rx = await receiver();
		try {
			await control.post('/webhooks', { url: rx.url, verification });
			await api.post('/v1/manual-alerts', { personId: 'cust-1001', rationale: 'OTHER' });
			await until(async () => rx.got.length >= 1);
			const { headers, body } = rx.got[0];
			expect(headers['content-type']).toBe('application/json');
			expect(JSON.parse(body.toString())).toEqual({
				action: 'MANUAL_ALERT_CREATED',
				createdTime: expect.any(String),
				metadata: expect.objectContaining({ alertId: expect.any(Number), personId: 'cust-1001' }),
			});
			check(headers, body);
		} finally {
			await rx.close();
		}
	});

	test('transient errors: quick retries then the schedule; same bytes; events filter; delete target', async () => {
		const rx = await receiver([500, 503, 500, 500, 502, 200]);
		try {
			const { data: target } = await control.post('/webhooks', {
				url: rx.url,
				events: ['PERSON_CLEARED'],
			});
			await control.post('/webhooks/emit', { action: 'OTHER_EVENT', metadata: {} });
			await control.post('/webhooks/emit', {
				action: 'PERSON_CLEARED',
				metadata: { personId: 'x' },
			});
			const deliveries = await until(async () => {
				const d = (await control.get('/webhooks/deliveries')).data;
				return d.some((x: Json) => x.accepted) && d;
			});
			expect(deliveries.map((d: Json) => [d.attempt, d.status, d.accepted])).toEqual([
				[1, 500, false],
				[2, 503, false],
				[3, 500, false],
				[4, 500, false],
				[5, 502, false],
				[6, 200, true],
			]);
			expect(new Set(deliveries.map((d: Json) => d.eventId)).size).toBe(1);
			expect(new Set(rx.got.map((g) => g.body.toString())).size).toBe(1);
			expect((await control.delete(`/webhooks/${target.id}`)).status).toBe(200);
			expect((await control.get('/webhooks')).data).toEqual([]);
		} finally {
			await rx.close();
		}
	});

	test('a refused connection is retried; 4xx goes straight to the schedule; flush runs waiting retries now', async () => {
		await control.post('/config', { webhookRetryScale: 1 });
		const rx = await receiver([404]);
		try {
			await control.post('/webhooks', { url: rx.url });
			await control.post('/webhooks/emit', { action: 'ALERT_CREATED', metadata: { alertId: 1 } });
			await until(async () => rx.got.length === 1);
			await sleep(100);
			expect(rx.got).toHaveLength(1); // next attempt in 2 min
			expect((await control.post('/webhooks/flush')).data.flushed).toBe(1);
			const d = await until(async () => {
				const x = (await control.get('/webhooks/deliveries')).data;
				return x.some((e: Json) => e.accepted) && x;
			});
			expect(d.map((e: Json) => e.status)).toEqual([404, 200]);
		} finally {
			await rx.close();
		}
		await control.post('/config', { webhookRetryScale: 0.001 });
		await control.post('/webhooks', { url: 'http://127.0.0.1:9/closed' });
		await control.post('/webhooks/emit', { action: 'ALERT_CREATED', metadata: {} });
		const failed = await until(async () => {
			const x = (await control.get('/webhooks/deliveries')).data.filter((e: Json) =>
				e.url.endsWith('/closed'),
			);
			return x.length >= 4 && x;
		});
		expect(failed[0]).toMatchObject({ status: null, accepted: false, error: expect.any(String) });
	});
});
