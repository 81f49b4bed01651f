import { randomUUID } from 'node:crypto';

import type { CredentialRef, Json } from './client';
import { context, control, n8n } from './context';
import { importExample } from './examples';
import { api, cleanupMatrix, prepareMatrix, runOne, type Ids, type Operation } from './matrix';
import { resources } from '../../nodes/Aml/actions/router';

/**
 * The payment gate's one rule, through example 01 as shipped (Webhook → AML Gate → Respond to Webhook for Block, Clear
 * and the error output): Clear only when the transaction is stored with this payment's data, every enabled check
 * answered a present, empty list from the only attempt that may have run, at least one check is enabled, and all of it
 * within the time budget. Each row changes one thing a user or the service can change (a node setting, a fault after
 * the check ran, a payment ID used again, a renewal inside the budget) and sends a payment that must be held: no row
 * may answer `process`. The sandbox answers a repeated check only with the alerts it creates (empty), as the service
 * may. Shared by the e2e suite (n8n 2.41.1) and the compat suite (1.123.81, 2.0.3).
 */
export function describeGateRules(): void {
	describe('example 01: no node setting, repeated check or reused ID answers process for a payment to hold', () => {
		const KEY = 'X-Core-Banking-Key';
		const secret = `rules-${randomUUID()}`;
		const u = randomUUID().slice(0, 6);
		const personId = 'cust-1001';
		let workflowId = '';
		let shipped: Json;
		let header: CredentialRef;
		let path = '';
		let clock = Date.parse('2026-03-01T00:00:00Z');

		/** A payment: large (the monitoring scenario triggers above 10,000), to a listed receiver, or clean. */
		const payment = (id: string, kind: 'large' | 'listed' | 'clean', extra: Json = {}) => ({
			id: `${id}-${u}`,
			personId,
			amount: kind === 'large' ? '25000.00' : '40.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: new Date((clock += 2 * 3600_000)).toISOString(),
			receiver_name: kind === 'listed' ? 'Viktor Drabenko' : 'Ordinary Shop',
			...extra,
		});

		/** Saves example 01 with the Gate changed by `gate` (node settings or parameters), on a path of its own, and publishes it. */
		async function publish(gate: (node: Json) => void = () => undefined): Promise<void> {
			const workflow = JSON.parse(JSON.stringify(shipped)) as Json;
			const node = (workflow.nodes as Json[]).find((n) => n.name === 'AML Gate')!;
			gate(node);
			path = `gate-rules-${randomUUID()}`;
			// every webhook of the example on a path of its own (the example may be imported elsewhere in this n8n)
			for (const hook of (workflow.nodes as Json[]).filter(
				(n) => n.type === 'n8n-nodes-base.webhook',
			))
				hook.parameters.path =
					hook.name === 'Core banking payment' ? path : `${path}-${hook.name.length}`;
			await n8n()
				.deactivate(workflowId)
				.catch(() => undefined);
			const saved = await n8n().api.put(`/workflows/${workflowId}`, {
				name: workflow.name,
				nodes: workflow.nodes,
				connections: workflow.connections,
				settings: workflow.settings ?? { executionOrder: 'v1' },
			});
			if (saved.status >= 300) throw new Error(`save: ${JSON.stringify(saved.data)}`);
			await n8n().activate(workflowId);
		}

		/** The caller's view: HTTP status and the decision it got (none when n8n answered an error). */
		async function pay(body: Json): Promise<{ status: number; answer: Json; ms: number }> {
			const started = Date.now();
			const response = await n8n().callWebhook(path, body, { headers: { [KEY]: secret } });
			return {
				status: response.status,
				answer: (response.data ?? {}) as Json,
				ms: Date.now() - started,
			};
		}

		/**
		 * Held: a block answer, or no decision at all (n8n's error answer: 500 on 2.x, 200 without a decision on 1.x);
		 * never `process`.
		 */
		/** Held: never `process`; `reason` a pattern of its text, or its `reasonCode` (one of the codes, when a list). */
		function expectHeld(
			result: { status: number; answer: Json },
			reason?: RegExp | string | string[],
		): void {
			expect(result.answer.decision).not.toBe('process');
			if (result.answer.decision !== undefined) expect(result.answer.decision).toBe('block');
			if (reason instanceof RegExp) expect(String(result.answer.reason)).toMatch(reason);
			else if (reason !== undefined) expect([reason].flat()).toContain(result.answer.reasonCode);
		}

		const amount = async (id: string) =>
			(await control.get<Json[]>('/transactions', { personId })).find((t) => t.id === id)
				?.attributes.amount;

		beforeAll(async () => {
			await control.post('/config', { checksReportCreatedAlertsOnly: true });
			header = await n8n().createCredential(`gate rules header ${u}`, 'httpHeaderAuth', {
				name: KEY,
				value: secret,
			});
			const imported = await importExample(n8n(), '01-transaction-gate.json', {
				credentials: { amlOAuth2Api: context().credential, httpHeaderAuth: header },
			});
			workflowId = imported.id;
			shipped = imported.workflow;
		});

		afterEach(async () => {
			await control.del('/faults');
		});

		afterAll(async () => {
			await control.post('/config', { checksReportCreatedAlertsOnly: false });
			await n8n()
				.deactivate(workflowId)
				.catch(() => undefined);
			await n8n()
				.deleteWorkflow(workflowId)
				.catch(() => undefined);
			await n8n()
				.deleteCredential(header.id)
				.catch(() => undefined);
		});

		test('as shipped: a clean payment is processed, a large one blocked (the controls of the rows below)', async () => {
			await publish();
			expect((await pay(payment('ok', 'clean'))).answer).toMatchObject({ decision: 'process' });
			expectHeld(await pay(payment('large', 'large')), /monitoring scenario/);
		});

		test('Always Output Data on the Gate: refused, the payment is answered block', async () => {
			await publish((node) => (node.alwaysOutputData = true));
			const result = await pay(payment('aod', 'large'));
			expectHeld(result, /Always Output Data/);
			// refused before any request: nothing stored
			expect(await amount(`aod-${u}`)).toBeUndefined();
		});

		test('Retry On Fail on the Gate, in each On Error mode: refused, never process', async () => {
			for (const onError of ['continueErrorOutput', 'continueRegularOutput', 'stopWorkflow']) {
				await publish((node) => Object.assign(node, { retryOnFail: true, maxTries: 3, onError }));
				const result = await pay(payment(`retry-${onError}`, 'large'));
				expectHeld(result);
				if (onError === 'stopWorkflow') expect(result.answer.decision).toBeUndefined();
				if (onError !== 'stopWorkflow')
					expect(String(result.answer.reason)).toMatch(/Retry On Fail/);
				expect(await amount(`retry-${onError}-${u}`)).toBeUndefined();
			}
		});

		test('a Gate with both checks off does not run: a clean payment is answered block, nothing stored', async () => {
			await publish((node) =>
				Object.assign(node.parameters, { runMonitoring: false, runScreening: false }),
			);
			const result = await pay(payment('nochecks', 'clean'));
			expectHeld(result, /Run Monitoring Check.*Run Screening Check/);
			expect(await amount(`nochecks-${u}`)).toBeUndefined();
		});

		test.each([
			['monitoring', '500', 'large'],
			['monitoring', 'dropped', 'large'],
			['screening', '500', 'listed'],
			['screening', 'dropped', 'listed'],
		] as const)(
			'the %s check ran (its alert exists) and its answer was %s: not repeated, blocked as outcome unknown',
			async (check, fault, kind) => {
				await publish();
				const p = payment(`${check}-${fault}`, kind);
				const mark = await control.mark();
				await control.post('/faults', {
					rules: [
						{
							path: `/transactions/${p.id}/${check}-checks$`,
							when: 'after',
							times: 1,
							...(fault === '500' ? { errorRate: 1, errorStatus: 500 } : { dropRate: 1 }),
						},
					],
				});
				const result = await pay(p);
				// it may have run: the block stands as the payment's decision (a release checks it again)
				expectHeld(result, 'check-unanswered');
				expect(String(result.answer.reason)).toMatch(new RegExp(`^${check}: `));
				const sent = (await control.requestsSince(mark)).filter((r: Json) =>
					String(r.path).endsWith(`/${p.id}/${check}-checks`),
				);
				expect(sent).toHaveLength(1);
				// the check ran: its alert is there, and a repeat would have answered empty
				const alerts =
					check === 'monitoring'
						? (await control.get<Json[]>('/alerts')).filter((a) => a.transactionId === p.id)
						: (await control.get<Json[]>('/screening-alerts')).filter(
								(a) => a.transactionId === p.id,
							);
				expect(alerts.length).toBeGreaterThan(0);
			},
		);

		test('a payment ID used again with other data: blocked, the stored transaction unchanged', async () => {
			await publish();
			const first = payment('reused', 'clean');
			expect((await pay(first)).answer).toMatchObject({ decision: 'process' });
			const other = { ...first, amount: '25000.00', receiver_name: 'Someone Else' };
			const result = await pay(other);
			expectHeld(result, /^transaction ID already used with other data$/);
			expect(await amount(first.id)).toBe('40.00');
			// another person's payment under the same ID
			expectHeld(
				await pay({ ...first, personId: 'cust-1002' }),
				/^transaction ID already used with other data$/,
			);
		});

		test('a payment sent again with the same data: answered with its first decision, processed when clean, held when blocked', async () => {
			await publish();
			const clean = payment('again-clean', 'clean');
			expect((await pay(clean)).answer).toMatchObject({ decision: 'process' });
			expect((await pay(clean)).answer).toMatchObject({ decision: 'process' });
			const large = payment('again-large', 'large');
			expectHeld(await pay(large), /monitoring scenario/);
			// the repeated check would answer empty (no new alert): the decision written to the transaction holds it
			expectHeld(await pay(large), /monitoring scenario/);
		});

		test('a token renewal inside a 1 s budget: the answer after the budget is not taken, the payment held as not answered in time', async () => {
			await publish((node) =>
				Object.assign(node.parameters.options, { timeBudget: 1000, timeout: 1000 }),
			);
			// a token first; then the monitoring check is refused once (401), the renewal takes 700 ms and the check sent
			// again 400 ms: its answer would come after the budget
			expect((await pay(payment('warm', 'clean'))).answer).toMatchObject({ decision: 'process' });
			await control.post('/faults', {
				rules: [
					{ path: '^/oauth/token$', latencyMs: 700 },
					{
						path: '/monitoring-checks$',
						times: 1,
						answer: {
							status: 401,
							body: '{"message":"token expired"}',
							contentType: 'application/json',
						},
					},
					{ path: '/monitoring-checks$', latencyMs: 400 },
				],
			});
			const result = await pay(payment('renewal', 'clean'));
			// What the test controls: the check's answer would come after the budget, so it is not taken and the payment is
			// held. What ends the attempt first is the machine's timing: the 1 s Timeout or the budget while it is on its way
			// (`check-unanswered`, `timeout`: it may have run), or the budget before the repeat after the renewal is sent
			// (`check-refused`: the service never ran it, so the next copy checks it).
			expectHeld(result, ['timeout', 'check-unanswered', 'check-refused']);
			console.log(`[gate rules] renewal inside a 1,000 ms budget answered in ${result.ms} ms`);
		});
	});
}

