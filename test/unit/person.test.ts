import {
	buildSearchFilters,
	MAX_FILTERS,
	orderByRule,
} from '../../nodes/Aml/actions/person/searchFilters';
import {
	personName,
	simplifyPerson,
	simplifyRisk,
	simplifyStatusHistory,
} from '../../nodes/Aml/actions/person/shared';

describe('person search filters', () => {
	test('rows become ApiSearchFilter objects; empty optional fields are not sent; EXISTS needs no text', () => {
		const { filters, problem } = buildSearchFilters([
			{
				attribute: ' last_name ',
				operator: 'IS_EXACTLY',
				query: 'Schmidt',
				not: false,
				attributeIdentifier: '',
				attributeType: '',
			},
			{
				attribute: 'dob',
				operator: 'NOT_EXISTS',
				query: '',
				not: true,
				attributeIdentifier: 'id-1',
				attributeType: 'GENERAL',
			},
		]);
		expect(problem).toBeUndefined();
		expect(filters).toEqual([
			{ attribute: 'last_name', operator: 'IS_EXACTLY', query: 'Schmidt', not: false },
			{
				attribute: 'dob',
				operator: 'NOT_EXISTS',
				not: true,
				attributeIdentifier: 'id-1',
				attributeType: 'GENERAL',
			},
		]);
	});

	test('no rows: an empty list (every person of the category)', () => {
		expect(buildSearchFilters(undefined)).toEqual({ filters: [] });
	});

	test(`more than ${MAX_FILTERS} filters are refused`, () => {
		const rows = Array.from({ length: 6 }, () => ({ attribute: 'a', operator: 'EXISTS' }));
		expect(buildSearchFilters(rows).problem).toMatchObject({
			field: 'Filters',
			rule: expect.stringMatching(/at most 5 conditions \(has 6\)/),
		});
		expect(buildSearchFilters(rows.slice(0, 5)).problem).toBeUndefined();
	});

	test.each([
		[
			{ attribute: '', operator: 'CONTAINS', query: 'x' },
			'Filters[1].Attribute',
			/must not be empty/,
		],
		[
			{ attribute: 'a', operator: 'LIKE', query: 'x' },
			'Filters[1].Operator',
			/must be one of CONTAINS, .*IS_EXACTLY/,
		],
		[{ attribute: 'a', operator: 'CONTAINS', query: '' }, 'Filters[1].Text', /must not be empty/],
		[
			{ attribute: 'a', operator: 'GT', query: '9'.repeat(201) },
			'Filters[1].Text',
			/at most 200 characters \(has 201\)/,
		],
	])('%j is refused naming %s', (row, field, rule) => {
		const { problem } = buildSearchFilters([row]);
		expect(problem?.field).toBe(field);
		expect(problem?.rule).toMatch(rule);
	});

	test('order by: optional, else 1..200 characters', () => {
		expect(orderByRule('')).toBeUndefined();
		expect(orderByRule('last_name')).toBeUndefined();
		expect(orderByRule('x'.repeat(200))).toBeUndefined();
		expect(orderByRule('x'.repeat(201))).toMatch(/at most 200/);
	});
});

describe('person simplify', () => {
	test('name of an individual or a legal person', () => {
		expect(personName({ first_name: 'Anna', last_name: 'Schmidt' })).toBe('Anna Schmidt');
		expect(personName({ company_name: 'Acme' })).toBe('Acme');
		expect(personName({})).toBeNull();
	});

	test('search result keeps the key fields', () => {
		expect(
			simplifyPerson({
				id: 'p1',
				type: 'LEGAL',
				status: 'NEW',
				category: 'CUSTOMER',
				createdTime: 't',
				attributes: { company_name: 'Acme', country: 'DE', industry: 'x' },
			}),
		).toEqual({
			id: 'p1',
			type: 'LEGAL',
			name: 'Acme',
			status: 'NEW',
			category: 'CUSTOMER',
			country: 'DE',
			createdTime: 't',
		});
	});

	test('risk keeps level, score, override and factors', () => {
		expect(
			simplifyRisk('p1', {
				finalRisk: 'HIGH',
				finalRiskScore: 90,
				activeOverrideLevel: null,
				finalRiskCreatedTime: 't',
				risks: [
					{ id: 1, level: 'HIGH', factor: 'COUNTRY', details: 'd', weight: 1, createdTime: 't' },
				],
			}),
		).toEqual({
			personId: 'p1',
			finalRisk: 'HIGH',
			finalRiskScore: 90,
			overrideLevel: null,
			riskFactors: [{ factor: 'COUNTRY', level: 'HIGH', details: 'd' }],
			finalRiskCreatedTime: 't',
		});
	});

	test('status history: the open status is the current one', () => {
		const simple = simplifyStatusHistory('p1', {
			statuses: [
				{ id: 1, status: 'NEW', startTime: 'a', endTime: 'b' },
				{ id: 2, status: 'REVIEWED', startTime: 'b', endTime: null },
			],
		});
		expect(simple).toEqual({
			personId: 'p1',
			currentStatus: 'REVIEWED',
			statuses: [
				{ status: 'NEW', startTime: 'a', endTime: 'b' },
				{ status: 'REVIEWED', startTime: 'b', endTime: null },
			],
			latestSanctionCheck: null,
		});
	});
});
