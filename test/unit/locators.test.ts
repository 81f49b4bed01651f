import type { IExecuteFunctions, INodeProperties, INodePropertyMode } from 'n8n-workflow';

import { Aml } from '../../nodes/Aml/Aml.node';
import { itemId, itemLocatorValue } from '../../nodes/Aml/helpers/itemParameter';
import {
	hasMorePages,
	parsePersonToken,
	personListItem,
	personSearchBody,
	searchPersons,
} from '../../nodes/Aml/methods/persons';
import { context, scriptedServer } from './realHttpContext';

/**
 * Details of the ID parameters that are resource locators (the modes themselves are run in real
 * n8n by test/e2e/locators.test.ts): the description, the reading of either shape, the link patterns, and the
 * Person Search list's paging.
 */
const properties = new Aml().description.properties;
const locators = properties.filter((p) => p.type === 'resourceLocator');
const where = (p: INodeProperties) =>
	`${p.name}:${JSON.stringify(p.displayOptions?.show?.resource)}:${JSON.stringify(p.displayOptions?.show?.operation)}`;

describe('the ID parameters', () => {
	test('Person ID, Custom List ID and Alert ID are resource locators, one property each, starting in their first mode', () => {
		expect([...new Set(locators.map((p) => p.name))].sort()).toEqual([
			'alertId',
			'customListId',
			'personId',
		]);
		for (const locator of locators) {
			const twin = properties.filter((p) => p !== locator && where(p) === where(locator));
			expect({ at: where(locator), twins: twin.length }).toEqual({ at: where(locator), twins: 0 });
			expect(locator.default).toEqual({ mode: locator.modes?.[0].name, value: '' });
		}
		// Person → Create names a new person: plain text.
		const create = properties.filter(
			(p) =>
				p.name === 'personId' &&
				p.displayOptions?.show?.operation?.includes('create') &&
				p.displayOptions?.show?.resource?.includes('person'),
		);
		expect(create.map((p) => p.type)).toEqual(['string']);
	});

	test('modes: Person ID From List and By ID; Custom List ID and Alert ID By ID and By URL; only By URL extracts', () => {
		const modes = (name: string) =>
			locators.find((p) => p.name === name)?.modes?.map((m) => m.name);
		expect(modes('personId')).toEqual(['list', 'id']);
		expect(modes('customListId')).toEqual(['id', 'url']);
		expect(modes('alertId')).toEqual(['id', 'url']);
		for (const mode of locators.flatMap((p) => p.modes ?? [])) {
			expect({ mode: mode.name, extracts: Boolean(mode.extractValue) }).toEqual({
				mode: mode.name,
				extracts: mode.name === 'url',
			});
		}
		const list = locators.find((p) => p.name === 'personId')?.modes?.[0];
		expect(list?.typeOptions).toEqual({ searchListMethod: 'searchPersons', searchable: true });
		expect(Object.keys(new Aml().methods.listSearch)).toEqual(['searchPersons']);
	});
});

