import type { Json, RunResult } from '../harness/client';
import { control, runAml } from '../harness/context';
import { apiRequestsSince, report, runOnCsv } from './helpers';

/**
 * Bad input, one case per row over every validation rule of the interface: each case runs the real AML node in
 * n8n and must fail with an error naming the item index, the field and the rule — and the sandbox must record no
 * API request while any of them ran (a valid item before the bad one is not sent either). The cases run a few at
 * a time in beforeAll (one execution each); the rows then check their own result.
 */
type Case = {
	name: string;
	parameters: Json;
	items: Json[];
	/** Item index the error must name. */
	item: number;
	field: string;
	rule: RegExp;
	/** Data upload cases: the file is made by n8n's Convert to File (text → file) from `items[].csv`. */
	csv?: { fileName?: string };
};

const ok = { id: 'bi-ok-1', a: { first_name: 'Valid' } };
const personJson = {
	resource: 'person',
	operation: 'create',
	personId: '={{ $json.id }}',
	personType: 'INDIVIDUAL',
	attributesMode: 'json',
	attributesJson: '={{ JSON.stringify($json.a) }}',
};
const personCase = (name: string, bad: Json, field: string, rule: RegExp): Case => ({
	name,
	parameters: personJson,
	items: [ok, { id: 'bi-p-2', a: { first_name: 'B' }, ...bad }],
	item: 1,
	field,
	rule,
});
const txInput = {
	resource: 'transaction',
	operation: 'create',
	personId: 'cust-1001',
	transactionId: '={{ $json.id }}',
	attributesMode: 'input',
	excludeInputFields: 'id',
};
const okTx = { id: 'bi-tx-ok', amount: '10.00', timestamp: '2026-03-01T10:00:00Z' };
const txCase = (name: string, bad: Json, field: string, rule: RegExp): Case => ({
	name,
	parameters: txInput,
	items: [okTx, { ...okTx, id: 'bi-tx-2', ...bad }],
	item: 1,
	field,
	rule,
});
const one = (
	name: string,
	parameters: Json,
	field: string,
	rule: RegExp,
	items: Json[] = [{}],
): Case => ({ name, parameters, items, item: items.length - 1, field, rule });
const upload = (
	name: string,
	csv: string,
	field: string,
	rule: RegExp,
	extra: Json = {},
	fileName = 'data.csv',
): Case => ({
	name,
	parameters: { resource: 'dataUpload', operation: 'upload', uploadType: 'PERSON', ...extra },
	items: [{ csv }],
	item: 0,
	field,
	rule,
	csv: { fileName },
});
const ID_CHARS = /may only contain a-z, A-Z, 0-9, hyphen, underscore, colon and dot/;
const long = (n: number) => 'x'.repeat(n);
const screening = (name: string, extra: Json = {}) => ({
	resource: 'screening',
	operation: 'search',
	name,
	recordEntityType: 'ALL',
	...extra,
});
const search = (extra: Json) => ({
	resource: 'person',
	operation: 'search',
	category: 'CUSTOMER',
	returnAll: true,
	...extra,
});
const LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';

