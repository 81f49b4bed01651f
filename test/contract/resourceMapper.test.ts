import { N8N_VERSION, n8nExecuteContext, n8nPackage, stopN8nTimers, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/resourceMapper.ts beside this n8n's own code: the value of the custom-list records' resource
 * mapper (List Fields) as n8n-core's real ExecuteContext answers `getNodeParameter` for it (each field set below, its
 * expressions resolved, an array kept; Map Automatically; a removed field; the default a new node starts from), what
 * the package reads from it for each item, and that n8n-workflow's `getNodeParameters` (what saving and importing a
 * workflow runs) keeps a stored value as it is.
 */
const { Aml, readRecordWrite, mappedFields, recordField } = withN8n(() => ({
	...(require('../../nodes/Aml/Aml.node') as typeof import('../../nodes/Aml/Aml.node')),
	...(require('../../nodes/Aml/actions/customList/shared') as typeof import('../../nodes/Aml/actions/customList/shared')),
	...(require('../../nodes/shared/n8n/resourceMapper') as typeof import('../../nodes/shared/n8n/resourceMapper')),
	...(require('../../nodes/Aml/methods/usableFields') as typeof import('../../nodes/Aml/methods/usableFields')),
}));
const nodeType = new Aml();
const LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';
const items = [
	{
		json: {
			id: 'r-1',
			name: 'Nordwind Shell Corp',
			accounts: ['CY17002001280000001200527600'],
			bank_account_numbers: ['CY17002001280000001200527600'],
			country: 'CY',
			note: 'not a field of the list',
		},
	},
	{ json: { id: 'r-2', name: 'Jaroslav Mekota', accounts: [], note: 'only the name' } },
];
const SCHEMA = [
	recordField('name'),
	recordField('bank_account_numbers'),
	{ ...recordField('country'), removed: true },
];
const params = (operation: string, listFields?: unknown) => ({
	resource: 'customList',
	operation,
	customListId: { __rl: true, mode: 'id', value: LIST },
	recordId: '={{ $json.id }}',
	attributesMode: 'mapper',
	...(listFields === undefined ? {} : { listFields }),
});

afterAll(() => stopN8nTimers());

describe(`the resource mapper's value on n8n ${N8N_VERSION}`, () => {
	test('each field set below: expressions resolved per item, an array kept, a removed field left out', () => {
		const stored = {
			mappingMode: 'defineBelow',
			value: {
				name: '={{ $json.name }}',
				bank_account_numbers: '={{ $json.accounts.length ? $json.accounts : "" }}',
				country: 'DE',
			},
			matchingColumns: [],
			schema: SCHEMA,
			attemptToConvertTypes: false,
			convertFieldsToString: true,
		};
		const ctx = n8nExecuteContext(nodeType, params('create', stored), items);
		const raw = ctx.getNodeParameter('listFields', 0);
		expect(raw).toMatchObject({
			mappingMode: 'defineBelow',
			value: {
				name: 'Nordwind Shell Corp',
				bank_account_numbers: ['CY17002001280000001200527600'],
				country: 'DE',
			},
			schema: SCHEMA,
		});
		expect(mappedFields(raw)).toEqual({
			automatic: false,
			values: {
				name: 'Nordwind Shell Corp',
				bank_account_numbers: ['CY17002001280000001200527600'],
			},
			fields: ['name', 'bank_account_numbers'],
		});
		expect(readRecordWrite(ctx, 0)).toEqual({
			customListId: LIST,
			id: 'r-1',
			attributes: {
				name: 'Nordwind Shell Corp',
				bank_account_numbers: ['CY17002001280000001200527600'],
			},
		});
		expect(readRecordWrite(ctx, 1).attributes).toEqual({ name: 'Jaroslav Mekota' });
	});

	test("Map Automatically: the item's fields named like the list's fields, nothing else", () => {
		const stored = {
			mappingMode: 'autoMapInputData',
			value: null,
			matchingColumns: [],
			schema: SCHEMA,
		};
		const ctx = n8nExecuteContext(nodeType, params('upsert', stored), items);
		const raw = ctx.getNodeParameter('listFields', 1);
		expect(raw).toMatchObject({ mappingMode: 'autoMapInputData', value: null, schema: SCHEMA });
		expect(mappedFields(raw)).toEqual({
			automatic: true,
			values: {},
			fields: ['name', 'bank_account_numbers'],
		});
		expect(readRecordWrite(ctx, 0).attributes).toEqual({
			name: 'Nordwind Shell Corp',
			bank_account_numbers: ['CY17002001280000001200527600'],
		});
		expect(readRecordWrite(ctx, 1).attributes).toEqual({ name: 'Jaroslav Mekota' });
	});

	test.each([
		['create', 'defineBelow', /Item 0: "List Fields" maps no field: set at least one field/],
		['sync', 'autoMapInputData', /Item 0: "List Fields" has no fields of the list loaded/],
	])(
		'absent (%s): the default a new node starts from, and a failure naming item and field',
		(operation, mode, error) => {
			const ctx = n8nExecuteContext(nodeType, params(operation), items);
			expect(ctx.getNodeParameter('listFields', 0)).toEqual({ mappingMode: mode, value: null });
			expect(() => readRecordWrite(ctx, 0)).toThrow(error);
		},
	);

	test("n8n-workflow's getNodeParameters (save and import) keeps a stored value as it is", () => {
		const { NodeHelpers } = n8nPackage('n8n-workflow');
		const stored = {
			mappingMode: 'autoMapInputData',
			value: null,
			matchingColumns: [],
			schema: SCHEMA,
			attemptToConvertTypes: false,
			convertFieldsToString: true,
		};
		const parameters = params('sync', stored);
		const node = { name: 'AML', type: 'n8n-nodes-aml.aml', typeVersion: 1, parameters };
		const kept = NodeHelpers.getNodeParameters(
			nodeType.description.properties,
			parameters,
			false,
			false,
			node,
			nodeType.description,
		);
		expect(kept.listFields).toEqual(stored);
	});
});
