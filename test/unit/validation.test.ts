import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { itemParameter } from '../../nodes/Aml/helpers/itemParameter';
import { parameterValidator } from '../../nodes/Aml/validation/parameters';
import {
	amountRule,
	attributesRule,
	enumRule,
	dateTimeRule,
	idRule,
	lengthRule,
	numericIdRule,
	nonEmptyRule,
	rangeRule,
	timestampRule,
	uuidRule,
} from '../../nodes/Aml/validation/rules';

describe('validation rules of the interface', () => {
	test.each([
		['cust-1', true],
		['A.b_c:D-9', true],
		['', false],
		['has space', false],
		['slash/id', false],
		['ümlaut', false],
		['semi;colon', false],
		// dots alone would be resolved by the URL as "this" or "the parent" resource
		['.', false],
		['..', false],
		['...', false],
		['.hidden', true],
		['a..b', true],
		// IDs are stored unchanged: spaces around them are refused, never trimmed
		[' cust-1', false],
		['cust-1 ', false],
		// whole numbers (from a spreadsheet) are the same ID as text; other numbers are refused
		[10023, true],
		[0, true],
		[Number.MAX_SAFE_INTEGER, true],
		[2 ** 53, false],
		[12.5, false],
		[Number.NaN, false],
	])('ID %j valid=%s', (value, ok) => {
		expect(idRule(value) === undefined).toBe(ok);
	});

	test('ID error names the offending characters', () => {
		expect(idRule('a b/c')).toContain('space');
		expect(idRule('a b/c')).toContain('"/"');
	});

	test.each([
		['2024-05-01', true],
		['2024-05-01T12:30:00Z', true],
		['2024-05-01T12:30:00.123456Z', true],
		['2024-05-01T12:30:00.1234567Z', false],
		['2024-05-01T12:30:00+02:00', true],
		['2024-02-30T00:00:00Z', false],
		['2024-02-30', false],
		['2023-02-29', false],
		['2024-02-29', true],
		['2024-13-01', false],
		['01/05/2024', false],
		['yesterday', false],
	])('timestamp %j valid=%s', (value, ok) => {
		expect(timestampRule(value) === undefined).toBe(ok);
	});

	test('date-time fields need the time of day; numeric IDs stay exact or are refused', () => {
		expect(dateTimeRule('2024-05-01')).toMatch(/a date alone is not enough/);
		expect(dateTimeRule('2024-05-01T12:30:00Z')).toBeUndefined();
		expect(numericIdRule('9007199254740991')).toBeUndefined();
		expect(numericIdRule(42)).toBeUndefined();
		expect(numericIdRule('9007199254740993')).toMatch(/at most 9007199254740991/);
		expect(numericIdRule('0')).toMatch(/at least 1/);
		expect(numericIdRule('1.5')).toMatch(/whole number/);
		expect(numericIdRule(' 7')).toMatch(/whole number/);
		expect(idRule('..')).toMatch(/dots only/);
	});

	test('seven fractional digits are named as such', () => {
		expect(timestampRule('2024-05-01T12:30:00.1234567Z')).toMatch(
			/at most 6 fractional-second digits \(has 7\)/,
		);
	});

	test.each([
		['1250.00', true],
		['-3.5', true],
		['1000', true],
		['1,000.00', false],
		['1e3', false],
		['€10', false],
		[' 10', false],
		[10, false],
	])('amount %j valid=%s', (value, ok) => {
		expect(amountRule(value) === undefined).toBe(ok);
	});

	test.each([
		[{ first_name: 'Anna' }, true],
		[{ shareholders: [{ id: 's1', name: 'X' }] }, true],
		[{ address: { city: 'Berlin' } }, true],
		[{ 'a.b': 'x' }, false],
		[{ '  ': 'x' }, false],
		[{ amount: null }, false],
		[{ a: { b: { c: 'deep' } } }, false],
		[{ list: [{ id: '1', nested: { x: 'y' } }] }, false],
		[{ list: [['nested']] }, false],
		[[], false],
		['text', false],
	])('attributes %j valid=%s', (value, ok) => {
		expect(attributesRule(value) === undefined).toBe(ok);
	});

	test('attribute errors name the key path', () => {
		expect(attributesRule({ a: { 'b.c': 'x' } })).toEqual({
			path: 'a.b.c',
			rule: 'a key must not contain "."',
		});
		expect(attributesRule({ a: { b: { c: 'x' } } })?.path).toBe('a.b');
	});

	test('ranges, lengths, enums, uuids', () => {
		expect(rangeRule(51, 1, 50)).toBeDefined();
		expect(rangeRule(50, 1, 50)).toBeUndefined();
		expect(rangeRule(-1, 0)).toBeDefined();
		expect(lengthRule('ab', 3)).toMatch(/at least 3/);
		expect(lengthRule('x'.repeat(1001), 0, 1000)).toMatch(/at most 1000/);
		expect(lengthRule('x'.repeat(201), 1, 200)).toBeDefined();
		expect(nonEmptyRule('  ')).toBeDefined();
		expect(enumRule('FOO', ['AND', 'OR'])).toMatch(/one of AND, OR/);
		expect(uuidRule('5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10')).toBeUndefined();
		expect(uuidRule('not-a-uuid')).toBeDefined();
	});
});

