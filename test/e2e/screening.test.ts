import axios from 'axios';

import { context, control, runAml } from '../harness/context';

/** Screening resource in real n8n against the sandbox's synthetic screening list. */
type Logged = { seq: number; method: string; path: string; status: number };

async function apiRequestsSince(mark: number): Promise<Logged[]> {
	return (await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api'));
}

async function storedCounts(): Promise<{ alerts: number; screening: number; manual: number }> {
	return {
		alerts: (await control.get<any[]>('/alerts')).length,
		screening: (await control.get<any[]>('/screening-alerts')).length,
		manual: (await control.get<any[]>('/manual-alerts')).length,
	};
}

describe('Screening resource in real n8n', () => {
	test('Search finds a listed name from a transliteration and a typo, one item per result, and stores nothing', async () => {
		const before = await storedCounts();
		const mark = await control.mark();
		const run = await runAml(
			{
				resource: 'screening',
				operation: 'search',
				name: '={{ $json.name }}',
				recordEntityType: 'PERSON',
				output: 'perMatch',
				simplify: false,
				configurations: {
					configuration: [
						{ type: 'SANCTION', matchType: 'FUZZY_MATCH', selectorGroupCodes: ['SANCTIONS'] },
					],
				},
			},
			[{ name: 'Wiktor Drabenko' }, { name: 'Viktr Drabenko' }],
		);
		expect(run.status).toBe('success');
		const out = run.outputs[0];
		expect(out.length).toBeGreaterThanOrEqual(2);
		const drabenko = out.filter((r) => r.id === 'rec-1');
		expect(drabenko).toHaveLength(2);
		expect(drabenko[0]).toMatchObject({
			type: 'PERSON',
			screeningType: 'SANCTION',
			sanctionList: 'Synthetic Sanctions List',
		});
		expect(drabenko[0].identities[0]).toEqual({ value: 'Viktor Drabenko', type: 'NAME' });

		const requests = await apiRequestsSince(mark);
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			'POST /api/v2/screening-searches',
			'POST /api/v2/screening-searches',
		]);
		expect(await storedCounts()).toEqual(before);
	});

	test('one item per searched name, also without a match (matched: false), Simplify applied to its matches; no configuration is an error before any request', async () => {
		const search = (extra: Record<string, unknown> = {}) => ({
			resource: 'screening',
			operation: 'search',
			name: '={{ $json.name }}',
			recordEntityType: 'ALL',
			simplify: true,
			configurations: {
				configuration: [{ type: 'SANCTION', matchType: 'FUZZY_MATCH', score: 90 }],
			},
			...extra,
		});
		const run = await runAml(search(), [
			{ name: 'Viktor Drabenko' },
			{ name: 'Ordinary Shopkeeper Zz' },
		]);
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toHaveLength(2);
		expect(run.outputs[0][0]).toMatchObject({
			name: 'Viktor Drabenko',
			matched: true,
			matchCount: 1,
			matches: [{ id: 'rec-1', name: 'Viktor Drabenko' }],
		});
		expect(run.outputs[0][1]).toEqual({
			name: 'Ordinary Shopkeeper Zz',
			recordEntityType: 'ALL',
			matched: false,
			matchCount: 0,
			matches: [],
		});

		const mark = await control.mark();
		const none = await runAml(search({ configurations: {} }), [{ name: 'Viktor Drabenko' }]);
		expect(none.status).toBe('error');
		expect(none.error?.message).toMatch(
			/Item 0: "Configurations" needs at least one configuration/,
		);
		expect((await apiRequestsSince(mark)).filter((r) => r.path.includes('screening'))).toHaveLength(
			0,
		);
	});

	test('Search with Simplify and a group filter', async () => {
		const run = await runAml({
			resource: 'screening',
			operation: 'search',
			name: 'Viktor Drabenko',
			recordEntityType: 'ALL',
			output: 'perMatch',
			simplify: true,
			configurations: {
				configuration: [{ type: 'SANCTION', matchType: 'FUZZY_MATCH', score: 90 }],
			},
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toEqual({
			id: 'rec-1',
			name: 'Viktor Drabenko',
			score: 100,
			list: 'Synthetic Sanctions List',
			type: 'SANCTION',
			recordType: 'PERSON',
			countries: ['RU'],
		});

		// The PEP group does not hold the sanctioned record: no result, so no output item.
		const pep = await runAml({
			resource: 'screening',
			operation: 'search',
			name: 'Viktor Drabenko',
			recordEntityType: 'ALL',
			configurations: { configuration: [{ selectorGroupCodes: ['PEP'] }] },
		});
		expect(pep.status).toBe('success');
		expect((pep.outputs[0] ?? []).filter((r) => r.id === 'rec-1')).toHaveLength(0);
	});

	test('Get List Groups returns one item per active group', async () => {
		const run = await runAml({ resource: 'screening', operation: 'getListGroups' });
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toEqual([
			{ code: 'SANCTIONS', name: 'Sanctions' },
			{ code: 'PEP', name: 'Politically exposed persons' },
			{ code: 'ADVERSE_MEDIA', name: 'Adverse media' },
		]);
	});

	test("load options: list groups through n8n's REST endpoint, sorted by name, code as value", async () => {
		const c = context();
		const rest = axios.create({
			baseURL: `${c.n8n.baseUrl}/rest`,
			validateStatus: () => true,
			headers: { 'browser-id': 'aml-e2e-screening' },
		});
		const login = await rest.post('/login', {
			emailOrLdapLoginId: 'owner@aml-demo.test',
			password: 'AmlDemo-Passw0rd',
		});
		if (login.status !== 200) {
			console.warn(`load-options check skipped: n8n owner login answered ${login.status}`);
			return;
		}
		const cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0];
		const response = await rest.post(
			'/dynamic-node-parameters/options',
			{
				nodeTypeAndVersion: { name: 'n8n-nodes-aml.aml', version: 1 },
				methodName: 'getListGroups',
				path: 'configurations.configuration[0].selectorGroupCodes',
				currentNodeParameters: {
					resource: 'screening',
					operation: 'search',
					name: 'x',
					recordEntityType: 'ALL',
					configurations: { configuration: [{ selectorGroupCodes: [] }] },
				},
				credentials: { amlOAuth2Api: c.credential },
			},
			{ headers: { Cookie: cookie } },
		);
		expect(response.status).toBe(200);
		const options = (response.data.data ?? response.data) as Array<{ name: string; value: string }>;
		expect(options.map((o) => [o.name, o.value])).toEqual([
			['Adverse media', 'ADVERSE_MEDIA'],
			['Politically exposed persons', 'PEP'],
			['Sanctions', 'SANCTIONS'],
		]);
	});

	describe('bad input fails before any request, naming item and field', () => {
		test.each([
			[
				'2-character name',
				{
					resource: 'screening',
					operation: 'search',
					name: '={{ $json.name }}',
					recordEntityType: 'ALL',
				},
				[{ name: 'Viktor' }, { name: 'Al' }],
				/Item 1: "Name" must have at least 3 characters \(has 2\)/,
			],
			[
				'spaces around a 2-character name',
				{ resource: 'screening', operation: 'search', name: '  Al  ', recordEntityType: 'ALL' },
				[{}],
				/Item 0: "Name" must have at least 3 characters/,
			],
			[
				'list id that is not a UUID',
				{
					resource: 'screening',
					operation: 'search',
					name: 'Viktor Drabenko',
					recordEntityType: 'ALL',
					configurations: { configuration: [{ type: 'SANCTION' }, { listId: 'blocklist' }] },
				},
				[{}],
				/Item 0: "Configurations\[2\] List ID" must be a UUID/,
			],
		])('%s', async (_name, parameters, items, message) => {
			const mark = await control.mark();
			const run = await runAml(parameters, items);
			expect(run.status).toBe('error');
			expect(run.error?.message).toMatch(message);
			expect(run.error?.description).toMatch(/Nothing was sent to the AML service/);
			expect(
				(await apiRequestsSince(mark)).filter((r) => r.path.includes('screening')),
			).toHaveLength(0);
		});
	});
});