const cases: Case[] = [
	// Identifier rule: a-z, A-Z, 0-9, hyphen, underscore, colon, dot
	personCase(
		'person id with a space',
		{ id: 'bad id' },
		'Person ID',
		/may only contain .*\(found space\)/,
	),
	personCase(
		'person id with a slash',
		{ id: 'a/b' },
		'Person ID',
		/may only contain .*\(found "\/"\)/,
	),
	personCase(
		'person id with a non-ASCII letter',
		{ id: 'müller' },
		'Person ID',
		/may only contain .*\(found "ü"\)/,
	),
	personCase('empty person id', { id: '' }, 'Person ID', /must be a non-empty text ID/),
	txCase(
		'transaction id with "#"',
		{ id: 'tx#2' },
		'Transaction ID',
		/may only contain .*\(found "#"\)/,
	),
	one(
		'transaction owner id with "@"',
		{ ...txInput, personId: 'cust@1001' },
		'Person ID',
		ID_CHARS,
		[okTx],
	),
	one(
		'check: transaction id with a space',
		{ resource: 'transaction', operation: 'runMonitoringCheck', transactionId: '={{ $json.id }}' },
		'Transaction ID',
		ID_CHARS,
		[{ id: 'tx-1' }, { id: 'tx 2' }],
	),
	one(
		'manual alert: person id with "%"',
		{ resource: 'alert', operation: 'createManualAlert', personId: 'cust%1', rationale: 'OTHER' },
		'Person ID',
		ID_CHARS,
	),
	one(
		'custom list record id with a comma',
		{
			resource: 'customList',
			operation: 'create',
			customListId: LIST,
			recordId: 'r,1',
			attributesMode: 'json',
			attributesJson: '{"name":"X"}',
		},
		'Record ID',
		ID_CHARS,
	),
	// Attribute rules
	personCase(
		'attribute key with "."',
		{ a: { 'address.city': 'Berlin' } },
		'attributes.address.city',
		/a key must not contain "\."/,
	),
	personCase(
		'nested attribute key with "."',
		{ a: { address: { 'zip.code': '1' } } },
		'attributes.address.zip.code',
		/a key must not contain "\."/,
	),
	personCase(
		'whitespace-only attribute key',
		{ a: { '   ': 'x' } },
		'attributes."   "',
		/a key must not be empty or only whitespace/,
	),
	personCase(
		'empty attribute key',
		{ a: { '': 'x' } },
		'attributes.""',
		/a key must not be empty or only whitespace/,
	),
	personCase(
		'attributes nested 3 deep',
		{ a: { a: { b: { c: 'd' } } } },
		'attributes.a.b',
		/nested at most 2 levels deep/,
	),
	personCase(
		'depth 3 inside an array item',
		{ a: { list: [{ id: '1', b: { c: 'd' } }] } },
		'attributes.list[0].b',
		/nested at most 2 levels deep/,
	),
	personCase(
		'array inside an array',
		{ a: { list: [['x']] } },
		'attributes.list[0]',
		/nested at most 2 levels deep/,
	),
	personCase(
		'attributes an array',
		{ a: [{ first_name: 'x' }] },
		'attributes',
		/must be an object of key\/value pairs/,
	),
	// Keys JavaScript treats specially: refused by name in every attribute mode (an assigned "__proto__" was dropped silently)
	one(
		'custom attribute "__proto__"',
		{
			...personJson,
			attributesMode: 'fields',
			customAttributes: {
				attribute: [
					{ key: 'first_name', value: 'P' },
					{ key: '__proto__', value: '{"polluted":"yes"}' },
				],
			},
		},
		'attributes.__proto__',
		/a key must not be "__proto__"/,
		[{ id: 'bi-proto-1' }],
	),
	one(
		'custom attribute "constructor"',
		{
			...personJson,
			attributesMode: 'fields',
			customAttributes: { attribute: [{ key: 'constructor', value: 'x' }] },
		},
		'attributes.constructor',
		/a key must not be "constructor"/,
		[{ id: 'bi-proto-2' }],
	),
	one(
		'JSON attribute "__proto__"',
		{ ...personJson, attributesJson: '{"first_name":"P","__proto__":{"x":"1"}}' },
		'attributes.__proto__',
		/a key must not be "__proto__"/,
		[{ id: 'bi-proto-3' }],
	),
	personCase(
		'nested attribute "prototype"',
		{ a: { address: { prototype: 'x' } } },
		'attributes.address.prototype',
		/a key must not be "prototype"/,
	),
	one(
		'attributes not valid JSON',
		{ ...personJson, attributesJson: '{"first_name": "x"' },
		'attributes (JSON)',
		/is not valid JSON/,
		[{ id: 'bi-json' }],
	),
	// Timestamps: ISO-8601, at most 6 fractional digits
	txCase(
		'non-ISO timestamp',
		{ timestamp: '05/03/2026 10:15' },
		'attributes.timestamp',
		/must be an ISO-8601 timestamp/,
	),
	txCase(
		'timestamp with 7 fractional digits',
		{ timestamp: '2026-03-05T10:15:00.1234567Z' },
		'attributes.timestamp',
		/at most 6 fractional-second digits \(has 7\)/,
	),
	txCase(
		'timestamp on 30 February',
		{ timestamp: '2026-02-30T10:00:00Z' },
		'attributes.timestamp',
		/is not a valid date and time/,
	),
	txCase(
		'timestamp at hour 24',
		{ timestamp: '2026-03-05T24:00:00Z' },
		'attributes.timestamp',
		/is not a valid date and time/,
	),
	one(
		'note created time with 7 fractional digits',
		{
			resource: 'person',
			operation: 'addNote',
			personId: 'cust-1001',
			content: 'x',
			options: { createdTime: '2024-05-01T12:30:00.1234567Z' },
		},
		'Created Time',
		/at most 6 fractional-second digits \(has 7\)/,
	),
	// Amount: decimal carried as text, required
	txCase(
		'amount with a thousands separator',
		{ amount: '1,250.00' },
		'attributes.amount',
		/must be a decimal number written as text/,
	),
	txCase(
		'amount with an exponent',
		{ amount: '1e3' },
		'attributes.amount',
		/must be a decimal number written as text/,
	),
	txCase(
		'amount with a currency sign',
		{ amount: '€12.00' },
		'attributes.amount',
		/must be a decimal number written as text/,
	),
	txCase('amount missing', { amount: '' }, 'attributes.amount', /is required/),
	one(
		'amount field "ten"',
		{
			resource: 'transaction',
			operation: 'create',
			personId: 'cust-1001',
			transactionId: 'bi-amt',
			attributesMode: 'fields',
			amount: 'ten',
		},
		'Amount',
		/must be a decimal number written as text/,
	),
	// Page size 1..50 (the node pages itself; Limit must be a whole number ≥ 1)
	one(
		'limit 0',
		{
			resource: 'transaction',
			operation: 'getAll',
			personId: 'cust-1001',
			returnAll: false,
			limit: '={{ 0 }}',
		},
		'Limit',
		/must be a whole number of at least 1/,
	),
	one(
		'limit 2.5',
		{
			resource: 'customList',
			operation: 'getAll',
			customListId: LIST,
			returnAll: false,
			limit: '={{ 2.5 }}',
		},
		'Limit',
		/must be a whole number of at least 1/,
	),
	// Search: 0..5 filters, query and orderBy 1..200 characters
	one(
		'6 filters',
		search({
			filters: {
				filter: Array.from({ length: 6 }, (_, i) => ({ attribute: `a${i}`, operator: 'EXISTS' })),
			},
		}),
		'Filters',
		/may have at most 5 conditions \(has 6\)/,
	),
	one(
		'filter text of 201 characters',
		search({
			filters: { filter: [{ attribute: 'last_name', operator: 'CONTAINS', query: long(201) }] },
		}),
		'Filters[1].Text',
		/may have at most 200 characters \(has 201\)/,
	),
	one(
		'empty filter text',
		search({
			filters: { filter: [{ attribute: 'last_name', operator: 'IS_EXACTLY', query: '' }] },
		}),
		'Filters[1].Text',
		/must not be empty/,
	),
	one(
		'person search order by of 201 characters',
		search({ options: { orderBy: long(201) } }),
		'Order By',
		/may have at most 200 characters \(has 201\)/,
	),
	one(
		'transaction query of 201 characters',
		{
			resource: 'transaction',
			operation: 'getAll',
			personId: 'cust-1001',
			options: { query: long(201) },
		},
		'Search Text',
		/may have at most 200 characters \(has 201\)/,
	),
	// Screening search: name at least 3 characters; list id a UUID
	one(
		'2-character screening name',
		screening('={{ $json.name }}'),
		'Name',
		/must have at least 3 characters \(has 2\)/,
		[{ name: 'Viktor' }, { name: 'Al' }],
	),
	one(
		'screening name of spaces around 2 characters',
		screening('  Al  '),
		'Name',
		/must have at least 3 characters/,
	),
	one(
		'screening list id not a UUID',
		screening('Viktor Drabenko', { configurations: { configuration: [{ listId: 'blocklist' }] } }),
		'Configurations[1] List ID',
		/must be a UUID/,
	),
	// Alerts: comment ≤ 1000, non-empty status and note, alert ids
	one(
		'1,001-character rationale comment',
		{
			resource: 'alert',
			operation: 'createManualAlert',
			personId: 'cust-1001',
			rationale: 'OTHER',
			rationaleComment: '={{ $json.c }}',
		},
		'Rationale Comment',
		/may have at most 1000 characters \(has 1001\)/,
		[{ c: 'fine' }, { c: long(1001) }],
	),
	one(
		'empty status code',
		{
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MONITORING',
			alertId: '1',
			status: '   ',
		},
		'Status Code',
		/must not be empty/,
	),
	one(
		'empty note on a status update',
		{
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MONITORING',
			alertId: '1',
			status: 'CLOSED',
			note: '   ',
		},
		'Note',
		/must not consist of spaces only/,
	),
	one(
		'empty person note',
		{ resource: 'person', operation: 'addNote', personId: 'cust-1001', content: '   ' },
		'Content',
		/must not be empty/,
	),
	one(
		'negative alert id',
		{
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'SCREENING',
			alertId: '-1',
			status: 'CLOSED',
		},
		'Alert ID',
		/must be a whole-number alert ID of at least 0/,
	),
	one(
		'fractional manual alert id',
		{ resource: 'alert', operation: 'updateManualAlert', alertId: '1.5', rationale: 'OTHER' },
		'Alert ID',
		/must be a whole-number alert ID of at least 1/,
	),
	one(
		'upload id not a number',
		{ resource: 'dataUpload', operation: 'getStatus', uploadId: 'abc' },
		'Upload ID',
		/must be a whole number of at least 1/,
	),
	one(
		'custom list id not a UUID',
		{ resource: 'customList', operation: 'get', customListId: 'blocklist', recordId: 'r-1' },
		'Custom List ID',
		/must be a UUID/,
	),
	// Enumerations given by expression
	one(
		'bad person type',
		{ ...personJson, personType: '={{ "ALIEN" }}' },
		'Type',
		/must be one of .*INDIVIDUAL, LEGAL/,
		[ok],
	),
	one(
		'bad person category',
		search({ category: '={{ "VIP" }}' }),
		'Category',
		/must be one of COUNTERPARTY, CUSTOMER/,
	),
	one(
		'bad manual alert rationale',
		{
			resource: 'alert',
			operation: 'createManualAlert',
			personId: 'cust-1001',
			rationale: '={{ "MAYBE" }}',
		},
		'Rationale',
		/must be one of .*SUSPICIOUS_ACTIVITY/,
	),
	one(
		'bad alert type',
		{
			resource: 'alert',
			operation: 'updateStatus',
			alertType: '={{ "WEIRD" }}',
			alertId: '1',
			status: 'CLOSED',
		},
		'Alert Type',
		/must be one of .*MONITORING/,
	),
	one(
		'bad upload type',
		{ resource: 'dataUpload', operation: 'upload', uploadType: '={{ "PEOPLE" }}' },
		'Upload Type',
		/must be one of PERSON, PERSON_RELATION, TRANSACTION, TRANSACTION_UPDATE/,
	),
	// Upload: binary property and CSV
	one(
		'wrong binary property',
		{
			resource: 'dataUpload',
			operation: 'upload',
			uploadType: 'PERSON',
			binaryPropertyName: 'file',
		},
		'Input Binary Field',
		/names no binary data of the item/,
	),
	upload(
		'CSV with ";" as separator',
		'id;type\np1;INDIVIDUAL\n',
		'CSV header',
		/uses ";" as column separator/,
	),
	upload(
		'CSV with an unclosed quote in the header',
		'"id,type\np1,INDIVIDUAL\n',
		'CSV header',
		/malformed header row \(a quote is not closed\)/,
	),
	upload(
		'CSV with a duplicate column',
		'id,type,id\np1,INDIVIDUAL,p1\n',
		'CSV header',
		/names the column "id" twice/,
	),
	upload(
		'CSV with an empty column name',
		'id,,type\np1,x,INDIVIDUAL\n',
		'CSV header',
		/empty column name at position 2/,
	),
	upload(
		'CSV without the required type column',
		'id,first_name\np1,Anna\n',
		'CSV header',
		/lacks the required column\(s\) type for type PERSON/,
	),
	upload(
		'CSV with a header row only',
		'id,type\n',
		'CSV file',
		/has a header row but no data rows/,
	),
	upload(
		'file name not .csv',
		'id,type\np1,INDIVIDUAL\n',
		'File Name',
		/must end with \.csv/,
		{},
		'persons.xlsx',
	),
];

