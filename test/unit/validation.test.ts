import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { Aml } from '../../nodes/Aml/Aml.node';
import { itemParameter } from '../../nodes/Aml/helpers/itemParameter';
import { AmlTrigger } from '../../nodes/AmlTrigger/AmlTrigger.node';
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
		expect(timestampRule('2024-05-01T12:30:00.1234567Z')).toMatch(/at most 6 fractional-second digits \(has 7\)/);
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
		expect(attributesRule({ a: { 'b.c': 'x' } })).toEqual({ path: 'a.b.c', rule: 'a key must not contain "."' });
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
		{ displayName: 'Type', name: 'personType', type: 'options', default: '', options: [{ name: 'Individual', value: 'INDIVIDUAL' }, { name: 'Legal', value: 'LEGAL' }] },
		{ displayName: 'Limit', name: 'limit', type: 'number', default: 50, typeOptions: { minValue: 1, numberPrecision: 0 }, displayOptions: { show: { returnAll: [false] } } },
	] as INodeProperties[];
	const ctx = (values: Record<string, unknown[]>, raw: Record<string, unknown>) =>
		({
			getNode: () => ({ name: 'AML', parameters: raw }),
			getInputData: () => [],
			getNodeParameter: (name: string, i: number, fallback?: unknown) => (name in values ? values[name][i] : fallback),
		}) as unknown as IExecuteFunctions;

	test('a choice outside the options names item, field and the allowed values', () => {
		const validate = parameterValidator(ctx({ personType: ['INDIVIDUAL', 'ALIEN'], returnAll: [true, true] }, { personType: '={{ $json.t }}' }), properties, itemParameter);
		expect(() => validate(0)).not.toThrow();
		expect(() => validate(1)).toThrow('Item 1: "Type" must be one of INDIVIDUAL, LEGAL (value: "ALIEN")');
	});

	test('a number below its minimum or not whole is refused only where the field is shown', () => {
		const validate = parameterValidator(ctx({ personType: ['LEGAL', 'LEGAL', 'LEGAL'], returnAll: [false, false, true], limit: [0, 2.5, 0] }, { limit: '={{ $json.n }}' }), properties, itemParameter);
		expect(() => validate(0)).toThrow('Item 0: "Limit" must be a whole number of at least 1');
		expect(() => validate(1)).toThrow('Item 1: "Limit" must be a whole number of at least 1');
		expect(() => validate(2)).not.toThrow();
	});
});

describe('itemParameter (detail: which values are read from the item, which are left to n8n)', () => {
	const context = (raw: unknown, json: Record<string, unknown>) => {
		const evaluated: string[] = [];
		const ctx = {
			getNode: () => ({ parameters: { field: raw } }),
			getInputData: () => [{ json }],
			getNodeParameter: (name: string) => {
				evaluated.push(name);
				return 'by n8n';
			},
		} as unknown as IExecuteFunctions;
		return { ctx, evaluated };
	};

	test.each([
		['={{ $json.id }}', { id: 'a-1' }, 'a-1'],
		['={{$json.id}}', { id: 7 }, 7],
		['={{ $json["the id"] }}', { 'the id': 'x' }, 'x'],
		["={{ $json['the id'] }}", { 'the id': false }, false],
	])('%s on %j is read from the item', (raw, json, expected) => {
		const { ctx, evaluated } = context(raw, json);
		expect(itemParameter(ctx, 'field', 0)).toBe(expected);
		expect(evaluated).toEqual([]);
	});

	test.each([
		['={{ $json.id }}', {}],
		['={{ $json.id }}', { id: null }],
		['={{ $json.id }}', { id: { a: 1 } }],
		['={{ $json.id }}', { id: Number.NaN }],
		['={{ $json.constructor }}', {}],
		['={{ $json.__proto__ }}', {}],
		['={{ $json.id.trim() }}', { id: 'a' }],
		['={{ $json.id }} ', { id: 'a' }],
		['= {{ $json.id }}', { id: 'a' }],
		['={{ $json.a.b }}', { a: { b: 'c' } }],
	])('%s on %j is left to n8n', (raw, json) => {
		const { ctx, evaluated } = context(raw, json);
		expect(itemParameter(ctx, 'field', 0)).toBe('by n8n');
		expect(evaluated).toEqual(['field']);
	});

	test('a value with no expression at any depth is the value itself (objects copied, as n8n copies them); one expression anywhere leaves it to n8n', () => {
		const parameters = { text: '$json.id', count: 3, flag: false, nothing: null, fields: { a: 'x', list: [{ k: 'v' }] }, mixed: { a: 'x', b: '={{ 1 }}' } };
		const evaluated: string[] = [];
		const ctx = {
			getNode: () => ({ parameters }),
			getInputData: () => [{ json: {} }, { json: {} }],
			getNodeParameter: (name: string) => {
				evaluated.push(name);
				return 'by n8n';
			},
		} as unknown as IExecuteFunctions;
		expect(itemParameter(ctx, 'text', 0)).toBe('$json.id');
		expect(itemParameter(ctx, 'count', 1)).toBe(3);
		expect(itemParameter(ctx, 'flag', 0, true)).toBe(false);
		expect(itemParameter(ctx, 'nothing', 0)).toBeNull();
		const fields = itemParameter(ctx, 'fields', 0) as { list: Array<{ k: string }> };
		expect(fields).toEqual(parameters.fields);
		expect(fields).not.toBe(parameters.fields);
		expect(fields.list[0]).not.toBe(parameters.fields.list[0]);
		expect(itemParameter(ctx, 'fields.list', 1)).toEqual([{ k: 'v' }]);
		expect(itemParameter(ctx, 'fields.missing', 0, 'fallback')).toBe('fallback');
		expect(evaluated).toEqual([]);
		expect(itemParameter(ctx, 'mixed', 0)).toBe('by n8n');
		expect(itemParameter(ctx, 'fields.missing', 0)).toBe('by n8n');
		expect(itemParameter(ctx, 'fields.list[0]', 0)).toBe('by n8n');
		expect(evaluated).toEqual(['mixed', 'fields.missing', 'fields.list[0]']);
	});

	test('no property of either node declares validateType (n8n validates only those after a read; itemParameter relies on it)', () => {
		const declaring: string[] = [];
		const walk = (properties: unknown[], where: string) => {
			for (const property of properties as Array<Record<string, unknown>>) {
				if (property === null || typeof property !== 'object') continue;
				const here = `${where}/${String(property.name ?? property.displayName ?? '?')}`;
				if ('validateType' in property) declaring.push(here);
				for (const key of ['options', 'values']) if (Array.isArray(property[key])) walk(property[key] as unknown[], here);
			}
		};
		walk(new Aml().description.properties, 'Aml');
		walk(new AmlTrigger().description.properties, 'AmlTrigger');
		expect(declaring).toEqual([]);
	});
});
