import { randomUUID } from 'node:crypto';

import axios, { type AxiosInstance } from 'axios';

import { sandboxCredentialData } from '../harness/client';
import { context, control, n8n, ownerRest, runAml, type Json } from '../harness/context';
import { startSandbox } from '../sandbox';
import { mcpTools, textOf, type McpTools } from '../harness/mcp';

/**
 * Person ID, Custom List ID and Alert ID are resource locators. Each mode (From List, By ID, By URL,
 * an expression) runs in real n8n against the sandbox and what the service stored is checked; plain strings where a
 * locator is expected (workflows written through the API or by an AI builder) keep working; the Person ID list is called through n8n's REST endpoint the editor uses; and an
 * AI tool whose Person ID is a locator filled by `$fromAI` is called over MCP.
 */
const suffix = randomUUID().slice(0, 8);
const V12 = { typeVersion: 1 };
const rl = (mode: string, value: unknown, extra: Json = {}) => ({
	__rl: true,
	mode,
	value,
	...extra,
});

type Logged = { seq: number; method: string; path: string; status: number };
async function apiRequestsSince(mark: number): Promise<Logged[]> {
	return (await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api/'));
}

async function newList(name: string): Promise<string> {
	const { id } = await control.post<{ id: string }>('/custom-lists', {
		name,
		fields: [{ id: randomUUID(), name: 'name' }],
	});
	return id;
}

async function records(listId: string): Promise<Array<{ id: string; attributes: Json }>> {
	return await control.get(`/custom-lists/${listId}/records`);
}

/** What the editor sends to list a locator's From List entries (POST /rest/dynamic-node-parameters/resource-locator-results). */
async function listSearch(
	rest: AxiosInstance,
	opts: { filter?: string; paginationToken?: string; credential?: Json } = {},
) {
	return await rest.post('/dynamic-node-parameters/resource-locator-results', {
		nodeTypeAndVersion: { name: 'n8n-nodes-aml.aml', version: 1 },
		methodName: 'searchPersons',
		path: 'personId',
		currentNodeParameters: { resource: 'person', operation: 'get', personId: rl('list', '') },
		credentials: { amlOAuth2Api: opts.credential ?? context().credential },
		...(opts.filter !== undefined ? { filter: opts.filter } : {}),
		...(opts.paginationToken ? { paginationToken: opts.paginationToken } : {}),
	});
}

const customer = `loc-${suffix}`;
const lastName = `Locator${suffix}`;

beforeAll(async () => {
	const created = await runAml(
		{
			resource: 'person',
			operation: 'create',
			personId: customer,
			personType: 'INDIVIDUAL',
			attributesMode: 'json',
			attributesJson: JSON.stringify({ first_name: 'Lena', last_name: lastName }),
		},
		[{}],
		V12,
	);
	expect(created.status).toBe('success');
});

describe("Person ID → From List through n8n's REST endpoint (as the editor loads it)", () => {
	let rest: AxiosInstance;
	beforeAll(async () => {
		rest = await ownerRest();
	});

	test('a typed filter finds the person by last name: name and ID shown, ID as value, category described', async () => {
		const mark = await control.mark();
		const response = await listSearch(rest, { filter: lastName.toLowerCase() });
		expect(response.status).toBe(200);
		const result = response.data.data ?? response.data;
		expect(result.results).toEqual([
			{ name: `Lena ${lastName} (${customer})`, value: customer, description: 'Customer' },
		]);
		expect(result.paginationToken).toBeUndefined();
		const searches = (await apiRequestsSince(mark)).map((r) => `${r.method} ${r.path}`);
		expect(searches).toEqual(['POST /api/v2/persons/search', 'POST /api/v2/persons/search']);
	});

	test("without a filter the pages follow n8n's paginationToken to the end: every stored person once, customers then counterparties", async () => {
		// A sandbox of its own with a known set of persons: the run's shared sandbox holds tens of thousands (more
		// than the service pages through) that other files add and delete meanwhile.
		const own = await startSandbox();
		const credential = await n8n().createCredential(
			`AML locators list ${suffix}`,
			'amlOAuth2Api',
			sandboxCredentialData(own),
		);
		try {
			const token = (
				await axios.post(own.tokenUrl, 'grant_type=client_credentials', {
					auth: { username: own.clientId, password: own.clientSecret },
					headers: { 'content-type': 'application/x-www-form-urlencoded' },
				})
			).data.access_token;
			const api = axios.create({
				baseURL: `${own.baseUrl}/api`,
				headers: { Authorization: `Bearer ${token}` },
			});
			// Enough for three pages of customers and two of counterparties.
			for (let i = 0; i < 110; i++)
				await api.post('/v2/persons', {
					id: `page-${i}`,
					type: 'INDIVIDUAL',
					category: i < 65 ? 'CUSTOMER' : 'COUNTERPARTY',
					attributes: { first_name: 'Page', last_name: `P${i}` },
				});
			const stored = (await axios.get<Json[]>(`${own.controlUrl}/persons`)).data;
			const seen: Json[] = [];
			let next: string | undefined;
			let calls = 0;
			do {
				const response = await listSearch(rest, { paginationToken: next, credential });
				expect(response.status).toBe(200);
				const result = response.data.data ?? response.data;
				seen.push(...result.results);
				next = result.paginationToken;
				calls++;
			} while (next && calls < 20);
			console.log(
				`[locators] person list: ${seen.length} entries in ${calls} calls (${stored.length} stored)`,
			);
			expect(next).toBeUndefined();
			expect(calls).toBeGreaterThanOrEqual(3);
			const values = seen.map((entry) => entry.value);
			expect(new Set(values).size).toBe(values.length);
			expect([...values].sort()).toEqual(stored.map((p) => p.id).sort());
			const categoryOf = new Map(stored.map((p) => [p.id, p.category]));
			const categories = seen.map((entry) => entry.description);
			const firstCounterparty = categories.indexOf('Counterparty');
			expect(firstCounterparty).toBeGreaterThan(0);
			expect(categories.slice(0, firstCounterparty).every((c) => c === 'Customer')).toBe(true);
			expect(categories.slice(firstCounterparty).every((c) => c === 'Counterparty')).toBe(true);
			expect(
				seen.filter(
					(e) =>
						categoryOf.get(e.value) !==
						(e.description === 'Customer' ? 'CUSTOMER' : 'COUNTERPARTY'),
				),
			).toEqual([]);
		} finally {
			await n8n().deleteCredential(credential.id);
			await own.close();
		}
	});

	test("a failing search is n8n's usual error for the list, naming the service's answer, with no secret in it", async () => {
		await control.post('/faults', {
			rules: [{ method: 'POST', path: '/api/v2/persons/search$', errorRate: 1, errorStatus: 503 }],
		});
		let response;
		try {
			response = await listSearch(rest, { filter: 'anything' });
		} finally {
			await control.del('/faults');
		}
		console.log(
			`[locators] failed list: HTTP ${response.status} ${JSON.stringify(response.data).slice(0, 300)}`,
		);
		expect(response.status).toBeGreaterThanOrEqual(400);
		const text = JSON.stringify(response.data);
		expect(text).toMatch(/503|unavailable/i);
		const { issued } = await control.get<{ issued: string[] }>('/tokens');
		expect(issued.length).toBeGreaterThan(0);
		for (const secret of [context().sandbox.clientSecret, ...issued])
			expect(text).not.toContain(secret);
	});
});

describe('load options that read the Custom List ID', () => {
	test.each([
		[
			'By URL',
			1,
			rl('url', 'https://app.example.com/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10'),
		],
		['By ID', 1, rl('id', '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10')],
		[
			'a plain string (written through the API or by an AI builder)',
			1,
			'5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
		],
	])("%s: the list's fields (Map List Fields)", async (_what, version, customListId) => {
		const rest = await ownerRest();
		const response = await rest.post('/dynamic-node-parameters/resource-mapper-fields', {
			nodeTypeAndVersion: { name: 'n8n-nodes-aml.aml', version },
			methodName: 'getRecordFields',
			path: 'listFields',
			currentNodeParameters: {
				resource: 'customList',
				operation: 'create',
				customListId,
				attributesMode: 'mapper',
			},
			credentials: { amlOAuth2Api: context().credential },
		});
		expect(response.status).toBe(200);
		const fields = ((response.data.data ?? response.data)?.fields ?? []) as Array<{ id: string }>;
		expect(fields.map((f) => f.id).sort()).toEqual(['bank_account_numbers', 'name']);
	});
});

describe('every mode runs, and the service gets the ID', () => {
	test('Person → Get: From List value, By ID, By ID with an expression per item, and a plain string', async () => {
		const fromList = await runAml(
			{
				resource: 'person',
				operation: 'get',
				personId: rl('list', customer, { cachedResultName: `Lena ${lastName} (${customer})` }),
			},
			[{}],
			V12,
		);
		expect(fromList.status).toBe('success');
		expect(fromList.outputs[0][0]).toMatchObject({
			id: customer,
			attributes: { last_name: lastName },
		});

		const byId = await runAml(
			{ resource: 'person', operation: 'get', personId: rl('id', 'cust-1001') },
			[{}],
			V12,
		);
		expect(byId.outputs[0][0]).toMatchObject({ id: 'cust-1001' });

		const expression = await runAml(
			{ resource: 'person', operation: 'get', personId: rl('id', '={{ $json.id }}') },
			[{ id: customer }, { id: 'cust-1001' }],
			V12,
		);
		expect(expression.status).toBe('success');
		expect(expression.outputs[0].map((o) => o.id)).toEqual([customer, 'cust-1001']);

		// A plain string where a locator is expected (a workflow written by hand or by an agent) is the ID too.
		const plain = await runAml(
			{ resource: 'person', operation: 'get', personId: customer },
			[{}],
			V12,
		);
		expect(plain.outputs[0][0]).toMatchObject({ id: customer });
	});

	test('Transaction → Create with Person ID By ID from the item and From List: stored under that person', async () => {
		const run = await runAml(
			{
				resource: 'transaction',
				operation: 'create',
				personId: rl('id', '={{ $json.owner }}'),
				transactionId: '={{ $json.id }}',
				attributesMode: 'json',
				attributesJson:
					'={{ JSON.stringify({ amount: "12.00", type: "payment", direction: "I", timestamp: "2026-03-07T10:00:00Z" }) }}',
			},
			[{ owner: customer, id: `tx-${suffix}-1` }],
			V12,
		);
		expect(run.status).toBe('success');
		const listed = await runAml(
			{
				resource: 'transaction',
				operation: 'getAll',
				personId: rl('list', customer),
				returnAll: true,
			},
			[{}],
			V12,
		);
		expect(listed.status).toBe('success');
		expect(listed.outputs[0].map((t) => t.id)).toEqual([`tx-${suffix}-1`]);
		expect(
			(await control.get<Json[]>('/transactions', { personId: customer })).map((t) => t.id),
		).toEqual([`tx-${suffix}-1`]);
	});

	test('Custom List → Create Record and Get Record: By URL (both path forms, and an expression), By ID', async () => {
		const listId = await newList(`locators ${suffix}`);
		const create = (customListId: unknown, id: string) =>
			runAml(
				{
					resource: 'customList',
					operation: 'create',
					customListId,
					recordId: id,
					attributesMode: 'json',
					attributesJson: JSON.stringify({ name: id }),
				},
				[{ list: listId }],
				V12,
			);
		expect(
			(await create(rl('url', `https://app.example.com/custom-lists/${listId}`), 'r-url')).status,
		).toBe('success');
		expect(
			(
				await create(
					rl('url', `https://aml.example.org/org/7/lists/${listId}/records?page=2`),
					'r-lists',
				)
			).status,
		).toBe('success');
		expect(
			(
				await create(
					rl('url', "={{ 'https://app.example.com/custom-lists/' + $json.list }}"),
					'r-expr',
				)
			).status,
		).toBe('success');
		expect((await create(rl('id', listId), 'r-id')).status).toBe('success');
		expect((await records(listId)).map((r) => r.id).sort()).toEqual([
			'r-expr',
			'r-id',
			'r-lists',
			'r-url',
		]);

		const got = await runAml(
			{
				resource: 'customList',
				operation: 'get',
				customListId: rl('url', `https://app.example.com/lists/${listId}`),
				recordId: 'r-url',
			},
			[{}],
			V12,
		);
		expect(got.status).toBe('success');
		expect(got.outputs[0][0]).toMatchObject({ id: 'r-url', customListId: listId });
	});

	test('a link that names no custom list, or a list ID that is no UUID, fails naming item and field; nothing is sent', async () => {
		const mark = await control.mark();
		const noList = await runAml(
			{
				resource: 'customList',
				operation: 'get',
				customListId: rl('url', '={{ $json.link }}'),
				recordId: 'r-1',
			},
			[{ link: 'https://app.example.com/persons/cust-1' }],
			V12,
		);
		expect(noList.status).toBe('error');
		expect(noList.error?.message).toBe(
			'Item 0: "Custom List ID" must be an http(s) link whose path has /custom-lists/<id> or /lists/<id>, e.g. https://app.example.com/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10 (value: "https://app.example.com/persons/cust-1")',
		);
		const notUuid = await runAml(
			{
				resource: 'customList',
				operation: 'get',
				customListId: rl('url', '={{ $json.link }}'),
				recordId: 'r-1',
			},
			[{ link: 'https://app.example.com/custom-lists/blocklist' }],
			V12,
		);
		expect(notUuid.error?.message).toMatch(/^Item 0: "Custom List ID" must be a UUID/);
		const badPerson = await runAml(
			{ resource: 'person', operation: 'get', personId: rl('id', '={{ $json.id }}') },
			[{ id: 'cust-1001' }, { id: 'bad/id' }],
			V12,
		);
		expect(badPerson.error?.message).toMatch(/^Item 1: "Person ID" may only contain/);
		expect(await apiRequestsSince(mark)).toEqual([]);
	});

	test('Alert: Create Manual Alert with Person ID From List; Update Manual Alert By URL; Update Status By ID from the item', async () => {
		const created = await runAml(
			{
				resource: 'alert',
				operation: 'createManualAlert',
				personId: rl('list', customer),
				rationale: 'OTHER',
				rationaleComment: `locators ${suffix}`,
			},
			[{}],
			V12,
		);
		expect(created.status).toBe('success');
		const alertId = created.outputs[0][0].id as number;
		expect(
			(await control.get<Json[]>('/manual-alerts')).find((a) => a.id === alertId),
		).toMatchObject({ personId: customer });

		const updated = await runAml(
			{
				resource: 'alert',
				operation: 'updateManualAlert',
				alertId: rl('url', `https://app.example.com/alerts/${alertId}?tab=notes`),
				rationale: 'SUSPICIOUS_ACTIVITY',
			},
			[{}],
			V12,
		);
		expect(updated.status).toBe('success');
		expect(
			(await control.get<Json[]>('/manual-alerts')).find((a) => a.id === alertId),
		).toMatchObject({ rationale: 'SUSPICIOUS_ACTIVITY' });

		const status = await runAml(
			{
				resource: 'alert',
				operation: 'updateStatus',
				alertType: 'MANUAL',
				alertId: rl('id', '={{ $json.alert }}'),
				status: 'CLOSED',
			},
			[{ alert: alertId }],
			V12,
		);
		expect(status.status).toBe('success');
		expect(
			(await control.get<Json[]>('/manual-alerts')).find((a) => a.id === alertId),
		).toMatchObject({ status: 'CLOSED' });

		const mark = await control.mark();
		const wrongLink = await runAml(
			{
				resource: 'alert',
				operation: 'updateStatus',
				alertType: 'MANUAL',
				alertId: rl('url', '={{ $json.link }}'),
				status: 'NEW',
			},
			[{ link: `https://app.example.com/persons/${alertId}` }],
			V12,
		);
		expect(wrongLink.error?.message).toMatch(
			/^Item 0: "Alert ID" must be an http\(s\) link whose path has \/alerts\/<id>/,
		);
		expect(await apiRequestsSince(mark)).toEqual([]);
	});
});

describe("workflows written through n8n's API, by an AI builder or by hand with plain strings where a locator is expected keep working", () => {
	test.each([1])(
		'version %s: Person ID, Custom List ID and Alert ID as plain strings and expressions',
		async (typeVersion) => {
			const person = await runAml(
				{ resource: 'person', operation: 'get', personId: customer },
				[{}],
				{ typeVersion },
			);
			expect(person.outputs[0][0]).toMatchObject({ id: customer });
			const listed = await runAml(
				{
					resource: 'transaction',
					operation: 'getAll',
					personId: '={{ $json.owner }}',
					returnAll: true,
				},
				[{ owner: customer }],
				{ typeVersion },
			);
			expect(listed.outputs[0].map((t) => t.id)).toContain(`tx-${suffix}-1`);

			const listId = await newList(`plain ${typeVersion} ${suffix}`);
			const record = await runAml(
				{
					resource: 'customList',
					operation: 'create',
					customListId: listId,
					recordId: 'p-1',
					attributesMode: 'json',
					attributesJson: '{"name":"Plain"}',
				},
				[{}],
				{ typeVersion },
			);
			expect(record.status).toBe('success');
			expect((await records(listId)).map((r) => r.id)).toEqual(['p-1']);

			const alert = await runAml(
				{
					resource: 'alert',
					operation: 'createManualAlert',
					personId: customer,
					rationale: 'OTHER',
				},
				[{}],
				{ typeVersion },
			);
			const alertId = alert.outputs[0][0].id as number;
			const status = await runAml(
				{
					resource: 'alert',
					operation: 'updateStatus',
					alertType: 'MANUAL',
					alertId: String(alertId),
					status: 'CLOSED',
				},
				[{}],
				{ typeVersion },
			);
			expect(status.status).toBe('success');
			expect(
				(await control.get<Json[]>('/manual-alerts')).find((a) => a.id === alertId),
			).toMatchObject({ status: 'CLOSED' });
		},
	);
});

describe('AI tool: an AML tool whose Person ID locator is filled by $fromAI', () => {
	let tools: McpTools | undefined;

	beforeAll(async () => {
		const path = `aml-locators-${suffix}`;
		tools = await mcpTools(
			{
				name: `locators tool ${suffix}`,
				nodes: [
					{
						id: randomUUID(),
						name: 'MCP Server Trigger',
						type: '@n8n/n8n-nodes-langchain.mcpTrigger',
						typeVersion: 2,
						position: [0, 0],
						webhookId: randomUUID(),
						parameters: { path },
					},
					{
						id: randomUUID(),
						name: 'get_person',
						type: 'n8n-nodes-aml.amlTool',
						typeVersion: 1,
						position: [0, 200],
						parameters: {
							resource: 'person',
							operation: 'get',
							personId: rl(
								'id',
								"={{ $fromAI('personId', 'ID of the person: letters, digits, - _ : .', 'string') }}",
							),
							descriptionType: 'manual',
							toolDescription: 'Read a stored person: type, attributes, status.',
						},
						credentials: { amlOAuth2Api: context().credential },
					},
				],
				connections: {
					get_person: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
				},
			},
			path,
		);
	});

	afterAll(async () => {
		await tools?.close();
	});

	test('the tool asks for personId alone, and a call reads that person', async () => {
		const client = tools!.client;
		const listed = (await client.listTools()).tools as Json[];
		const tool = listed.find((t) => t.name === 'get_person') as Json;
		console.log(`[locators] tool input schema: ${JSON.stringify(tool?.inputSchema)}`);
		expect(Object.keys(tool.inputSchema.properties)).toEqual(['personId']);
		expect(tool.inputSchema.properties.personId).toMatchObject({
			type: 'string',
			description: 'ID of the person: letters, digits, - _ : .',
		});
		const answer = await client.callTool({ name: 'get_person', arguments: { personId: customer } });
		expect(answer.isError ?? false).toBe(false);
		// Output in tool use is Simplified by default: the person's name, not its attributes
		expect(JSON.parse(textOf(answer))[0]).toMatchObject({
			id: customer,
			name: expect.stringContaining(lastName),
		});
	});
});
