import axios, { type AxiosInstance } from 'axios';

import { startSandbox, DEMO_CUSTOM_LIST_ID } from './index';

type Started = Awaited<ReturnType<typeof startSandbox>>;

let sb: Started;
let api: AxiosInstance;

async function token(): Promise<string> {
	const r = await axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
		auth: { username: sb.clientId, password: sb.clientSecret },
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
	});
	return r.data.access_token;
}

beforeAll(async () => {
	sb = await startSandbox({ webhookRetryScale: 0.001, deletionDelayMs: 200 });
	api = axios.create({ baseURL: `${sb.baseUrl}/api`, validateStatus: () => true });
	api.defaults.headers.common.Authorization = `Bearer ${await token()}`;
});
afterAll(async () => sb.close());

describe('token endpoint', () => {
	test('5 requests per 60 s, then 429 with Retry-After; bad secret 401; unknown bearer 401; a changed limit starts a new window', async () => {
		await axios.post(`${sb.controlUrl}/reset`, {});
		const call = (secret = sb.clientSecret) =>
			axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
				auth: { username: sb.clientId, password: secret },
				validateStatus: () => true,
			});
		expect((await call('wrong')).status).toBe(401);
		for (let i = 0; i < 4; i++) expect((await call()).status).toBe(200);
		const limited = await call();
		expect(limited.status).toBe(429);
		expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
		expect(
			(
				await axios.get(`${sb.baseUrl}/api/v1/persons/cust-1001`, {
					headers: { Authorization: 'Bearer nope' },
					validateStatus: () => true,
				})
			).status,
		).toBe(401);
		// A changed limit counts from then: the requests made before it are forgotten.
		await axios.post(`${sb.controlUrl}/config`, { tokenRateLimit: { max: 5, windowSeconds: 60 } });
		expect((await call()).status).toBe(200);
		await axios.post(`${sb.controlUrl}/reset`, {});
		api.defaults.headers.common.Authorization = `Bearer ${await token()}`;
	});
});

describe('request rules (400 with a message per rule)', () => {
	test.each([
		[
			'bad id character',
			'post',
			'/v2/persons',
			{ id: 'a b', type: 'INDIVIDUAL', attributes: {} },
			400,
		],
		['missing type', 'post', '/v2/persons', { id: 'x1', attributes: {} }, 400],
		[
			'dot in key',
			'post',
			'/v2/persons',
			{ id: 'x2', type: 'INDIVIDUAL', attributes: { 'a.b': 'c' } },
			400,
		],
		[
			'depth 3',
			'post',
			'/v2/persons',
			{ id: 'x3', type: 'INDIVIDUAL', attributes: { a: { b: { c: 'd' } } } },
			400,
		],
		[
			'existing id',
			'post',
			'/v2/persons',
			{ id: 'cust-1001', type: 'INDIVIDUAL', attributes: {} },
			422,
		],
		[
			'non-decimal amount',
			'post',
			'/v1/persons/cust-1001/transactions',
			{ id: 't-x', attributes: { amount: '1,000' } },
			400,
		],
		[
			'7 fractional digits',
			'post',
			'/v1/persons/cust-1001/transactions',
			{ id: 't-y', attributes: { amount: '1', timestamp: '2026-01-01T00:00:00.1234567Z' } },
			400,
		],
		[
			'size 51',
			'post',
			'/v2/persons/search',
			{ page: 0, size: 51, filters: [], logicalOperator: 'AND', category: 'CUSTOMER' },
			400,
		],
		[
			'6 filters',
			'post',
			'/v2/persons/search',
			{
				page: 0,
				size: 5,
				filters: Array(6).fill({ attribute: 'country', operator: 'EXISTS' }),
				logicalOperator: 'AND',
				category: 'CUSTOMER',
			},
			400,
		],
		[
			'2-char screening name',
			'post',
			'/v2/screening-searches',
			{ name: 'ab', recordEntityType: 'ALL', configurations: [] },
			400,
		],
		[
			'1001-char comment',
			'post',
			'/v1/manual-alerts',
			{ personId: 'cust-1001', rationale: 'OTHER', rationaleComment: 'x'.repeat(1001) },
			400,
		],
		['empty note', 'post', '/v1/persons/cust-1001/notes', { content: ' ' }, 400],
		[
			'unknown status code',
			'put',
			'/v1/alerts/status',
			{ alertType: 'MONITORING', alertId: 1, status: 'NOPE' },
			404,
		],
		['unknown person', 'get', '/v1/persons/nobody', undefined, 404],
	])('%s', async (_name, method, path, body, status) => {
		const r = await (api as any)[method](path, body);
		expect(r.status).toBe(status);
		expect(r.data).toBeTruthy();
	});

	test('create person and create transaction errors are text/plain; others JSON', async () => {
		const person = await api.post('/v2/persons', {
			id: 'cust-1001',
			type: 'INDIVIDUAL',
			attributes: {},
		});
		expect(person.headers['content-type']).toMatch(/text\/plain/);
		const other = await api.get('/v1/persons/nobody');
		expect(other.headers['content-type']).toMatch(/json/);
		expect(other.data.message).toMatch(/not found/);
	});
});

