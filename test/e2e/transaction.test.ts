import { randomUUID } from 'node:crypto';

import { control, createPerson, n8n, runAml, transactionCreateFromInput } from '../harness/context';

/**
 * Transaction resource in real n8n against the sandbox: storage, paging, updates and the Clear/Block
 * routing of real-time checks (fail-closed on a failed check). The sandbox's seeded ONLINE scenario
 * "Large transaction" triggers above 10,000. No /reset: ids carry this run's suffix.
 */
const suffix = randomUUID().slice(0, 8);
const id = (name: string) => `tr-${name}-${suffix}`;
const owner = id('owner');
const checker = id('checker');
/** A person of its own for the odd-answer test: the other checks' transactions on `checker` may trigger scenarios. */
const oddChecker = id('odd-checker');

type Logged = { seq: number; method: string; path: string; status: number };
async function apiRequestsSince(mark: number): Promise<Logged[]> {
	return (await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api'));
}

async function storedTransactions(personId: string): Promise<any[]> {
	return await control.get<any[]>('/transactions', { personId });
}

async function createTransaction(
	personId: string,
	transactionId: string,
	attributes: Record<string, string>,
): Promise<void> {
	const run = await runAml({
		resource: 'transaction',
		operation: 'create',
		personId,
		transactionId,
		attributesMode: 'json',
		attributesJson: JSON.stringify(attributes),
	});
	expect(run.status).toBe('success');
}

const check = (operation: string, extra: Record<string, unknown> = {}) => ({
	resource: 'transaction',
	operation,
	transactionId: '={{ $json.id }}',
	...extra,
});

beforeAll(async () => {
	for (const personId of [owner, checker, oddChecker])
		expect(
			(await createPerson(personId, { first_name: 'Trans', last_name: 'Actor', country: 'DE' }))
				.status,
		).toBe('success');
});

afterAll(async () => {
	await control.del('/faults').catch(() => undefined);
	await n8n().cleanup();
});

describe('Transaction resource in real n8n', () => {
	test('Create stores amount, type, direction, timestamp and other attributes', async () => {
		const transactionId = id('create');
		const run = await runAml({
			resource: 'transaction',
			operation: 'create',
			personId: owner,
			transactionId,
			attributesMode: 'fields',
			amount: '1250.50',
			transactionType: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-05T10:15:00.123456Z',
			attributeFields: { receiver_name: 'Acme Trading GmbH', reference: 'Invoice 17' },
			customAttributes: { attribute: [{ key: 'channel', value: 'online' }] },
		});
		expect(run.status).toBe('success');
		const attributes = {
			amount: '1250.50',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-05T10:15:00.123456Z',
			receiver_name: 'Acme Trading GmbH',
			reference: 'Invoice 17',
			channel: 'online',
		};
		expect(run.outputs[0][0]).toEqual({
			id: transactionId,
			personId: owner,
			attributes,
			result: 'created',
		});
		const stored = (await storedTransactions(owner)).find((t) => t.id === transactionId);
		expect(stored.attributes).toEqual(attributes);

		const got = await runAml({
			resource: 'transaction',
			operation: 'get',
			personId: owner,
			transactionId,
		});
		expect(got.outputs[0][0]).toEqual({ id: transactionId, personId: owner, attributes });
	});

	test("an input field dropped onto Transaction ID or Amount ({{ $json.field }}, read without n8n's expression sandbox) gives exactly what n8n's own evaluation gives", async () => {
		// The same items twice: once with the plain field references the node reads itself, once wrapped in
		// parentheses so that n8n evaluates them. Values: text, number, padded, invalid, missing, null, object, boolean.
		const items = (p: string) => [
			{ tid: `${p}1`, 'the amount': '10.50' },
			{ tid: `${p}2`, 'the amount': 12 },
			{ tid: ` ${p}3 `, 'the amount': '1.00' },
			{ tid: `${p}4`, 'the amount': 'abc' },
			{ tid: `${p}5` },
			{ tid: `${p}6`, 'the amount': null },
			{ tid: `${p}7`, 'the amount': { value: 1 } },
			{ tid: true, 'the amount': '1.00' },
			{ 'the amount': '1.00' },
		];
		const run = async (p: string, wrap: (e: string) => string) => {
			const result = await runAml(
				{
					resource: 'transaction',
					operation: 'create',
					personId: owner,
					transactionId: `={{ ${wrap('$json.tid')} }}`,
					attributesMode: 'fields',
					amount: `={{ ${wrap('$json["the amount"]')} }}`,
				},
				items(p),
				{ continueOnFail: true },
			);
			const stored = (await storedTransactions(owner))
				.filter((t) => String(t.id).includes(p))
				.map((t) => ({ id: t.id, attributes: t.attributes }));
			return JSON.parse(JSON.stringify({ outputs: result.outputs, stored }).split(p).join('P-'));
		};
		const read = await run(id('field-a-'), (e) => e);
		const evaluated = await run(id('field-b-'), (e) => `(${e})`);
		expect(read).toEqual(evaluated);
		expect(read.outputs[0]).toHaveLength(9);
		expect(read.outputs[0][6].error).toBe(
			'Item 6: "Amount" must be text or a number, not an object or a list (value: {"value":1})',
		);
		expect(read.stored.length).toBeGreaterThanOrEqual(2);
	});

	test('Create of an existing transaction: Skip with the same data leaves it unchanged, Skip with other data fails the item, Error reports 422', async () => {
		const transactionId = id('dup');
		await createTransaction(owner, transactionId, {
			amount: '10.00',
			type: 'payment',
			direction: 'I',
			timestamp: '2026-03-05T10:00:00Z',
		});
		const params = {
			resource: 'transaction',
			operation: 'create',
			personId: owner,
			transactionId,
			attributesMode: 'json',
			attributesJson: '{"amount":"99.00"}',
		};
		// the same payment again (the attributes sent equal the stored ones): skipped
		const skip = await runAml({
			...params,
			attributesJson: '{"amount":"10.00","type":"payment"}',
			onExisting: 'skip',
		});
		expect(skip.status).toBe('success');
		expect(skip.outputs[0][0]).toMatchObject({ id: transactionId, result: 'skipped' });
		// the ID with other data: the stored transaction is read back and compared, the item fails
		const reused = await runAml({ ...params, onExisting: 'skip' });
		expect(reused.status).toBe('error');
		expect(reused.error?.message).toBe(
			`Transaction ID "${transactionId}" is already used with other data (amount): nothing was stored, and the stored transaction was not changed`,
		);
		const reusedOtherPerson = await runAml({
			...params,
			personId: checker,
			attributesJson: '{"amount":"10.00"}',
			onExisting: 'skip',
		});
		expect(reusedOtherPerson.status).toBe('error');
		expect(reusedOtherPerson.error?.message).toMatch(/is already used with other data \(person/);
		expect(
			(await storedTransactions(owner)).find((t) => t.id === transactionId).attributes.amount,
		).toBe('10.00');

		const error = await runAml({ ...params, onExisting: 'error' });
		expect(error.status).toBe('error');
		expect(error.error?.message).toMatch(/Already exists.*already exists/);
	});

	test('Get Many with Return All reads every page of more than 50 transactions; Limit stops early; order', async () => {
		const many = id('many');
		await runAml({
			resource: 'person',
			operation: 'create',
			personId: many,
			personType: 'INDIVIDUAL',
			attributesMode: 'json',
			attributesJson: '{"last_name":"Many"}',
		});
		const items = Array.from({ length: 56 }, (_, i) => ({
			personId: many,
			id: id(`m${String(i).padStart(2, '0')}`),
			amount: `${i + 1}.00`,
			type: 'payment',
			direction: 'O',
			timestamp: `2026-02-01T${String(i % 24).padStart(2, '0')}:00:00Z`,
		}));
		const seeded = await runAml(transactionCreateFromInput(), items);
		expect(seeded.status).toBe('success');
		expect(seeded.outputs[0]).toHaveLength(56);

		const mark = await control.mark();
		const all = await runAml({
			resource: 'transaction',
			operation: 'getAll',
			personId: many,
			returnAll: true,
		});
		expect(all.status).toBe('success');
		expect(all.outputs[0]).toHaveLength(56);
		expect(new Set(all.outputs[0].map((t) => t.id)).size).toBe(56);
		const pages = (await apiRequestsSince(mark)).filter((r) => r.path.endsWith('/transactions'));
		expect(pages).toHaveLength(2);

		const limited = await runAml({
			resource: 'transaction',
			operation: 'getAll',
			personId: many,
			returnAll: false,
			limit: 5,
			options: { orderBy: 'timestamp', direction: 'DESC' },
		});
		expect(limited.outputs[0]).toHaveLength(5);
		expect(limited.outputs[0][0].attributes.timestamp).toBe('2026-02-01T23:00:00Z');

		const mark2 = await control.mark();
		const bad = await runAml({
			resource: 'transaction',
			operation: 'getAll',
			personId: many,
			options: { query: 'q'.repeat(201) },
		});
		expect(bad.error?.message).toMatch(/Item 0: "Search Text" may have at most 200 characters/);
		expect(await apiRequestsSince(mark2)).toHaveLength(0);
	});

	test('Update sets status and adds new keys; other changed keys are ignored by the service', async () => {
		const transactionId = id('upd');
		await createTransaction(owner, transactionId, {
			amount: '70.00',
			type: 'payment',
			direction: 'O',
			timestamp: '2026-03-06T09:00:00Z',
			status: 'pending',
		});
		const run = await runAml({
			resource: 'transaction',
			operation: 'update',
			personId: owner,
			transactionId,
			attributesMode: 'json',
			attributesJson: JSON.stringify({
				status: 'rejected',
				review_note: 'duplicate payment',
				amount: '1.00',
			}),
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({
			id: transactionId,
			personId: owner,
			attributes: { status: 'rejected', review_note: 'duplicate payment', amount: '70.00' },
		});
		const stored = (await storedTransactions(owner)).find((t) => t.id === transactionId);
		expect(stored.attributes).toEqual({
			amount: '70.00',
			type: 'payment',
			direction: 'O',
			timestamp: '2026-03-06T09:00:00Z',
			status: 'rejected',
			review_note: 'duplicate payment',
		});
	});

	test('Monitoring check: amount over the threshold → Block with the alert stored; a clean one → Clear', async () => {
		const large = id('large');
		const small = id('small');
		await createTransaction(checker, large, {
			amount: '15000.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-07T10:00:00Z',
		});
		await createTransaction(checker, small, {
			amount: '120.00',
			type: 'payment',
			direction: 'O',
			timestamp: '2026-03-07T11:00:00Z',
		});
		const run = await runAml(check('runMonitoringCheck'), [{ id: large }, { id: small }]);
		expect(run.status).toBe('success');
		const [block, clear] = run.outputs;
		expect(clear).toEqual([{ transactionId: small, decision: 'clear', results: [], alertIds: [] }]);
		expect(block).toHaveLength(1);
		expect(block[0]).toMatchObject({
			transactionId: large,
			decision: 'block',
			reason: '1 monitoring scenario(s) triggered',
		});
		expect(block[0].results[0]).toMatchObject({
			reason: 'Large transaction',
			scenarioType: 'ONLINE',
		});
		const alerts = (await control.get<any[]>('/alerts')).filter((a) => a.transactionId === large);
		expect(alerts.map((a) => a.id)).toEqual(block[0].alertIds);

		const unresolved = await runAml(check('hasUnresolvedAlerts'), [{ id: large }, { id: small }]);
		expect(unresolved.outputs[0]).toEqual([
			{
				transactionId: large,
				decision: 'block',
				reason: 'unresolved alerts',
				hasUnresolvedAlerts: true,
			},
			{ transactionId: small, decision: 'clear', hasUnresolvedAlerts: false },
		]);
	});

	test('Monitoring check that fails with 500 or a dropped connection → not repeated (it may have run), Block "check outcome unknown" (fail-closed)', async () => {
		const failing = id('fail500');
		const dropped = id('drop');
		const fine = id('fine');
		for (const t of [failing, dropped, fine]) {
			await createTransaction(checker, t, {
				amount: '50.00',
				type: 'payment',
				direction: 'I',
				timestamp: '2026-03-08T10:00:00Z',
			});
		}
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${failing}/monitoring-checks$`,
					errorRate: 1,
					errorStatus: 500,
				},
				{
					method: 'POST',
					path: `^/api/v1/transactions/${dropped}/monitoring-checks$`,
					dropRate: 1,
				},
			],
		});
		let run;
		const mark = await control.mark();
		try {
			run = await runAml(check('runMonitoringCheck'), [
				{ id: failing },
				{ id: fine },
				{ id: dropped },
			]);
		} finally {
			await control.del('/faults');
		}
		expect(run.status).toBe('success');
		const [block, clear] = run.outputs;
		expect(clear.map((t) => t.transactionId)).toEqual([fine]);
		expect(block.map((t) => t.transactionId)).toEqual([failing, dropped]);
		expect(block[0]).toMatchObject({
			decision: 'block',
			results: [],
			httpCode: '500',
			mayHaveApplied: true,
		});
		expect(block[0].reason).toMatch(
			/^check outcome unknown: Service error \(500\): the service failed( — service said: .*)?\. The request reached the service and may have been applied; it was not repeated/,
		);
		expect(block[1]).toMatchObject({ decision: 'block', results: [], mayHaveApplied: true });
		expect(block[1].reason).toMatch(
			/^check outcome unknown: No answer from the AML service \(connection dropped\)/,
		);
		expect(clear[0].mayHaveApplied).toBeUndefined();
		// Neither check was repeated: it may have run and raised its alert, and a repeat would not report it.
		const log = await control.requestsSince(mark);
		for (const t of [failing, dropped]) {
			const attempts = log.filter((r) => r.path === `/api/v1/transactions/${t}/monitoring-checks`);
			expect({ t, attempts: attempts.length }).toEqual({ t, attempts: 1 });
		}
	});

	test('A check answered 200 without its result list (empty body, HTML page, object without the array) → Block with the reason; only an empty list clears', async () => {
		const kinds = [
			{ name: 'empty', answer: { status: 200, body: '' } },
			{
				name: 'html',
				answer: {
					status: 200,
					body: '<html><body>Maintenance</body></html>',
					contentType: 'text/html',
				},
			},
			{
				name: 'noarray',
				answer: { status: 200, body: '{"status":"ok"}', contentType: 'application/json' },
			},
		];
		const fine = id('wellformed');
		const ids = kinds.map((k) => id(`odd-${k.name}`));
		for (const t of [...ids, fine]) {
			await createTransaction(oddChecker, t, {
				amount: '40.00',
				type: 'payment',
				direction: 'I',
				timestamp: '2026-03-08T11:00:00Z',
			});
		}
		for (const [operation, segment] of [
			['runMonitoringCheck', 'monitoring-checks'],
			['runScreeningCheck', 'screening-checks'],
		] as const) {
			await control.post('/faults', {
				rules: kinds.map((k, n) => ({
					method: 'POST',
					path: `^/api/v1/transactions/${ids[n]}/${segment}$`,
					answer: k.answer,
				})),
			});
			let run;
			try {
				run = await runAml(
					check(operation),
					[...ids, fine].map((t) => ({ id: t })),
				);
			} finally {
				await control.del('/faults');
			}
			expect(run.status).toBe('success');
			const [block, clear] = run.outputs;
			expect(clear.map((t) => t.transactionId)).toEqual([fine]);
			expect(block.map((t) => t.transactionId)).toEqual(ids);
			for (const item of block) {
				expect(item).toMatchObject({ decision: 'block', alertIds: [] });
				expect(item.reason).toMatch(
					/^check answer not understood: the service answered .* without a "(results|matches)" list$/,
				);
			}
		}
	});

	test('Screening check that times out (not repeated: it may have run) or keeps answering 429 (repeated: never ran) → Block with the reason (fail-closed)', async () => {
		const hanging = id('hang');
		const limited = id('limited');
		for (const t of [hanging, limited]) {
			await createTransaction(checker, t, {
				amount: '60.00',
				type: 'payment',
				direction: 'I',
				timestamp: '2026-03-08T14:00:00Z',
			});
		}
		await control.post('/faults', {
			rules: [
				// A slow answer (the sandbox's hangRate fault still answers, see the report): longer than the 1 s timeout.
				{
					method: 'POST',
					path: `^/api/v1/transactions/${hanging}/screening-checks$`,
					latencyMs: 2500,
				},
				{
					method: 'POST',
					path: `^/api/v1/transactions/${limited}/screening-checks$`,
					rate429: 1,
					retryAfterRate: 0,
				},
			],
		});
		let run;
		const mark = await control.mark();
		try {
			// no time budget: the 429 attempts and their backoff may outlast the default 10 s (that case blocks with reason
			// "timeout": test/e2e/gate.test.ts); here the attempts' own failure is the reason
			run = await runAml(
				check('runScreeningCheck', { options: { timeout: 1000, timeBudget: 0 } }),
				[{ id: hanging }, { id: limited }],
			);
		} finally {
			await control.del('/faults');
		}
		expect(run.status).toBe('success');
		const [block, clear] = run.outputs;
		expect(clear).toEqual([]);
		expect(block.map((t) => t.transactionId)).toEqual([hanging, limited]);
		expect(block[0]).toMatchObject({
			decision: 'block',
			matches: [],
			mayHaveApplied: true,
			reason: expect.stringMatching(
				/^check outcome unknown: No answer from the AML service \(timed out\)\. The request reached the service and may have been applied/,
			),
		});
		expect(block[1]).toMatchObject({
			decision: 'block',
			matches: [],
			httpCode: '429',
			reason: expect.stringMatching(/^check failed: Rate limit exceeded/),
		});
		// a 429 says the check did not run: not flagged
		expect(block[1].mayHaveApplied).toBeUndefined();
		const log = await control.requestsSince(mark);
		const sent = (t: string) =>
			log.filter((r) => r.path === `/api/v1/transactions/${t}/screening-checks`).length;
		expect(sent(hanging)).toBe(1);
		expect(sent(limited)).toBeGreaterThan(1);
	});

	test('Continue on fail: an unknown transaction goes to Block as an error item, never to Clear', async () => {
		const fine = id('cof');
		await createTransaction(checker, fine, {
			amount: '10.00',
			type: 'payment',
			direction: 'I',
			timestamp: '2026-03-08T12:00:00Z',
		});
		const run = await runAml(check('runMonitoringCheck'), [{ id: fine }, { id: id('missing') }], {
			continueOnFail: true,
		});
		expect(run.status).toBe('success');
		const [block, clear] = run.outputs;
		expect(clear.map((t) => t.transactionId)).toEqual([fine]);
		expect(block).toHaveLength(1);
		expect(block[0].error).toMatch(/Not found/);

		// Without Continue On Fail a 404 stops the node (not a transient failure: the id is wrong).
		const stop = await runAml(check('runMonitoringCheck'), [{ id: id('missing2') }]);
		expect(stop.status).toBe('error');
		expect(stop.error?.message).toMatch(/Not found/);
	});

	test('Route to Clear/Block off: one output, the decision is a field', async () => {
		const large = id('single-large');
		await createTransaction(checker, large, {
			amount: '20000.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-09T10:00:00Z',
		});
		const run = await runAml(check('runMonitoringCheck', { routeOutputs: false }), [{ id: large }]);
		expect(run.status).toBe('success');
		expect(run.outputs).toHaveLength(1);
		expect(run.outputs[0][0]).toMatchObject({ transactionId: large, decision: 'block' });
	});

	test('Screening check: a listed receiver → Block (matches), an unlisted one → Clear', async () => {
		const listed = id('scr-hit');
		const clean = id('scr-clean');
		await createTransaction(checker, listed, {
			amount: '300.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-09T11:00:00Z',
			receiver_name: 'Viktor Drabenko',
		});
		await createTransaction(checker, clean, {
			amount: '300.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-09T11:05:00Z',
			receiver_name: 'Ordinary Shop',
		});
		const run = await runAml(check('runScreeningCheck'), [{ id: listed }, { id: clean }]);
		expect(run.status).toBe('success');
		const [block, clear] = run.outputs;
		expect(clear).toEqual([{ transactionId: clean, decision: 'clear', matches: [], alertIds: [] }]);
		expect(block).toHaveLength(1);
		expect(block[0]).toMatchObject({
			transactionId: listed,
			decision: 'block',
			reason: expect.stringMatching(/screening match/),
		});
		expect(block[0].matches[0]).toMatchObject({ inputData: 'Viktor Drabenko' });
		const screening = (await control.get<any[]>('/screening-alerts')).filter(
			(a) => a.transactionId === listed,
		);
		expect(screening.map((a) => a.id)).toEqual(block[0].alertIds);
	});

	test('bad input (id character, 7 fractional digits, non-decimal amount, missing amount) fails naming item and field; nothing sent', async () => {
		const mark = await control.mark();
		const base = {
			resource: 'transaction',
			operation: 'create',
			personId: owner,
			attributesMode: 'fields',
			transactionType: 'payment',
			direction: 'O',
		};

		const badId = await runAml({ ...base, transactionId: '={{ $json.id }}', amount: '1.00' }, [
			{ id: id('ok1') },
			{ id: 'tx 2' },
		]);
		expect(badId.status).toBe('error');
		expect(badId.error?.message).toMatch(
			/Item 1: "Transaction ID" may only contain .*\(found space\)/,
		);

		const fraction = await runAml({
			...base,
			transactionId: id('frac'),
			amount: '1.00',
			timestamp: '2026-03-05T10:15:00.1234567Z',
		});
		expect(fraction.error?.message).toMatch(
			/Item 0: "Timestamp" may have at most 6 fractional-second digits \(has 7\)/,
		);

		const amount = await runAml({ ...base, transactionId: id('amt'), amount: '1,250.00' });
		expect(amount.error?.message).toMatch(
			/Item 0: "Amount" must be a decimal number written as text/,
		);

		const missing = await runAml({
			resource: 'transaction',
			operation: 'create',
			personId: owner,
			transactionId: id('noamt'),
			attributesMode: 'json',
			attributesJson: '{"type":"payment"}',
		});
		expect(missing.error?.message).toMatch(/Item 0: "attributes.amount" is required/);

		const inputAmount = await runAml(
			{
				resource: 'transaction',
				operation: 'create',
				personId: owner,
				transactionId: '={{ $json.id }}',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			[
				{ id: id('in1'), amount: '5.00' },
				{ id: id('in2'), amount: 'ten' },
			],
		);
		expect(inputAmount.error?.message).toMatch(
			/Item 1: "attributes.amount" must be a decimal number/,
		);

		const checkId = await runAml(check('runMonitoringCheck'), [{ id: 'bad#id' }]);
		expect(checkId.error?.message).toMatch(/Item 0: "Transaction ID" may only contain/);

		expect(await apiRequestsSince(mark)).toHaveLength(0);
		expect((await storedTransactions(owner)).find((t) => t.id === id('ok1'))).toBeUndefined();
	});
});