type Outcome = {
	run?: RunResult;
	error?: { message: string; description?: string };
	crashed?: string;
};
const outcomes = new Map<string, Outcome>();
let apiDuring: unknown[] = [];

/** Data upload cases: Convert to File (text → binary `data`) is the node under test's input. */
async function runCase(c: Case): Promise<Outcome> {
	if (!c.csv) {
		const run = await runAml(c.parameters, c.items);
		return { run, error: run.error as Outcome['error'] };
	}
	const { run, error } = await runOnCsv(c.items as Array<{ csv: string }>, c.parameters, {
		fileName: c.csv.fileName,
	});
	return { run, error };
}

beforeAll(async () => {
	const mark = await control.mark();
	const started = Date.now();
	let next = 0;
	const worker = async () => {
		while (next < cases.length) {
			const c = cases[next++];
			try {
				outcomes.set(c.name, await runCase(c));
			} catch (error) {
				outcomes.set(c.name, { crashed: String(error) });
			}
		}
	};
	await Promise.all(Array.from({ length: 3 }, worker));
	apiDuring = await apiRequestsSince(mark);
	const named = cases.filter((c) =>
		new RegExp(`^Item ${c.item}: "${c.field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" `).test(
			outcomes.get(c.name)?.error?.message ?? '',
		),
	).length;
	report('bad-input', {
		cases: cases.length,
		errorsNamingItemAndField: named,
		apiRequests: apiDuring.length,
		seconds: Math.round((Date.now() - started) / 100) / 10,
	});
}, 20 * 60_000);

test('at least 40 cases', () => {
	expect(cases.length).toBeGreaterThanOrEqual(40);
	expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
});

test.each(cases.map((c) => [c.name, c] as const))(
	'%s → error names item, field and rule; nothing sent',
	(_name, c) => {
		const outcome = outcomes.get(c.name)!;
		expect(outcome.crashed).toBeUndefined();
		expect(outcome.run?.status).toBe('error');
		const message = outcome.error?.message ?? '';
		const prefix = `Item ${c.item}: "${c.field}" `;
		expect(message.slice(0, prefix.length)).toBe(prefix);
		expect(message.slice(prefix.length)).toMatch(c.rule);
		expect(outcome.error?.description).toMatch(
			new RegExp(`Nothing was sent to the AML service for item ${c.item}`),
		);
		// No case of the table reached the service's API (valid items before the bad one included).
		expect(apiDuring).toEqual([]);
	},
);