describe('By URL links', () => {
	const urlMode = (name: string) =>
		locators
			.find((p) => p.name === name)
			?.modes?.find((m) => m.name === 'url') as INodePropertyMode;
	// As n8n reads them: the extraction with `new RegExp(regex)` (1.x; 2.x the same pattern without flags), the
	// editor's check anchored as ^…$.
	const extract = (name: string, link: string) =>
		new RegExp((urlMode(name).extractValue as { regex: string }).regex).exec(link)?.[1];
	const accepted = (name: string, link: string) => {
		const [check] = urlMode(name).validation as unknown as Array<{ properties: { regex: string } }>;
		return new RegExp(`^${check.properties.regex}$`).test(link);
	};
	const LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';

	test.each([
		[`https://app.example.com/custom-lists/${LIST}`, LIST],
		[`https://app.example.com/lists/${LIST}`, LIST],
		[`http://aml.internal:8080/ui/#x`, undefined],
		[`https://app.example.com/org/7/custom-lists/${LIST}/records?page=2`, LIST],
		[`https://app.example.com/settings/lists/${LIST}#fields`, LIST],
		[`https://app.example.com/custom-lists/${LIST.toUpperCase()}`, LIST.toUpperCase()],
	])('Custom List ID: %s → %s', (link, id) => {
		expect(extract('customListId', link)).toBe(id);
		expect(accepted('customListId', link)).toBe(id !== undefined);
	});

	test.each([
		// a link to something else: no ID read (the node fails naming item and field); the editor flags it
		['https://app.example.com/persons/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10', undefined, false],
		['ftp://app.example.com/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10', undefined, false],
		['app.example.com/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10', undefined, false],
		// a list segment with no UUID: the ID is read, and the node's UUID rule refuses it with item and field
		['https://app.example.com/custom-lists/blocklist', 'blocklist', false],
	])('Custom List ID: %s → %s (editor accepts: %s)', (link, id, ok) => {
		expect(extract('customListId', link)).toBe(id);
		expect(accepted('customListId', link)).toBe(ok);
	});

	test.each([
		['https://app.example.com/alerts/1042', '1042', true],
		['https://app.example.com/monitoring/alerts/77?tab=notes', '77', true],
		['https://app.example.com/alerts/', undefined, false],
		['https://app.example.com/alerts/abc', 'abc', false],
		['https://app.example.com/persons/1042', undefined, false],
	])('Alert ID: %s → %s (editor accepts: %s)', (link, id, ok) => {
		expect(extract('alertId', link)).toBe(id);
		expect(accepted('alertId', link)).toBe(ok);
	});
});

describe('itemLocatorValue (detail: one reading for a plain value and every locator mode)', () => {
	const run = (
		raw: unknown,
		json: Record<string, unknown>,
		byN8n: (name: string, options?: unknown) => unknown = () => 'by n8n',
		name = 'personId',
	) => {
		const calls: Array<[string, unknown]> = [];
		const ctx = {
			getNode: () => ({ name: 'AML', parameters: { [name]: raw } }),
			getInputData: () => [{ json }, { json }],
			getNodeParameter: (name: string, _i: number, _fallback?: unknown, options?: unknown) => {
				calls.push([name, options]);
				return byN8n(name, options);
			},
		} as unknown as IExecuteFunctions;
		return { ctx, calls };
	};

	test.each([
		['plain text (a workflow written by hand, through the API or by an AI builder)', 'cust-1'],
		['From List', { __rl: true, mode: 'list', value: 'cust-3', cachedResultName: 'Anna (cust-3)' }],
		['By URL', { __rl: true, mode: 'url', value: 'https://app.example.com/alerts/9' }],
	])('%s is read by n8n with extractValue', (_what, raw) => {
		const { ctx, calls } = run(raw, {});
		expect(itemLocatorValue(ctx, 'personId', 1, 'Person ID')).toBe('by n8n');
		expect(calls).toEqual([['personId', { extractValue: true }]]);
	});

	test('a link from which n8n reads no ID fails naming item, field, value and the accepted form', () => {
		const raw = { __rl: true, mode: 'url', value: 'https://app.example.com/persons/9' };
		const { ctx } = run(
			raw,
			{},
			(_name, options) => {
				if (options)
					throw new Error(
						"ERROR: Alert ID parameter's value is invalid. This is likely because the URL entered is incorrect",
					);
				return raw;
			},
			'alertId',
		);
		expect(() => itemLocatorValue(ctx, 'alertId', 1, 'Alert ID')).toThrow(
			'Item 1: "Alert ID" must be an http(s) link whose path has /alerts/<id>, e.g. https://app.example.com/alerts/1042 (value: "https://app.example.com/persons/9")',
		);
	});

	test('itemId validates what was read, whatever the shape', () => {
		const { ctx } = run({ __rl: true, mode: 'id', value: 'bad/id' }, {});
		expect(() => itemId(ctx, 'personId', 0, 'Person ID')).toThrow(
			/Item 0: "Person ID" may only contain a-z, A-Z, 0-9, hyphen, underscore, colon and dot/,
		);
	});
});