/**
 * n8n's node settings on each of `operations`, in real n8n: Retry On Fail is refused before any request by every
 * operation that writes or checks (n8n would run the whole node again), and runs as usual on the operations that only
 * read; Always Output Data is refused by every operation whose items carry `decision` (n8n would add an empty item,
 * which is no decision).
 */
export function describeSettingsRows(operations: Operation[]): void {
	describe('node settings: Retry On Fail and Always Output Data', () => {
		let base: Omit<Ids, 'u'>;
		let row = 0;

		beforeAll(async () => {
			await control.post('/reset');
			await control.post('/config', { tokenRateLimit: { max: 100000, windowSeconds: 60 } });
			base = await prepareMatrix();
		});

		afterAll(async () => {
			await control.post('/config', { tokenRateLimit: { max: 5, windowSeconds: 60 } });
			await cleanupMatrix();
			await n8n().cleanup();
		});

		const moduleOf = (operation: Operation) =>
			resources[operation.parameters.resource as string].operations[
				operation.parameters.operation as string
			];
		const routed = (operation: Operation) =>
			operation.kind === 'routedCheck' || operation.kind === 'gate';

		/** One run of `operation` with more node settings; what reached the service for its target. */
		async function runWith(
			operation: Operation,
			onError: 'stop' | 'continueErrorOutput',
			more: Json,
		) {
			const ids = { ...base, u: `set${++row}${Date.now() % 100000}` } as Ids;
			await operation.seed?.(ids, api);
			const mark = await control.mark();
			const run = await runOne(operation, onError, ids, context().credential, '', more);
			const target = operation.target(ids);
			const sent = ((await control.requestsSince(mark)) as Json[]).filter(
				(r) => r.method === target.method && new RegExp(target.path).test(r.path),
			);
			return { run, sent };
		}

		describe('Retry On Fail on every operation', () => {
			const retry = { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 };

			test.each(operations.map((operation) => [operation.name, operation] as const))(
				'%s',
				async (_name, operation) => {
					const readOnly = moduleOf(operation).readOnly === true;
					const stopped = await runWith(operation, 'stop', retry);
					if (readOnly) {
						// a read may run again: it runs as without the setting
						expect(stopped.run.error?.message ?? '').not.toMatch(/Retry On Fail/);
						return;
					}
					expect(stopped.run.status).toBe('error');
					expect(stopped.run.error?.message).toMatch(/^Turn off "Retry On Fail"/);
					expect(stopped.sent).toEqual([]);
					// with the error output each item leaves there (routed: Block and Clear empty), nothing sent
					const continued = await runWith(operation, 'continueErrorOutput', retry);
					expect(continued.sent).toEqual([]);
					const errorOutput = continued.run.outputs[continued.run.outputs.length - 1];
					expect(errorOutput).toEqual([
						expect.objectContaining({ error: expect.stringMatching(/^Turn off "Retry On Fail"/) }),
					]);
					if (routed(operation)) expect(continued.run.outputs).toEqual([[], [], errorOutput]);
				},
			);
		});

		describe('Always Output Data on every operation', () => {
			test.each(operations.map((operation) => [operation.name, operation] as const))(
				'%s',
				async (_name, operation) => {
					const stopped = await runWith(operation, 'stop', { alwaysOutputData: true });
					if (moduleOf(operation).decides !== true) {
						expect(stopped.run.error?.message ?? '').not.toMatch(/Always Output Data/);
						return;
					}
					expect(stopped.run.status).toBe('error');
					expect(stopped.run.error?.message).toMatch(/^Turn off "Always Output Data"/);
					expect(stopped.sent).toEqual([]);
					const continued = await runWith(operation, 'continueErrorOutput', {
						alwaysOutputData: true,
					});
					expect(continued.sent).toEqual([]);
					// every item stays on the main output (Block) with its decision (an empty one would get n8n's empty
					// item); Clear and the error output empty
					expect(continued.run.outputs).toEqual([
						[
							expect.objectContaining({
								decision: 'block',
								reason: expect.stringMatching(/Turn off "Always Output Data"/),
								error: expect.stringMatching(/^Turn off "Always Output Data"/),
							}),
						],
						...(routed(operation) ? [[]] : []),
						[],
					]);
				},
			);
		});
	});
}
