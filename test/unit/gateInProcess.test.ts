import type { IDataObject } from 'n8n-workflow';

import { gateRun, gateService, settle, type GateService } from './gateService';

/**
 * Transaction → Gate in-process: its `execute()` through n8n's real HTTP client against an in-memory service that
 * keeps the interface's rules (test/unit/gateService.ts). Each test asserts outcomes: the decision, what the service
 * stored, which alerts exist, how many checks reached it. The timing paths (a wait that ends, a lost write, a run past
 * its budget, two copies at once) are driven by holding or faulting requests, not by sleeping on the Gate's clock.
 */

let service: GateService;
beforeEach(async () => (service = await gateService()));
afterEach(async () => {
	// the records written after the last answer land before the service stops
	await settle();
	await service.stop();
});

let n = 0;
const clean = (extra: IDataObject = {}) => ({
	id: `tx-${++n}`,
	amount: '40.00',
	receiver_name: 'Shop',
	...extra,
});
const large = (extra: IDataObject = {}) => clean({ amount: '25000.00', ...extra });
const listed = (extra: IDataObject = {}) => clean({ receiver_name: 'Viktor Drabenko', ...extra });
const checks = () => service.count(/-checks$/);
const manual = (id: string) =>
	service.alerts.filter((a) => a.kind === 'manual' && a.transactionId === id);

describe('Transaction → Gate in-process: clears a bank would hold (#65 points 1-6)', () => {
	test("1. another client checked the payment between the store and the Gate's check: its alert is open, Block", async () => {
		const payment = large();
		// the other client's check runs while the Gate's store is answered
		service.faults.push({
			path: /\/monitoring-checks$/,
			times: 1,
			before: () => void service.checkedElsewhere(payment.id),
		});
		const result = await gateRun(service, payment);
		expect(result).toMatchObject({ decision: 'block' });
		expect(
			service.alerts.filter((a) => a.open && a.transactionId === payment.id).length,
		).toBeGreaterThan(0);
	});

	test('2. a payment an import stored (its alert confirmed and closed before): Block with a manual alert, no check; two copies at once never both check', async () => {
		const payment = large();
		service.imported(payment.id, {
			amount: payment.amount,
			receiver_name: 'Shop',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-01T10:00:00Z',
		});
		for (const alert of service.alerts) service.close(alert.id);
		const [a, b] = await Promise.all([gateRun(service, payment), gateRun(service, payment)]);
		for (const result of [a, b])
			expect(result).toMatchObject({ decision: 'block', reasonCode: 'stored-before-gate' });
		expect(checks()).toBe(0);
		await settle();
		expect(manual(payment.id)).toHaveLength(1);
		// released: one copy checks under a claim taken before any check; the other waits for its decision
		service.setStatus(payment.id, 'RELEASED');
		for (const alert of manual(payment.id)) service.close(alert.id);
		const [c, d] = await Promise.all([gateRun(service, payment), gateRun(service, payment)]);
		expect(service.count(/\/monitoring-checks$/)).toBe(1);
		expect(service.count(/\/screening-checks$/)).toBe(1);
		// the repeat raises nothing; nothing is open: the payment clears (the risk the default block avoids)
		expect([c.decision, d.decision]).toEqual(['clear', 'clear']);
	});

	test("3. a record no key of this credential signed, released: checked, and the re-check's block recorded (the next resend blocks)", async () => {
		const payment = listed();
		await gateRun(
			service,
			payment,
			{},
			{ gateSigningSecrets: 'other-1=another credential, another key' },
		);
		await settle();
		expect((await gateRun(service, payment)).reasonCode).toBe('record-unreadable');
		service.setStatus(payment.id, 'RELEASED');
		// the alert of the first check is still open: the re-check is a repeat, the lookup blocks
		const again = await gateRun(service, payment);
		expect(again).toMatchObject({ decision: 'block', reasonCode: 'alerts-open' });
		await settle();
		for (const alert of service.alerts) service.close(alert.id);
		// the re-check's block is the payment's decision now; released again only by a status set after it
		expect(await gateRun(service, payment)).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-open',
		});
	});

	test('4. a recorded clear is not sticky: an alert raised on the payment after its clear blocks the resend', async () => {
		const payment = clean();
		expect((await gateRun(service, payment)).decision).toBe('clear');
		await settle();
		service.raise(payment.id, 'manual');
		expect(await gateRun(service, payment)).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-open',
		});
	});

	test('5. a clear recorded by a Gate with screening off is not answered by a Gate that screens: it screens', async () => {
		const payment = listed();
		expect((await gateRun(service, payment, { runScreening: false })).decision).toBe('clear');
		await settle();
		expect(await gateRun(service, payment)).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-raised',
		});
		expect(service.count(/\/screening-checks$/)).toBe(1);
	});

	test('6. releasing a block whose check never answered (502) checks it again, not the lookup alone', async () => {
		const payment = listed();
		service.faults.push({ path: /\/screening-checks$/, times: 1, status: 502 });
		expect(await gateRun(service, payment)).toMatchObject({
			decision: 'block',
			reasonCode: 'check-unanswered',
		});
		await settle();
		service.setStatus(payment.id, 'RELEASED');
		for (const alert of manual(payment.id)) service.close(alert.id);
		expect(await gateRun(service, payment)).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-raised',
		});
	});
});