describe('Person ID → From List: Person Search pages', () => {
	const person = (id: string, attributes: Record<string, unknown> = {}) => ({
		id,
		type: 'INDIVIDUAL',
		attributes,
	});

	test('the typed text is looked for in the name attributes (OR), trimmed and cut to 200 characters; none lists everyone', () => {
		expect(personSearchBody('  Anna ', 1, 3)).toEqual({
			page: 3,
			size: 50,
			logicalOperator: 'OR',
			category: 'COUNTERPARTY',
			filters: ['first_name', 'last_name', 'company_name'].map((attribute) => ({
				attribute,
				operator: 'CONTAINS',
				query: 'Anna',
			})),
		});
		expect(personSearchBody(undefined, 0, 0)).toMatchObject({ filters: [], category: 'CUSTOMER' });
		expect(
			(personSearchBody('x'.repeat(300), 0, 0).filters as Array<{ query: string }>)[0].query,
		).toHaveLength(200);
	});

	test('entries: name and ID shown, ID as value, category as description; tokens and the 10,000-result cap', () => {
		expect(personListItem(person('c-1', { first_name: 'Anna', last_name: 'Schmidt' }), 0)).toEqual({
			name: 'Anna Schmidt (c-1)',
			value: 'c-1',
			description: 'Customer',
		});
		expect(personListItem(person('c-2', { company_name: 'Acme' }), 1)).toEqual({
			name: 'Acme (c-2)',
			value: 'c-2',
			description: 'Counterparty',
		});
		expect(personListItem(person('c-3'), 0).name).toBe('c-3');
		expect(parsePersonToken(undefined)).toEqual({ category: 0, page: 0 });
		expect(parsePersonToken('1:4')).toEqual({ category: 1, page: 4 });
		expect(parsePersonToken('7:1')).toEqual({ category: 0, page: 0 });
		const full = {
			number: 0,
			size: 50,
			total: 120,
			content: Array.from({ length: 50 }, (_v, i) => person(`p${i}`)),
		};
		expect(hasMorePages(full, 0)).toBe(true);
		expect(hasMorePages(full, 1)).toBe(true);
		expect(hasMorePages(full, 2)).toBe(false);
		expect(hasMorePages({ ...full, total: 20_000 }, 199)).toBe(false);
		expect(hasMorePages({ ...full, content: full.content.slice(0, 10) }, 0)).toBe(false);
	});

	test('through the transport against a server: customers page by page, then counterparties; a short last page of customers is followed at once', async () => {
		const stored: Record<string, ReturnType<typeof person>[]> = {
			CUSTOMER: Array.from({ length: 60 }, (_v, i) =>
				person(`cust-${i}`, { first_name: 'C', last_name: String(i) }),
			),
			COUNTERPARTY: Array.from({ length: 3 }, (_v, i) =>
				person(`cp-${i}`, { company_name: `Firm ${i}` }),
			),
		};
		const server = await scriptedServer((_req, body, res) => {
			const { category, page, size } = JSON.parse(body) as {
				category: string;
				page: number;
				size: number;
			};
			const all = stored[category];
			res.writeHead(200, { 'content-type': 'application/json' }).end(
				JSON.stringify({
					number: page,
					size,
					total: all.length,
					content: all.slice(page * size, page * size + size),
				}),
			);
		});
		try {
			const ctx = context(server.baseUrl);
			const first = await searchPersons.call(ctx, 'x');
			expect(first.results).toHaveLength(50);
			expect(first.paginationToken).toBe('0:1');
			const second = await searchPersons.call(ctx, 'x', first.paginationToken);
			expect(second.results.map((r) => r.value)).toEqual([
				...Array.from({ length: 10 }, (_v, i) => `cust-${50 + i}`),
				'cp-0',
				'cp-1',
				'cp-2',
			]);
			expect(second.paginationToken).toBeUndefined();
			expect(
				server.requests.map(
					(r) => `${r.method} ${r.url} ${JSON.parse(r.body).category}:${JSON.parse(r.body).page}`,
				),
			).toEqual([
				'POST /api/v2/persons/search CUSTOMER:0',
				'POST /api/v2/persons/search CUSTOMER:1',
				'POST /api/v2/persons/search COUNTERPARTY:0',
			]);
		} finally {
			await server.close();
		}
	});
});