describe('semantics', () => {
	test('v2 patch merges (arrays by id), put replaces', async () => {
		await api.post('/v2/persons', {
			id: 'sem-1',
			type: 'LEGAL',
			attributes: { company_name: 'A', shareholders: [{ id: 's1', name: 'X' }] },
		});
		await api.patch('/v2/persons/sem-1', {
			attributes: {
				city: 'Oslo',
				shareholders: [
					{ id: 's1', share: '50' },
					{ id: 's2', name: 'Y' },
				],
			},
		});
		let p = (await api.get('/v1/persons/sem-1')).data;
		expect(p.attributes).toEqual({
			company_name: 'A',
			city: 'Oslo',
			shareholders: [
				{ id: 's1', name: 'X', share: '50' },
				{ id: 's2', name: 'Y' },
			],
		});
		await api.put('/v2/persons/sem-1', { type: 'LEGAL', attributes: { company_name: 'B' } });
		p = (await api.get('/v1/persons/sem-1')).data;
		expect(p.attributes).toEqual({ company_name: 'B' });
	});

	test('transaction update accepts only new keys and status', async () => {
		await api.post('/v1/persons/cust-1001/transactions', {
			id: 'sem-tx',
			attributes: { amount: '10.00', type: 'payment' },
		});
		await api.patch('/v1/persons/cust-1001/transactions/sem-tx', {
			id: 'sem-tx',
			attributes: { amount: '99.00', status: 'BOOKED', reference: 'R1' },
		});
		const t = (await api.get('/v1/persons/cust-1001/transactions/sem-tx')).data;
		expect(t.attributes).toEqual({
			amount: '10.00',
			type: 'payment',
			status: 'BOOKED',
			reference: 'R1',
		});
	});

	test('deletion is asynchronous; 403 when switched off', async () => {
		await api.post('/v2/persons', { id: 'del-1', type: 'INDIVIDUAL', attributes: {} });
		expect((await api.delete('/v2/persons/del-1')).status).toBe(202);
		expect((await api.get('/v1/persons/del-1')).status).toBe(200);
		await new Promise((r) => setTimeout(r, 300));
		expect((await api.get('/v1/persons/del-1')).status).toBe(404);
		await axios.post(`${sb.controlUrl}/config`, { personDeletionEnabled: false });
		expect((await api.delete('/v2/persons/cust-1002')).status).toBe(403);
		await axios.post(`${sb.controlUrl}/config`, { personDeletionEnabled: true });
	});

	test('online monitoring: large amount creates one alert; clean transaction none; all-results shows low scores', async () => {
		await api.post('/v1/persons/cust-1001/transactions', {
			id: 'mon-big',
			attributes: { amount: '25000.00', timestamp: '2026-05-01T10:00:00Z' },
		});
		const big = (await api.post('/v1/transactions/mon-big/monitoring-checks')).data;
		expect(big.results).toHaveLength(1);
		expect(big.results[0].alertId).toBeGreaterThan(0);
		await api.post('/v1/persons/cust-1001/transactions', {
			id: 'mon-small',
			attributes: { amount: '20.00', timestamp: '2026-05-01T10:00:00Z' },
		});
		expect((await api.post('/v1/transactions/mon-small/monitoring-checks')).data.results).toEqual(
			[],
		);
		await api.post('/v2/persons', {
			id: 'mon-ir',
			type: 'INDIVIDUAL',
			attributes: { country: 'SY' },
		});
		expect(
			(await api.post('/v1/persons/mon-ir/monitoring-checks?all-results=true')).data.results.length,
		).toBeGreaterThan(0);
	});

	test('screening: transliterated sanctioned name matches; goodlisted name is cleared; search stores nothing', async () => {
		const m = (await api.post('/v1/persons/cust-1006/screening-checks')).data;
		expect(m.matches[0].sanctionList).toBe('Synthetic Sanctions List');
		const hits = (await api.get(`/v1/screening-alerts/${m.matches[0].alertId}/hits?page=0&size=50`))
			.data;
		expect(hits.total).toBeGreaterThan(0);
		await api.post('/v2/persons', {
			id: 'good-p',
			type: 'INDIVIDUAL',
			attributes: { first_name: 'Marta', last_name: 'Vukovic' },
		});
		expect((await api.post('/v1/persons/good-p/screening-checks')).data.matches).toEqual([]);
		const before = (await axios.get(`${sb.controlUrl}/screening-alerts`)).data.length;
		const search = (
			await api.post('/v2/screening-searches', {
				name: 'Viktor Drabenko',
				recordEntityType: 'ALL',
				configurations: [],
			})
		).data;
		expect(search[0].sanctionList).toBeDefined();
		expect((await axios.get(`${sb.controlUrl}/screening-alerts`)).data.length).toBe(before);
	});

	test('checksReportCreatedAlertsOnly: a repeated check answers only the alerts it creates (empty), as the interface allows', async () => {
		await axios.post(`${sb.controlUrl}/config`, { checksReportCreatedAlertsOnly: true });
		try {
			await api.post('/v1/persons/cust-1001/transactions', {
				id: 'once-big',
				attributes: {
					amount: '25000.00',
					timestamp: '2026-05-02T10:00:00Z',
					receiver_name: 'Viktor Drabenko',
				},
			});
			const first = (await api.post('/v1/transactions/once-big/monitoring-checks')).data;
			expect(first.results).toHaveLength(1);
			const again = (await api.post('/v1/transactions/once-big/monitoring-checks')).data;
			expect(again.results).toEqual([]);
			const screened = (await api.post('/v1/transactions/once-big/screening-checks')).data;
			expect(screened.matches.length).toBeGreaterThan(0);
			expect((await api.post('/v1/transactions/once-big/screening-checks')).data.matches).toEqual(
				[],
			);
			// the alerts are there, unresolved
			expect((await api.get('/v1/transactions/once-big/unresolved-alerts')).data).toEqual({
				hasUnresolvedAlerts: true,
			});
		} finally {
			await axios.post(`${sb.controlUrl}/config`, { checksReportCreatedAlertsOnly: false });
		}
	});

	test('alertsOnStore: on, storing a very large transaction raises its OFFLINE alert; off, only a check raises alerts', async () => {
		const alertsOf = async (id: string) =>
			(
				(await axios.get(`${sb.controlUrl}/alerts`)).data as Array<{ transactionId: string }>
			).filter((a) => a.transactionId === id);
		const store = async (id: string) =>
			await api.post('/v1/persons/cust-1001/transactions', {
				id,
				attributes: { amount: '60000.00', timestamp: '2026-05-03T10:00:00Z' },
			});
		await store('store-alerts-on');
		expect(await alertsOf('store-alerts-on')).toHaveLength(1);
		await axios.post(`${sb.controlUrl}/config`, { alertsOnStore: false });
		try {
			await store('store-alerts-off');
			expect(await alertsOf('store-alerts-off')).toEqual([]);
			await api.post('/v1/transactions/store-alerts-off/monitoring-checks');
			expect((await alertsOf('store-alerts-off')).length).toBeGreaterThan(0);
			expect(
				(
					await axios
						.post(`${sb.controlUrl}/config`, { alertsOnStore: 'no' })
						.catch((e) => e.response)
				).status,
			).toBe(400);
		} finally {
			await axios.post(`${sb.controlUrl}/config`, { alertsOnStore: true });
		}
	});

	test('custom list: duplicate 422, archived update 409, paged shape', async () => {
		const base = `/v1/custom-lists/${DEMO_CUSTOM_LIST_ID}/records`;
		expect((await api.post(base, { id: 'blk-1', attributes: {} })).status).toBe(422);
		expect((await api.put(`${base}/blk-3`, { id: 'blk-3', attributes: {} })).status).toBe(409);
		const page = (await api.get(`${base}?page=0&size=1`)).data;
		expect(Object.keys(page).sort()).toEqual(['content', 'number', 'size', 'total']);
	});

	test('10,000-result cap on the deprecated list', async () => {
		const r = (await api.get('/v1/persons?page=0&size=1')).data;
		expect(r.total).toBeLessThanOrEqual(10000);
		expect((await api.get('/v1/persons?page=10000&size=1')).status).toBe(400);
	});
});