describe("Transaction → Gate in-process: every held payment in the analysts' queue (#65 points 7-9)", () => {
	test('7. a check not answered within the budget: Block timeout, recorded, with one manual alert saying how to release it, raised after the answer', async () => {
		const payment = clean();
		service.faults.push({ path: /\/monitoring-checks$/, times: 1, delayMs: 1_500 });
		// the alert's raise held 800 ms by the service: the block is answered without waiting for it
		service.faults.push({ path: /\/manual-alerts$/, times: 1, delayMs: 800 });
		const result = await gateRun(service, payment, { options: { timeBudget: 500 } });
		expect(result).toMatchObject({ decision: 'block', reasonCode: 'timeout', alertIds: [] });
		expect((result.steps as IDataObject).heldAlert).toEqual({ status: 'after answer' });
		expect(manual(payment.id)).toHaveLength(0);
		await settle(1_500);
		const alerts = manual(payment.id);
		expect(alerts).toHaveLength(1);
		expect(alerts[0].comment).toMatch(/RELEASED/);
		expect(alerts[0].comment!.length).toBeLessThanOrEqual(1000);
		// the resend answers the recorded block, naming the alert: no check, no second alert
		const before = checks();
		const resend = await gateRun(service, payment);
		expect(resend).toMatchObject({
			decision: 'block',
			reasonCode: 'timeout',
			alertIds: [alerts[0].id],
		});
		expect((resend.steps as IDataObject).heldAlert).toEqual({
			status: 'raised',
			alertId: alerts[0].id,
		});
		expect(checks()).toBe(before);
		expect(manual(payment.id)).toHaveLength(1);
	});

	test('8. a check answered only 429 (Retry-After past the budget) decided nothing: no alert, the next copy checks and clears', async () => {
		const payment = clean();
		service.faults.push({
			path: /\/monitoring-checks$/,
			times: 1,
			status: 429,
			headers: { 'retry-after': '30' },
		});
		expect(await gateRun(service, payment, { options: { timeBudget: 800 } })).toMatchObject({
			decision: 'block',
			reasonCode: 'check-refused',
		});
		expect(manual(payment.id)).toHaveLength(0);
		await settle();
		expect((await gateRun(service, payment)).decision).toBe('clear');
	});

	test("9. a lost write: the clear's record answered with a dropped connection is repeated; the resend gets the clear", async () => {
		const payment = clean();
		service.faults.push({
			path: /\/transactions\/[^/]+$/,
			method: 'PATCH',
			times: 1,
			dropAnswer: true,
		});
		expect((await gateRun(service, payment)).decision).toBe('clear');
		await settle(400);
		expect((await gateRun(service, payment)).decision).toBe('clear');
		expect(service.count(/\/monitoring-checks$/)).toBe(1);
	});
});

