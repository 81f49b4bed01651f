import { context, control, ownerRest, runAml } from '../harness/context';
import type { Json } from '../harness/client';

/** Custom List resource in real n8n against the sandbox: CRUD, upsert, usable fields, 409 on archived. */

const DEMO_LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';

async function newList(name: string): Promise<string> {
	const { id } = await control.post<{ id: string }>('/custom-lists', {
		name,
		fields: [{ id: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' }],
	});
	return id;
}

async function stored(
	listId: string,
): Promise<Array<{ id: string; attributes: Json; archived: boolean }>> {
	return await control.get(`/custom-lists/${listId}/records`);
}

describe('custom list records in real n8n', () => {
	let listId: string;

	beforeAll(async () => {
		listId = await newList(`crud ${Date.now()}`);
	});

	test('Create Record stores id and attributes (input item fields, JSON array kept)', async () => {
		const run = await runAml(
			{
				resource: 'customList',
				operation: 'create',
				customListId: listId,
				recordId: '={{ $json.id }}',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			[
				{
					id: 'r-1',
					name: 'Nordwind Shell Corp',
					country: 'CY',
					bank_account_numbers: ['CY17002001280000001200527600'],
				},
				{ id: 'r-2', name: 'Jaroslav Mekota', country: 'CZ' },
				{ id: 1003, name: 'Numeric Id Ltd' },
			],
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0].map((o) => o.id)).toEqual(['r-1', 'r-2', '1003']);
		expect(run.outputs[0][0].customListId).toBe(listId);
		const records = await stored(listId);
		expect(records.find((r) => r.id === 'r-1')).toEqual({
			id: 'r-1',
			attributes: {
				name: 'Nordwind Shell Corp',
				country: 'CY',
				bank_account_numbers: ['CY17002001280000001200527600'],
			},
			archived: false,
		});
		expect(records.find((r) => r.id === '1003')?.attributes).toEqual({ name: 'Numeric Id Ltd' });
	});

	test('Create Record with an existing id fails with 422 "already exists"', async () => {
		const run = await runAml({
			resource: 'customList',
			operation: 'create',
			customListId: listId,
			recordId: 'r-2',
			attributesMode: 'json',
			attributesJson: '{"name":"Other"}',
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Already exists/);
		expect(run.error?.message).toMatch(/r-2 already exists/);
		expect((await stored(listId)).find((r) => r.id === 'r-2')?.attributes).toEqual({
			name: 'Jaroslav Mekota',
			country: 'CZ',
		});
	});

	test('bad custom list id and bad record id fail before any request', async () => {
		const before = await control.mark();
		const badList = await runAml({
			resource: 'customList',
			operation: 'get',
			customListId: 'not-a-uuid',
			recordId: 'r-1',
		});
		expect(badList.status).toBe('error');
		expect(badList.error?.message).toMatch(/Item 0: "Custom List ID" must be a UUID/);
		const badId = await runAml(
			{
				resource: 'customList',
				operation: 'get',
				customListId: listId,
				recordId: '={{ $json.id }}',
			},
			[{ id: 'r-1' }, { id: 'bad id' }],
		);
		expect(badId.status).toBe('error');
		expect(badId.error?.message).toMatch(/Item 1: "Record ID" may only contain/);
		expect(
			(await control.requestsSince(before)).filter((r) => r.path.startsWith('/api')),
		).toHaveLength(0);
	});

	test('Get Record and Get Many (limit and return all)', async () => {
		const get = await runAml({
			resource: 'customList',
			operation: 'get',
			customListId: listId,
			recordId: 'r-1',
		});
		expect(get.outputs[0][0]).toMatchObject({
			id: 'r-1',
			attributes: { name: 'Nordwind Shell Corp' },
		});
		const limited = await runAml({
			resource: 'customList',
			operation: 'getAll',
			customListId: listId,
			returnAll: false,
			limit: 2,
		});
		expect(limited.outputs[0]).toHaveLength(2);
		const all = await runAml({
			resource: 'customList',
			operation: 'getAll',
			customListId: listId,
			returnAll: true,
		});
		expect(all.outputs[0].map((r) => r.id).sort()).toEqual(['1003', 'r-1', 'r-2']);
	});

	test('Update Record replaces the attributes; JSON field text becomes an array', async () => {
		const run = await runAml({
			resource: 'customList',
			operation: 'update',
			customListId: listId,
			recordId: 'r-2',
			attributesMode: 'fields',
			attributeFields: {
				name: 'Jaroslav Mekota',
				bank_account_numbers: '["CZ6508000000192000145399"]',
			},
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ id: 'r-2' });
		expect((await stored(listId)).find((r) => r.id === 'r-2')?.attributes).toEqual({
			name: 'Jaroslav Mekota',
			bank_account_numbers: ['CZ6508000000192000145399'],
		});
	});

	test('Archive Record archives; updating it afterwards fails with a message saying it is archived (409)', async () => {
		const archive = await runAml({
			resource: 'customList',
			operation: 'archive',
			customListId: listId,
			recordId: '1003',
		});
		expect(archive.status).toBe('success');
		expect(archive.outputs[0][0]).toEqual({ customListId: listId, id: '1003', archived: true });
		expect((await stored(listId)).find((r) => r.id === '1003')?.archived).toBe(true);

		const update = await runAml({
			resource: 'customList',
			operation: 'update',
			customListId: listId,
			recordId: '1003',
			attributesMode: 'json',
			attributesJson: '{"name":"x"}',
		});
		expect(update.status).toBe('error');
		expect(update.error?.message).toMatch(/Record "1003" is archived and cannot be updated/);
		expect(update.error?.httpCode).toBe('409');

		const again = await runAml({
			resource: 'customList',
			operation: 'archive',
			customListId: listId,
			recordId: '1003',
			options: { ignoreArchived: true },
		});
		expect(again.status).toBe('success');
		expect(again.outputs[0][0]).toMatchObject({ id: '1003', alreadyArchived: true });
	});

	test('Create or Update (upsert): creates a new id, updates an existing one', async () => {
		const run = await runAml(
			{
				resource: 'customList',
				operation: 'upsert',
				customListId: listId,
				recordId: '={{ $json.id }}',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			[
				{ id: 'r-1', name: 'Nordwind Shell Corp (renamed)' },
				{ id: 'r-9', name: 'Brand New' },
			],
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0].map((o) => [o.id, o.result])).toEqual([
			['r-1', 'updated'],
			['r-9', 'created'],
		]);
		const records = await stored(listId);
		expect(records.find((r) => r.id === 'r-1')?.attributes).toEqual({
			name: 'Nordwind Shell Corp (renamed)',
		});
		expect(records.find((r) => r.id === 'r-9')?.attributes).toEqual({ name: 'Brand New' });
	});

	test('Get Usable Fields lists {id, name} of the list', async () => {
		const run = await runAml({
			resource: 'customList',
			operation: 'getUsableFields',
			customListId: DEMO_LIST,
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0].map((f) => f.name)).toEqual(['name', 'bank_account_numbers']);
		expect(run.outputs[0][0].id).toBe('9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718');
	});
});

/** What the editor asks n8n for to show the resource mapper of Map List Fields (the list's fields). */
async function listFieldsInEditor(
	customListId: string,
	operation = 'create',
): Promise<{ status: number; fields: Json[] }> {
	const rest = await ownerRest();
	const response = await rest.post('/dynamic-node-parameters/resource-mapper-fields', {
		nodeTypeAndVersion: { name: 'n8n-nodes-aml.aml', version: 1 },
		methodName: 'getRecordFields',
		path: 'listFields',
		currentNodeParameters: {
			resource: 'customList',
			operation,
			customListId: { __rl: true, mode: 'id', value: customListId },
			attributesMode: 'mapper',
		},
		credentials: { amlOAuth2Api: context().credential },
	});
	return {
		status: response.status,
		fields: ((response.data.data ?? response.data)?.fields ?? []) as Json[],
	};
}

describe("Map List Fields: the list's fields through n8n's resource mapper", () => {
	let listId: string;
	let schema: Json[];
	/** The node's parameters for a record write in Map List Fields mode. */
	const mapped = (operation: string, listFields: Json, recordId = '={{ $json.id }}'): Json => ({
		resource: 'customList',
		operation,
		customListId: listId,
		recordId,
		attributesMode: 'mapper',
		listFields,
	});
	const autoMap = (): Json => ({
		mappingMode: 'autoMapInputData',
		value: null,
		matchingColumns: [],
		schema,
	});

	beforeAll(async () => {
		const { id } = await control.post<{ id: string }>('/custom-lists', {
			name: `mapper ${Date.now()}`,
			fields: [
				{ id: '1b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' },
				{ id: '2c2d3e4f-5061-4b72-9c83-d4e5f6071829', name: 'bank_account_numbers' },
				{ id: '3d3e4f50-6172-4c83-8d94-e5f60718293a', name: 'country' },
			],
		});
		listId = id;
	});

	test("the editor's mapper lists the list's fields by name (what n8n's panel shows)", async () => {
		const answer = await listFieldsInEditor(listId);
		expect(answer.status).toBe(200);
		expect(answer.fields.map((f) => [f.id, f.displayName, f.required])).toEqual([
			['name', 'name', false],
			['bank_account_numbers', 'bank_account_numbers', false],
			['country', 'country', false],
		]);
		schema = answer.fields;
	});

	test('Create: each field set below (expressions, a JSON array as text); empty fields are not sent', async () => {
		const run = await runAml(
			mapped(
				'create',
				{
					mappingMode: 'defineBelow',
					value: {
						name: '={{ $json.holder }}',
						bank_account_numbers: '={{ JSON.stringify($json.ibans) }}',
						country: '',
					},
					matchingColumns: [],
					schema,
				},
				'={{ $json.ref }}',
			),
			[{ ref: 'm-1', holder: 'Nordwind Shell Corp', ibans: ['CY17002001280000001200527600'] }],
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ id: 'm-1', result: 'created' });
		expect((await stored(listId)).find((r) => r.id === 'm-1')?.attributes).toEqual({
			name: 'Nordwind Shell Corp',
			bank_account_numbers: ['CY17002001280000001200527600'],
		});
	});

	test("Create or Update and Update, Map Automatically: the item's fields named like the list's fields, nothing else", async () => {
		const upsert = await runAml(mapped('upsert', autoMap()), [
			{ id: 'm-1', name: 'Nordwind Shell Corp', country: 'CY', source: 'crm', score: 7 },
			{ id: 'm-2', name: 'Jaroslav Mekota', bank_account_numbers: ['CZ6508000000192000145399'] },
		]);
		expect(upsert.status).toBe('success');
		expect(upsert.outputs[0].map((o) => [o.id, o.result])).toEqual([
			['m-1', 'updated'],
			['m-2', 'created'],
		]);
		const update = await runAml(mapped('update', autoMap()), [
			{ id: 'm-2', name: 'Jaroslav Mekota', country: 'CZ', note: 'checked' },
		]);
		expect(update.status).toBe('success');
		const records = await stored(listId);
		expect(records.find((r) => r.id === 'm-1')?.attributes).toEqual({
			name: 'Nordwind Shell Corp',
			country: 'CY',
		});
		expect(records.find((r) => r.id === 'm-2')?.attributes).toEqual({
			name: 'Jaroslav Mekota',
			country: 'CZ',
		});
	});

	test('an item with none of the fields, or a mapper with no fields loaded, fails naming item and field before any request', async () => {
		const before = await control.mark();
		const none = await runAml(mapped('create', autoMap()), [
			{ id: 'm-3', name: 'Fine' },
			{ id: 'm-4', fullName: 'Misnamed Column' },
		]);
		expect(none.status).toBe('error');
		expect(none.error?.message).toMatch(
			/^Item 1: "List Fields" maps no field: the item has no field named like a field of the list \(name, bank_account_numbers, country\)/,
		);
		const unloaded = await runAml(
			mapped('create', { mappingMode: 'autoMapInputData', value: null }, 'm-5'),
		);
		expect(unloaded.status).toBe('error');
		expect(unloaded.error?.message).toMatch(
			/^Item 0: "List Fields" has no fields of the list loaded/,
		);
		expect(
			(await control.requestsSince(before)).filter((r) => r.path.startsWith('/api')),
		).toHaveLength(0);
	});
});