describe('uploads (state machine)', () => {
	async function upload(
		type: string,
		csv: string,
	): Promise<{ status: string; reason: string | null }> {
		const form = new FormData();
		form.append('file', new Blob([csv], { type: 'text/csv' }), 'data.csv');
		const accepted = await api.post(`/v1/data-upload?type=${type}`, form);
		expect(accepted.status).toBe(202);
		for (let i = 0; i < 100; i++) {
			const s = (await api.get(`/v1/data-upload/${accepted.data.id}/status`)).data;
			if (s.status !== 'PROCESSING') return s;
			await new Promise((r) => setTimeout(r, 50));
		}
		throw new Error('upload did not finish');
	}

	test('COMPLETED', async () => {
		expect(
			(await upload('PERSON', 'id,type,first_name\nup-1,INDIVIDUAL,Ann\nup-2,LEGAL,\n')).status,
		).toBe('COMPLETED');
		expect((await api.get('/v1/persons/up-2')).status).toBe(200);
	});

	test('FAILED stores nothing and names the first error', async () => {
		const s = await upload(
			'TRANSACTION',
			'id,person_id,timestamp,amount,direction\nf-1,cust-1001,2026-01-01T00:00:00Z,1.00,I\nf-2,cust-1001,yesterday,2.00,O\n',
		);
		expect(s.status).toBe('FAILED');
		expect(s.reason).toMatch(/line 3/);
		expect((await api.get('/v1/persons/cust-1001/transactions/f-1')).status).toBe(404);
	});

	test('PARTIALLY_COMPLETED after a bad batch names last saved and first not saved ids', async () => {
		const rows = Array.from({ length: 1500 }, (_, i) => `pc-${i},INDIVIDUAL`);
		rows[1200] = 'pc-5,INDIVIDUAL';
		const s = await upload('PERSON', `id,type\n${rows.join('\n')}\n`);
		expect(s.status).toBe('PARTIALLY_COMPLETED');
		expect(s.reason).toContain('pc-5');
		expect(s.reason).toContain('Last saved id: pc-999');
		expect(s.reason).toContain('First id not saved: pc-1000');
		// the batch before is stored whole; no row of the failing batch or after it
		expect((await api.get('/v1/persons/pc-999')).status).toBe(200);
		for (const id of ['pc-1000', 'pc-1199', 'pc-1201', 'pc-1499'])
			expect((await api.get(`/v1/persons/${id}`)).status).toBe(404);
	});

	test('a transaction whose person is missing: PARTIALLY_COMPLETED naming the transaction; the batches before stored', async () => {
		const rows = Array.from(
			{ length: 1200 },
			(_, i) => `pt-${i},${i === 1100 ? 'nobody' : 'cust-1001'},2026-01-01T00:00:00Z,1.00,I`,
		);
		const s = await upload(
			'TRANSACTION',
			`id,person_id,timestamp,amount,direction\n${rows.join('\n')}\n`,
		);
		expect(s.status).toBe('PARTIALLY_COMPLETED');
		expect(s.reason).toMatch(/Person nobody of transaction pt-1100 does not exist \(id pt-1100\)/);
		expect(s.reason).toContain('Last saved id: pt-999');
		expect(s.reason).toContain('First id not saved: pt-1000');
		expect((await api.get('/v1/persons/cust-1001/transactions/pt-999')).status).toBe(200);
		expect((await api.get('/v1/persons/cust-1001/transactions/pt-1000')).status).toBe(404);
	});
});