describe('Transaction → Gate in-process: copies and waits', () => {
	test('two copies at once: one checks, the other waits for its decision (a block: the same answer, one alert)', async () => {
		const payment = large();
		let release!: () => void;
		service.faults.push({
			path: /\/monitoring-checks$/,
			times: 1,
			hold: new Promise<void>((resolve) => (release = resolve)),
		});
		const first = gateRun(service, payment);
		await settle(100);
		const second = gateRun(service, payment);
		await settle(300);
		release();
		const [a, b] = await Promise.all([first, second]);
		expect([a.decision, b.decision]).toEqual(['block', 'block']);
		expect(b.reasonCode).toBe('alerts-raised');
		expect(service.count(/\/monitoring-checks$/)).toBe(1);
	});

	test('a wait that ends: the copy blocks "still-deciding" within its budget, reading with backoff (at most 8 reads in 2 s), and puts the payment in the analysts\' queue once', async () => {
		const payment = clean();
		let release!: () => void;
		service.faults.push({
			path: /\/monitoring-checks$/,
			times: 1,
			hold: new Promise<void>((resolve) => (release = resolve)),
		});
		const first = gateRun(service, payment, { options: { timeBudget: 0 } });
		await settle(100);
		const started = Date.now();
		const second = await gateRun(service, payment, { options: { timeBudget: 1_000 } });
		expect(second).toMatchObject({ decision: 'block', reasonCode: 'still-deciding' });
		expect(Date.now() - started).toBeLessThan(1_200);
		expect(service.count(/\/transactions\/[^/]+$/, 'GET')).toBeLessThanOrEqual(8);
		// a second copy whose wait ends too: still one alert for the claim that wrote no decision
		expect(await gateRun(service, payment, { options: { timeBudget: 500 } })).toMatchObject({
			decision: 'block',
			reasonCode: 'still-deciding',
		});
		await settle(300);
		const alerts = manual(payment.id);
		expect(alerts).toHaveLength(1);
		expect(alerts[0].comment).toMatch(/wrote no decision/);
		expect(alerts[0].comment).toMatch(/RELEASED/);
		// the slow run then finds that alert open after its checks: it blocks, never clears over the analysts' alert
		release();
		expect(await first).toMatchObject({ decision: 'block', reasonCode: 'alerts-open' });
	});

	test("the person's status holds the payment (looked up beside the checks): Block with a manual alert", async () => {
		service.persons.set('p-1', { id: 'p-1', status: 'SUSPENDED' });
		const payment = clean();
		expect(await gateRun(service, payment)).toMatchObject({
			decision: 'block',
			reasonCode: 'person-held',
		});
		await settle();
		expect(manual(payment.id)).toHaveLength(1);
	});

	test('Hold While the Person Has Open Alerts (off by default): on, an open alert of the person holds the next payment', async () => {
		expect((await gateRun(service, large())).decision).toBe('block');
		expect((await gateRun(service, clean())).decision).toBe('clear');
		expect(await gateRun(service, clean(), { options: { holdPersonAlerts: true } })).toMatchObject({
			decision: 'block',
			reasonCode: 'person-held',
		});
	});

	test('without Gate Signing Keys nothing is sent (no key derived from the client secret): the item fails naming the field', async () => {
		const result = await gateRun(service, clean(), {}, { gateSigningSecrets: '' });
		expect(String(result.error)).toMatch(/no Gate Signing Keys/);
		expect(service.requests).toHaveLength(0);
	});

	test("a credential that may not raise manual alerts (403): still Block, and the resend's item says the alert was not raised and why", async () => {
		service.faults.push({ path: /\/manual-alerts$/, status: 403 });
		service.faults.push({ path: /\/screening-checks$/, times: 3, status: 502 });
		const payment = clean();
		const result = await gateRun(service, payment);
		expect(result.decision).toBe('block');
		await settle();
		const resend = await gateRun(service, payment);
		expect(resend).toMatchObject({ decision: 'block', reasonCode: 'check-unanswered' });
		expect((resend.steps as IDataObject).heldAlert).toMatchObject({
			status: 'not raised',
			reason: expect.stringMatching(/16 May 2023/),
		});
		expect(manual(payment.id)).toHaveLength(0);
	});
});