describe('parameterValidator: choices and numbers set by expressions', () => {
	const properties = [
		{
			displayName: 'Type',
			name: 'personType',
			type: 'options',
			default: '',
			options: [
				{ name: 'Individual', value: 'INDIVIDUAL' },
				{ name: 'Legal', value: 'LEGAL' },
			],
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			typeOptions: { minValue: 1, numberPrecision: 0 },
			displayOptions: { show: { returnAll: [false] } },
		},
	] as INodeProperties[];
	const ctx = (values: Record<string, unknown[]>, raw: Record<string, unknown>) =>
		({
			getNode: () => ({ name: 'AML', parameters: raw }),
			getInputData: () => [],
			getNodeParameter: (name: string, i: number, fallback?: unknown) =>
				name in values ? values[name][i] : fallback,
		}) as unknown as IExecuteFunctions;

	test('a choice outside the options names item, field and the allowed values', () => {
		const validate = parameterValidator(
			ctx(
				{ personType: ['INDIVIDUAL', 'ALIEN'], returnAll: [true, true] },
				{ personType: '={{ $json.t }}' },
			),
			properties,
			itemParameter,
		);
		expect(() => validate(0)).not.toThrow();
		expect(() => validate(1)).toThrow(
			'Item 1: "Type" must be one of INDIVIDUAL, LEGAL (value: "ALIEN")',
		);
	});

	test('a number below its minimum or not whole is refused only where the field is shown', () => {
		const validate = parameterValidator(
			ctx(
				{
					personType: ['LEGAL', 'LEGAL', 'LEGAL'],
					returnAll: [false, false, true],
					limit: [0, 2.5, 0],
				},
				{ limit: '={{ $json.n }}', returnAll: '={{ $json.all }}' },
			),
			properties,
			itemParameter,
		);
		expect(() => validate(0)).toThrow('Item 0: "Limit" must be a whole number of at least 1');
		expect(() => validate(1)).toThrow('Item 1: "Limit" must be a whole number of at least 1');
		expect(() => validate(2)).not.toThrow();
	});
});

describe('itemParameter (detail: every value is read by n8n)', () => {
	test('getNodeParameter with and without a fallback, as n8n is asked', () => {
		const calls: unknown[][] = [];
		const ctx = {
			getNodeParameter: (...args: unknown[]) => {
				calls.push(args);
				return 'by n8n';
			},
		} as unknown as IExecuteFunctions;
		expect(itemParameter(ctx, 'field', 0)).toBe('by n8n');
		expect(itemParameter(ctx, 'options.timeout', 2, 30000)).toBe('by n8n');
		expect(calls).toEqual([
			['field', 0],
			['options.timeout', 2, 30000],
		]);
	});

	test('a parameter with no expression in it is read by n8n once per run; one with an expression for every item', () => {
		const calls: unknown[][] = [];
		const parameters = {
			amount: '10.00',
			transactionId: '={{ $json.id }}',
			fields: { a: 'x', b: '={{ $json.b }}' },
			options: { timeBudget: 500 },
		};
		const ctx = {
			getNode: () => ({ name: 'AML', parameters }),
			getNodeParameter: (name: string, i: number, fallback?: unknown) => {
				calls.push([name, i]);
				if (name === 'transactionId') return `t-${i}`;
				if (name === 'fields') return { a: 'x', b: `b-${i}` };
				if (name === 'list') return [{ key: 'k' }];
				return name === 'amount' ? '10.00' : name === 'options.timeBudget' ? 500 : fallback;
			},
		} as unknown as IExecuteFunctions;
		for (const i of [0, 1, 2]) {
			expect(itemParameter(ctx, 'amount', i)).toBe('10.00');
			expect(itemParameter(ctx, 'transactionId', i)).toBe(`t-${i}`);
			expect(itemParameter(ctx, 'fields', i)).toEqual({ a: 'x', b: `b-${i}` });
			expect(itemParameter(ctx, 'options.timeBudget', i, 0)).toBe(500);
			expect(itemParameter(ctx, 'options.timeout', i, 30000)).toBe(30000);
		}
		expect(calls.filter(([name]) => name === 'amount')).toEqual([['amount', 0]]);
		expect(calls.filter(([name]) => name === 'options.timeBudget')).toEqual([
			['options.timeBudget', 0],
		]);
		expect(calls.filter(([name]) => name === 'transactionId').length).toBe(3);
		expect(calls.filter(([name]) => name === 'fields').length).toBe(3);
		// An answer handed to one item is a copy: changing it changes no other item's.
		const first = itemParameter(ctx, 'list', 0) as Array<{ key: string }>;
		first[0].key = 'changed';
		expect(itemParameter(ctx, 'list', 1)).toEqual([{ key: 'k' }]);
		// Another run (another context) reads again.
		const again = { ...ctx, getNode: ctx.getNode, getNodeParameter: ctx.getNodeParameter };
		itemParameter(again as IExecuteFunctions, 'amount', 0);
		expect(calls.filter(([name]) => name === 'amount').length).toBe(2);
	});
});
