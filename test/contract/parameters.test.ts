import { N8N_VERSION, n8nExecuteContext, stopN8nTimers, withN8n } from './n8n';

/**
 * The package's parameter readers (nodes/Aml/helpers/itemParameter.ts: `itemParameter`, `itemLocatorValue`) and the
 * seam's locator read (nodes/shared/n8n/parameters.ts) beside this n8n's own `getNodeParameter`, in n8n-core's real
 * ExecuteContext of the AML node: every parameter shape the node uses (plain values, expressions, defaults from the
 * node's description, collections, fixed collections, resource locators in each mode) reads as n8n reads it, and a
 * By URL link that names no ID fails naming the item, the field and the link.
 */
const pkg = withN8n(() => ({
	node: require('../../nodes/Aml/Aml.node') as typeof import('../../nodes/Aml/Aml.node'),
	readers:
		require('../../nodes/Aml/helpers/itemParameter') as typeof import('../../nodes/Aml/helpers/itemParameter'),
	seam: require('../../nodes/shared/n8n/parameters') as typeof import('../../nodes/shared/n8n/parameters'),
}));
const nodeType = new pkg.node.Aml();
const items = [
	{ json: { id: 'cust-7', alert: 1042, note: 'seen', link: 'https://app.example.com/alerts/77' } },
	{ json: { id: 'cust-8', alert: 1043, note: '', link: 'https://app.example.com/elsewhere/1' } },
];
const context = (parameters: Record<string, unknown>) =>
	n8nExecuteContext(nodeType, parameters, items);

/** [name, parameters, parameter read, fallback, what n8n answers for item 0 and item 1] */
const SHAPES: Array<[string, Record<string, unknown>, string, unknown, unknown[]]> = [
	[
		'plain value',
		{ resource: 'alert', operation: 'updateStatus', alertType: 'MANUAL', note: 'fixed text' },
		'note',
		'',
		['fixed text', 'fixed text'],
	],
	[
		'expression',
		{ resource: 'alert', operation: 'updateStatus', note: '={{ $json.note }}' },
		'note',
		'',
		['seen', ''],
	],
	[
		'expression inside text',
		{ resource: 'alert', operation: 'updateStatus', note: '=Note: {{ $json.note.toUpperCase() }}' },
		'note',
		'',
		['Note: SEEN', 'Note: '],
	],
	[
		"default from the node's description (parameter absent)",
		{ resource: 'person', operation: 'create' },
		'attributesMode',
		'fields',
		['fields', 'fields'],
	],
	[
		'collection',
		{
			resource: 'person',
			operation: 'setStatus',
			personId: { __rl: true, mode: 'id', value: 'cust-1' },
			setFields: {
				category: '={{ $json.id === "cust-7" ? "CUSTOMER" : "COUNTERPARTY" }}',
				scenarioSnoozeConfigurations: '[]',
			},
		},
		'setFields',
		{},
		[
			{ category: 'CUSTOMER', scenarioSnoozeConfigurations: '[]' },
			{ category: 'COUNTERPARTY', scenarioSnoozeConfigurations: '[]' },
		],
	],
	[
		'collection absent (its default)',
		{ resource: 'person', operation: 'setStatus' },
		'setFields',
		{},
		[{}, {}],
	],
	[
		'fixed collection, by path',
		{
			resource: 'person',
			operation: 'create',
			attributesMode: 'fields',
			customAttributes: {
				attribute: [
					{ key: 'tier', value: 'gold' },
					{ key: 'source', value: '={{ $json.id }}' },
				],
			},
		},
		'customAttributes.attribute',
		[],
		[
			[
				{ key: 'tier', value: 'gold' },
				{ key: 'source', value: 'cust-7' },
			],
			[
				{ key: 'tier', value: 'gold' },
				{ key: 'source', value: 'cust-8' },
			],
		],
	],
];

/** [name, parameters, locator read, the IDs read for item 0 and item 1] */
const LOCATORS: Array<[string, Record<string, unknown>, string, unknown[]]> = [
	[
		'From List',
		{
			resource: 'person',
			operation: 'get',
			personId: { __rl: true, mode: 'list', value: 'cust-3' },
		},
		'personId',
		['cust-3', 'cust-3'],
	],
	[
		'By ID, an expression',
		{
			resource: 'person',
			operation: 'get',
			personId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		},
		'personId',
		['cust-7', 'cust-8'],
	],
	[
		'By ID, a number from the item',
		{
			resource: 'alert',
			operation: 'updateStatus',
			alertId: { __rl: true, mode: 'id', value: '={{ $json.alert }}' },
		},
		'alertId',
		[1042, 1043],
	],
	[
		'By URL (extractValue)',
		{
			resource: 'alert',
			operation: 'updateStatus',
			alertId: { __rl: true, mode: 'url', value: 'https://app.example.com/alerts/1042?tab=hits' },
		},
		'alertId',
		['1042', '1042'],
	],
	[
		'a plain string where a locator is expected (a workflow written by hand)',
		{ resource: 'person', operation: 'get', personId: 'cust-9' },
		'personId',
		['cust-9', 'cust-9'],
	],
];

afterAll(() => stopN8nTimers());

describe(`getNodeParameter on n8n ${N8N_VERSION} beside the package's readers`, () => {
	test.each(SHAPES)('%s', (_name, parameters, name, fallback, expected) => {
		const ctx = context(parameters);
		for (const i of [0, 1]) {
			const n8n = ctx.getNodeParameter(name, i, fallback);
			expect(n8n).toEqual(expected[i]);
			expect(pkg.readers.itemParameter(ctx, name, i, fallback)).toEqual(n8n);
		}
	});

	test.each(LOCATORS)('resource locator %s', (_name, parameters, name, expected) => {
		const ctx = context(parameters);
		for (const i of [0, 1]) {
			const n8n = ctx.getNodeParameter(name, i, undefined, { extractValue: true });
			expect(n8n).toEqual(expected[i]);
			expect(pkg.readers.itemLocatorValue(ctx, name, i, 'ID')).toEqual(n8n);
		}
	});

	test('By URL with a link that names no ID: n8n throws; the reader names item, field and the link given', () => {
		const ctx = context({
			resource: 'alert',
			operation: 'updateStatus',
			alertId: { __rl: true, mode: 'url', value: '={{ $json.link }}' },
		});
		expect(pkg.readers.itemLocatorValue(ctx, 'alertId', 0, 'Alert ID')).toBe('77');
		expect(() => ctx.getNodeParameter('alertId', 1, undefined, { extractValue: true })).toThrow();
		// the raw locator as n8n answers it: the seam reads the link from it
		const raw = ctx.getNodeParameter('alertId', 1);
		expect(raw).toMatchObject({ mode: 'url', value: 'https://app.example.com/elsewhere/1' });
		expect(pkg.seam.locatorGivenValue(raw)).toBe('https://app.example.com/elsewhere/1');
		expect(() => pkg.readers.itemLocatorValue(ctx, 'alertId', 1, 'Alert ID')).toThrow(
			/^Item 1: "Alert ID" must be an http\(s\) link .*\(value: .*https:\/\/app\.example\.com\/elsewhere\/1/,
		);
	});
});