describe('webhooks', () => {
	test('delivery with HMAC, retries until accepted, same body each time', async () => {
		const http = await import('node:http');
		const { createHmac } = await import('node:crypto');
		const bodies: string[] = [];
		let calls = 0;
		const receiver = http.createServer((req, res) => {
			let b = '';
			req.on('data', (c) => (b += c));
			req.on('end', () => {
				calls++;
				expect(req.headers['x-aml-signature']).toBe(
					createHmac('sha256', 'k').update(b).digest('hex'),
				);
				bodies.push(b);
				res.writeHead(calls < 3 ? 503 : 200).end();
			});
		});
		await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
		const port = (receiver.address() as { port: number }).port;
		await axios.post(`${sb.controlUrl}/webhooks`, {
			url: `http://127.0.0.1:${port}/hook`,
			events: ['MANUAL_ALERT_CREATED'],
			verification: { mode: 'hmac', secret: 'k' },
		});
		await api.post('/v1/manual-alerts', { personId: 'cust-1001', rationale: 'OTHER' });
		for (let i = 0; i < 100 && calls < 3; i++) await new Promise((r) => setTimeout(r, 20));
		expect(calls).toBe(3);
		expect(new Set(bodies).size).toBe(1);
		expect(JSON.parse(bodies[0])).toMatchObject({
			action: 'MANUAL_ALERT_CREATED',
			metadata: { personId: 'cust-1001' },
		});
		receiver.close();
	});
});
