import { context, control, customListSyncFromInput, runAml } from '../harness/context';
import { upload } from '../harness/upload';
import type { Json } from '../harness/client';

/**
 * Paging numbers from a hostile or broken service, in real n8n against the sandbox's fault answers: a list that claims
 * 2e11 results, a page that holds more than asked for, a total that is not a count. Each stops the item with an error
 * that says so, after the first page, and n8n keeps running (the same n8n answers the next run). Where the interface
 * caps a search at 10,000 results, a larger total is read as the cap.
 */

const LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';
const RECORDS = `^/api/v1/custom-lists/${LIST}/records$`;
const HITS = '^/api/v1/screening-alerts/1/hits$';

function page(total: unknown, count: number, record: (i: number) => Json): string {
	return JSON.stringify({
		number: 0,
		size: 50,
		total,
		content: Array.from({ length: count }, (_, i) => record(i)),
	});
}
const recordPage = (total: unknown, count = 50) =>
	page(total, count, (i) => ({ id: `r-${i}`, attributes: { name: `Record ${i}` } }));

async function answerWith(path: string, body: string, method = 'GET'): Promise<void> {
	await control.post('/faults', {
		rules: [{ method, path, answer: { status: 200, body, contentType: 'application/json' } }],
	});
}

afterEach(async () => {
	await control.del('/faults');
});

/** Custom List → Get Many, Return All over the answer set up. */
async function getAllRecords() {
	return await runAml({
		resource: 'customList',
		operation: 'getAll',
		customListId: LIST,
		returnAll: true,
	});
}

async function aliveAfterwards(): Promise<void> {
	const run = await runAml({ resource: 'person', operation: 'get', personId: 'cust-1001' });
	expect(run.status).toBe('success');
}

describe('paging numbers from the service are bounded', () => {
	test('Custom List → Get Many, Return All: a first page claiming 2e11 records stops with an error after one request; n8n keeps running', async () => {
		await answerWith(RECORDS, recordPage(2e11));
		const mark = await control.mark();
		const run = await getAllRecords();
		const sent = await control.requestsSince(mark);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			/^The AML service reports 200000000000 results; the node reads at most 100,000 in one run/,
		);
		expect(sent.filter((r) => r.path.endsWith('/records'))).toHaveLength(1);
		await aliveAfterwards();
	});

	test('Custom List → Get Many, Return All: 100,050 records claimed (just above the bound) stops after the first page', async () => {
		await answerWith(RECORDS, recordPage(100_050));
		const mark = await control.mark();
		const run = await getAllRecords();
		const sent = await control.requestsSince(mark);
		expect(run.error?.message).toMatch(/reports 100050 results; the node reads at most 100,000/);
		expect(sent.filter((r) => r.path.endsWith('/records'))).toHaveLength(1);
	});

	test('Custom List → Get Many with a Limit above the bound and 2e11 claimed: error after the first page', async () => {
		await answerWith(RECORDS, recordPage(2e11));
		const run = await runAml({
			resource: 'customList',
			operation: 'getAll',
			customListId: LIST,
			returnAll: false,
			limit: 1_000_000_000,
		});
		expect(run.error?.message).toMatch(/reports 200000000000 results/);
	});

	test('Alert → Get Screening Alert Hits, Return All: 2e11 hits claimed stop with an error', async () => {
		await answerWith(
			HITS,
			page(2e11, 50, (i) => ({ id: i + 1, attributes: { name: `Hit ${i}` } })),
		);
		const run = await runAml({
			resource: 'alert',
			operation: 'getScreeningHits',
			screeningAlertId: '1',
			returnAll: true,
			simplify: false,
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/reports 200000000000 results/);
		await aliveAfterwards();
	});

	test('Custom List → Sync Records: a list claiming 2e11 records stops before any change', async () => {
		await answerWith(RECORDS, recordPage(2e11));
		const mark = await control.mark();
		const run = await runAml(customListSyncFromInput(LIST), [{ id: 'r-1', name: 'Record 1' }]);
		const sent = await control.requestsSince(mark);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/reports 200000000000 results/);
		expect(sent.filter((r) => r.method !== 'GET' && r.path !== '/oauth/token')).toEqual([]);
	});

	test.each([
		[
			'a page of 51 records (pages hold at most 50)',
			recordPage(51, 51),
			/holds 51 results, more than the 50 asked for/,
		],
		['a total that is not a count', recordPage('many', 50), /its total \(many\) is not a count/],
		['a negative total', recordPage(-1, 0), /its total \(-1\) is not a count/],
	])('Custom List → Get Many: %s stops with an error', async (_name, body, message) => {
		await answerWith(RECORDS, body);
		const run = await getAllRecords();
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(message);
	});
});

/**
 * Service text in n8n's UI: a gateway answering with newlines, bidirectional controls, an echoed Authorization header,
 * the client secret and megabytes of text. Every quoted piece is bounded, flat and redacted.
 */
describe('service text quoted in errors is bounded, flat and redacted', () => {
	const hostileText = () =>
		`Bad request\nline two \u202eevil\u202c Authorization: Bearer eyJhbGciOi.secret-token_1 ` +
		`Basic YW1sOnNlY3JldA== access_token=tok-123456 ${context().sandbox.clientSecret} ` +
		'x'.repeat(5_000_000);

	function expectClean(text: string | undefined, max: number): void {
		expect(text).toBeDefined();
		const shown = text ?? '';
		expect(shown.length).toBeLessThan(max);
		expect(shown).not.toMatch(/[\n\r\u202a-\u202e\u2066-\u2069]/);
		for (const secret of [
			'eyJhbGciOi',
			'YW1sOnNlY3JldA',
			'tok-123456',
			context().sandbox.clientSecret,
		])
			expect(shown).not.toContain(secret);
	}

	test('a 400 whose body is 5 MB of hostile text: message and description bounded, no control character, no secret', async () => {
		await control.post('/faults', {
			rules: [
				{
					method: 'GET',
					path: '^/api/v1/persons/cust-1001$',
					answer: {
						status: 400,
						body: JSON.stringify({ message: hostileText() }),
						contentType: 'application/json',
					},
				},
			],
		});
		const run = await runAml({ resource: 'person', operation: 'get', personId: 'cust-1001' });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			/^Bad request: .* — service said: Bad request line two evil/,
		);
		expect(run.error?.message).toContain('Bearer [redacted]');
		expectClean(run.error?.message, 1_000);
		expectClean(run.error?.description ?? '', 2_000);
		expect(JSON.stringify(run.error).length).toBeLessThan(20_000);
	});

	test('an upload status FAILED with a 5 MB reason: the error quotes at most 1,000 characters of it, redacted', async () => {
		await control.post('/faults', {
			rules: [
				{
					method: 'GET',
					path: '^/api/v1/data-upload/\\d+/status$',
					answer: {
						status: 200,
						body: JSON.stringify({ status: 'FAILED', reason: hostileText() }),
						contentType: 'application/json',
					},
				},
			],
		});
		const run = await upload(
			{ rows: [{ id: 'quote-1', type: 'INDIVIDUAL', first_name: 'Q', last_name: 'Uote' }] },
			{ uploadType: 'PERSON', waitForCompletion: true },
		);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/ended with status FAILED: Bad request line two evil/);
		expectClean(run.error?.message, 1_200);
	});
});
