import { randomUUID } from 'node:crypto';

import * as path_ from 'node:path';

import axios from 'axios';

import {
	context,
	control,
	createPerson,
	n8n,
	runAml,
	transactionCreateFromInput,
	type Json,
	type RunResult,
} from '../harness/context';
import { EXAMPLES_DIR, prepareExample } from '../harness/examples';
import { mcpTools, textOf } from '../harness/mcp';
import { upload } from '../harness/upload';

/**
 * Transaction → Gate in real n8n against the sandbox (issue 33): what the sandbox stored, which checks it was sent and
 * which output each item took. The sandbox's ONLINE scenario "Large transaction" triggers above 10,000; a receiver named
 * "Viktor Drabenko" is on a screening list.
 */
const suffix = randomUUID().slice(0, 8);
const personId = `gate-${suffix}`;
const tx = (name: string) => `gt-${name}-${suffix}`;

type Logged = { seq: number; method: string; path: string; status: number | string };
const since = async (mark: number): Promise<Logged[]> =>
	(await control.requestsSince(mark)) as Logged[];
/** The stored transaction `id` of the test's person (its attributes hold the Gate's record). */
const storedTx = async (id: string): Promise<Json> =>
	(await control.get<Json[]>('/transactions', { personId })).find((t) => t.id === id)!;
const storedIds = async (): Promise<string[]> =>
	(await control.get<Json[]>('/transactions', { personId })).map((t) => t.id);
const sentFor = (log: Logged[], transactionId: string) =>
	log
		.filter((r) => r.path.includes(`/transactions/${transactionId}/`))
		.map((r) => r.path.split('/').pop());

/** The manual alerts of transaction `id`, once at least one exists (the Gate raises them after its answer; up to 3 s). */
const heldAlerts = async (id: string): Promise<Json[]> => {
	for (let waited = 0; ; waited += 100) {
		const held = (await control.get<Json[]>('/manual-alerts')).filter(
			(a) => a.transactionId === id,
		);
		if (held.length || waited >= 3000) return held;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
};

/** Two hours apart: the sandbox's "Transaction velocity" scenario (more than 5 within an hour) never triggers. */
let clock = Date.parse('2026-01-01T00:00:00Z');
const nextTimestamp = () => new Date((clock += 2 * 3600_000)).toISOString();

/** An item of a payment: large (monitoring hit) or small, to a listed receiver (screening match) or not. */
const payment = (id: string, hit: boolean, match: boolean, extra: Json = {}) => ({
	id,
	personId,
	amount: hit ? '25000.00' : '40.00',
	type: 'wire_transfer',
	direction: 'O',
	timestamp: nextTimestamp(),
	receiver_name: match ? 'Viktor Drabenko' : 'Ordinary Shop',
	...extra,
});

/** Transaction → Update of the payment `id` of the test's person with `attributes` (as an analyst or a feed would). */
const updateTransaction = async (id: string, attributes: Json) =>
	await runAml({
		resource: 'transaction',
		operation: 'update',
		personId,
		transactionId: id,
		attributesMode: 'json',
		attributesJson: JSON.stringify(attributes),
	});
const gate = (extra: Json = {}) =>
	transactionCreateFromInput({
		operation: 'gate',
		excludeInputFields: 'id, personId, mon, scr',
		...extra,
	});

/** The first `check` request of the transaction `id` gets the sandbox fault `fault` (a rule's fields). */
const checkFaultOnce = async (id: string, fault: Json, check = 'monitoring') =>
	await control.post('/faults', {
		rules: [
			{ method: 'POST', path: `^/api/v1/transactions/${id}/${check}-checks$`, times: 1, ...fault },
		],
	});
/** The first `check` request of the transaction `id` is held `ms` on its way in. */
const holdCheck = async (id: string, ms: number, check = 'monitoring') =>
	await checkFaultOnce(id, { latencyMs: ms }, check);

/** The AML node's own time in this execution (n8n's executionTime of its run), without the webhook around it. */
function nodeMs(run: RunResult): number {
	return run.execution.data.resultData.runData.AML[0].executionTime as number;
}

beforeAll(async () => {
	expect(
		(await createPerson(personId, { first_name: 'Gate', last_name: 'Keeper', country: 'DE' }))
			.status,
	).toBe('success');
});

afterEach(async () => {
	await control.del('/faults');
});

afterAll(async () => {
	await n8n().cleanup();
});

describe('Transaction → Gate', () => {
	test('Clear only when stored and every enabled check found nothing: each combination of results and of checks on/off (at least one on)', async () => {
		const rows = [true, false]
			.flatMap((mon) =>
				[true, false].flatMap((scr) =>
					[true, false].flatMap((hit) =>
						[true, false].map((match) => ({
							mon,
							scr,
							hit,
							match,
							id: tx(`${+mon}${+scr}${+hit}${+match}`),
						})),
					),
				),
			)
			.filter((r) => r.mon || r.scr); // both off is refused (next tests)
		const mark = await control.mark();
		const run = await runAml(
			gate({ runMonitoring: '={{ $json.mon }}', runScreening: '={{ $json.scr }}' }),
			rows.map((r) => payment(r.id, r.hit, r.match, { mon: r.mon, scr: r.scr })),
		);
		expect(run.status).toBe('success');
		const log = await since(mark);
		// Block is output 0, Clear output 1
		const [block, clear] = run.outputs;
		expect(await storedIds()).toEqual(expect.arrayContaining(rows.map((r) => r.id)));
		for (const r of rows) {
			const blocks = (r.mon && r.hit) || (r.scr && r.match);
			const item = [...clear, ...block].find((i) => i.transactionId === r.id)!;
			expect({ id: r.id, output: clear.includes(item) ? 'clear' : 'block' }).toEqual({
				id: r.id,
				output: blocks ? 'block' : 'clear',
			});
			expect(item.decision).toBe(blocks ? 'block' : 'clear');
			expect(item.steps.store).toBe('created');
			expect(item.steps.monitoring).toBe(!r.mon ? 'off' : r.hit ? 'hits' : 'clear');
			expect(item.steps.screening).toBe(!r.scr ? 'off' : r.match ? 'hits' : 'clear');
			// a clear only after the open-alerts lookup
			if (!blocks) expect(item.steps.lookup).toBe('none');
			// only the enabled checks were sent, and the lookup after them for a clear
			expect(sentFor(log, r.id).sort()).toEqual(
				[
					...(r.mon ? ['monitoring-checks'] : []),
					...(r.scr ? ['screening-checks'] : []),
					...(blocks ? [] : ['unresolved-alerts']),
				].sort(),
			);
			if (r.mon && r.hit) {
				expect(item.results.length).toBeGreaterThan(0);
				expect(item.alertIds.length).toBeGreaterThan(0);
				expect(item.reason).toMatch(/monitoring scenario\(s\) triggered/);
			} else if (r.scr && r.match) {
				expect(item.reason).toMatch(/screening match/);
			} else {
				expect(item.reason).toBeUndefined();
				expect(item.alertIds).toEqual([]);
			}
			if (r.mon && r.hit && r.scr && r.match) {
				// the alert IDs of both checks
				const ids = new Set(
					[...item.results, ...item.matches]
						.map((e: Json) => e.alertId)
						.filter((a: unknown) => typeof a === 'number'),
				);
				expect(item.alertIds.sort()).toEqual([...ids].sort());
			}
		}
	});

	test('a person the service does not know: the store is refused, no check is sent, Block', async () => {
		const id = tx('refused');
		const mark = await control.mark();
		const run = await runAml(gate(), [payment(id, false, false, { personId: `nobody-${suffix}` })]);
		expect(run.status).toBe('success');
		expect(run.outputs[1]).toEqual([]);
		const [item] = run.outputs[0];
		expect(item).toMatchObject({
			transactionId: id,
			decision: 'block',
			reasonCode: 'store-refused',
			reason: 'store refused: the service answered 404',
			steps: { store: 'store-refused', monitoring: 'not sent', screening: 'not sent' },
		});
		expect(sentFor(await since(mark), id)).toEqual([]);
	});

	test('a payment sent again (same data): Skip stores nothing new, reads it back and answers the decision written to it, no check sent', async () => {
		const id = tx('again');
		const sent = payment(id, false, false);
		const first = await runAml(gate(), [sent]);
		expect(first.outputs[1]).toEqual([
			expect.objectContaining({
				transactionId: id,
				decision: 'clear',
				steps: expect.objectContaining({
					record: { generation: 0, written: 'after answer' },
				}),
			}),
		]);
		expect(first.outputs[0]).toEqual([]);
		const mark = await control.mark();
		// the same payment sent again (same data)
		const again = await runAml(gate(), [sent]);
		expect(again.outputs[0]).toEqual([]);
		expect(again.outputs[1]).toEqual([
			expect.objectContaining({
				transactionId: id,
				decision: 'clear',
				steps: expect.objectContaining({
					store: 'skipped',
					record: { found: 'lookup', generation: 0 },
					monitoring: 'not sent',
					lookup: 'none',
				}),
			}),
		]);
		const log = await since(mark);
		// the stored transaction read back (compared, and its decision read); no check, the lookup
		expect(
			log.filter(
				(r) => r.method === 'GET' && r.path === `/api/v1/persons/${personId}/transactions/${id}`,
			).length,
		).toBeGreaterThanOrEqual(1);
		expect(sentFor(log, id)).toEqual(['unresolved-alerts']);
		const stored = (await control.get<Json[]>('/transactions', { personId })).filter(
			(t) => t.id === id,
		);
		expect(stored.map((t) => t.attributes.amount)).toEqual(['40.00']);
		expect(stored[0].attributes.n8n_gate_decision).toMatchObject({ decision: 'clear' });
		expect(stored[0].attributes.n8n_gate_claim).toMatchObject({ run: expect.any(String) });
	});

	test('a transaction ID already stored with other data: Block "transaction ID already used with other data", nothing changed, no check sent', async () => {
		const id = tx('reused');
		const sent = payment(id, false, false);
		const first = await runAml(gate(), [sent]);
		expect(first.outputs[1]).toEqual([
			expect.objectContaining({ transactionId: id, decision: 'clear' }),
		]);
		const mark = await control.mark();
		const other = await runAml(gate(), [{ ...sent, amount: '99.00' }]);
		expect(other.status).toBe('success');
		expect(other.outputs[1]).toEqual([]);
		const [item] = other.outputs[0];
		expect(item).toMatchObject({
			transactionId: id,
			decision: 'block',
			reasonCode: 'id-reused',
			reason: 'transaction ID already used with other data',
			differences: ['amount'],
			steps: { store: 'id-reused', monitoring: 'not sent', screening: 'not sent' },
		});
		expect(sentFor(await since(mark), id)).toEqual([]);
		const stored = (await control.get<Json[]>('/transactions', { personId })).filter(
			(t) => t.id === id,
		);
		expect(stored.map((t) => t.attributes.amount)).toEqual(['40.00']);
	});

	test('a payment stored without a Gate record (here a Gate with Record Decision off): Block "stored-before-gate" with one manual alert, no check; released with its alert closed, checked under a claim of its own', async () => {
		const id = tx('open-alerts');
		const sent = payment(id, true, false);
		await control.post('/config', { checksReportCreatedAlertsOnly: true });
		try {
			const first = await runAml(gate({ options: { recordDecision: false } }), [sent]);
			expect(first.outputs[0]).toEqual([
				expect.objectContaining({ transactionId: id, decision: 'block' }),
			]);
			expect(first.outputs[0][0].alertIds.length).toBeGreaterThan(0);
			// decisions not recorded: a payment found stored blocks
			const unrecorded = await runAml(gate({ options: { recordDecision: false } }), [sent]);
			expect(unrecorded.outputs[0]).toEqual([
				expect.objectContaining({ decision: 'block', reasonCode: 'not-recorded' }),
			]);
			const mark = await control.mark();
			const again = await runAml(gate(), [sent]);
			expect(again.outputs[1]).toEqual([]);
			expect(again.outputs[0]).toEqual([
				expect.objectContaining({
					transactionId: id,
					decision: 'block',
					reasonCode: 'stored-before-gate',
					steps: expect.objectContaining({
						store: 'skipped',
						monitoring: 'not sent',
						record: { found: 'block', written: 'after answer' },
						heldAlert: { status: 'after answer' },
					}),
				}),
			]);
			expect(sentFor(await since(mark), id)).toEqual([]);
			const held = await heldAlerts(id);
			expect(held).toHaveLength(1);
			expect(held[0].rationaleComment).toMatch(/stored-before-gate.*RELEASED/);
			// a copy sent again answers the recorded block; no second alert
			expect((await runAml(gate(), [sent])).outputs[0][0].reasonCode).toBe('stored-before-gate');
			// released: checked under claim 1; the repeat raises nothing, the monitoring alert of the first run is open
			await updateTransaction(id, { status: 'RELEASED' });
			const released = await runAml(gate(), [sent]);
			expect(released.outputs[0]).toEqual([
				expect.objectContaining({ decision: 'block', reasonCode: 'alerts-open' }),
			]);
			expect((await storedTx(id)).attributes.n8n_gate_claim_1).toEqual(expect.any(Object));
		} finally {
			await control.post('/config', { checksReportCreatedAlertsOnly: false });
		}
	});

	test('the same payment twice in one run, items side by side: the copy waits for the first and is answered with its decision (side by side, one of them cleared)', async () => {
		const other = tx('beside');
		const dup = tx('twice');
		const sent = payment(dup, true, false);
		// a repeated check answers only the alerts it creates itself (as the interface allows), and the first monitoring
		// check of the payment reaches the service 400 ms late: side by side, the copy would ask for open alerts and run
		// its own checks meanwhile, and whichever check came second would clear
		await control.post('/config', { checksReportCreatedAlertsOnly: true });
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${dup}/monitoring-checks$`,
					latencyMs: 400,
					times: 1,
				},
			],
		});
		try {
			const mark = await control.mark();
			// default Parallel Requests (8): after the first item, the others are sent side by side
			const run = await runAml(gate(), [payment(other, false, false), sent, sent]);
			expect(run.outputs[1]).toEqual([
				expect.objectContaining({ transactionId: other, decision: 'clear' }),
			]);
			expect(run.outputs[0]).toEqual([
				expect.objectContaining({
					transactionId: dup,
					decision: 'block',
					steps: expect.objectContaining({ store: 'created' }),
				}),
				expect.objectContaining({
					transactionId: dup,
					decision: 'block',
					steps: expect.objectContaining({
						store: 'skipped',
						record: expect.objectContaining({ found: 'block' }),
					}),
				}),
			]);
			expect(run.outputs[0][0].alertIds.length).toBeGreaterThan(0);
			// the copy is answered with the first copy's decision, with its reason and alerts, and checks nothing
			expect(run.outputs[0][1].reason).toBe(run.outputs[0][0].reason);
			expect(run.outputs[0][1].alertIds).toEqual(run.outputs[0][0].alertIds);
			expect([...sentFor(await since(mark), dup)].sort()).toEqual([
				'monitoring-checks',
				'screening-checks',
			]);
		} finally {
			await control.post('/config', { checksReportCreatedAlertsOnly: false });
		}
	});

	test('a Gate with both checks off is refused before any request, also when only one item turns both off', async () => {
		const id = tx('no-check');
		const mark = await control.mark();
		const run = await runAml(gate({ runMonitoring: false, runScreening: false }), [
			payment(id, false, false),
		]);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Turn on "Run Monitoring Check" or "Run Screening Check"/);
		expect((await since(mark)).filter((r) => r.path.includes(id))).toEqual([]);
		expect(await storedIds()).not.toContain(id);

		const ok = tx('no-check-ok');
		const off = tx('no-check-off');
		const mixed = await control.mark();
		const perItem = await runAml(
			gate({ runMonitoring: '={{ $json.mon }}', runScreening: '={{ $json.scr }}' }),
			[
				payment(ok, false, false, { mon: true, scr: true }),
				payment(off, false, false, { mon: false, scr: false }),
			],
		);
		expect(perItem.status).toBe('error');
		expect(perItem.error?.message).toMatch(
			/Turn on "Run Monitoring Check" or "Run Screening Check"/,
		);
		// not even the first item, whose checks are on, was stored or checked
		expect((await since(mixed)).filter((r) => r.path.includes(ok) || r.path.includes(off))).toEqual(
			[],
		);
		expect(await storedIds()).not.toEqual(expect.arrayContaining([ok]));
	});

	test.each([
		['5xx', { errorRate: 1, errorStatus: 503 }],
		['dropped connection', { dropRate: 1 }],
		['408 from a gateway', { errorRate: 1, errorStatus: 408 }],
	])(
		'a monitoring check that fails (%s): not repeated, Block "check-unanswered" (it may have run) with a manual alert; the screening check still answered',
		async (_name, rule) => {
			const id = tx(`fail-${_name.replace(/\W/g, '')}`);
			await control.post('/faults', {
				rules: [
					{ method: 'POST', path: `^/api/v1/transactions/${id}/monitoring-checks$`, ...rule },
				],
			});
			const mark = await control.mark();
			const run = await runAml(gate(), [payment(id, false, false)]);
			expect(run.status).toBe('success');
			expect(run.outputs[1]).toEqual([]);
			const [item] = run.outputs[0];
			expect(item).toMatchObject({
				decision: 'block',
				reasonCode: 'check-unanswered',
				reason: expect.stringMatching(/^monitoring: /),
				steps: expect.objectContaining({
					store: 'created',
					monitoring: 'unknown',
					screening: 'clear',
					heldAlert: { status: 'after answer' },
				}),
			});
			// sent once: a check that may have run is never repeated
			expect(sentFor(await since(mark), id).sort()).toEqual([
				'monitoring-checks',
				'screening-checks',
			]);
			expect(await storedIds()).toContain(id);
			expect(await heldAlerts(id)).toHaveLength(1);
		},
	);

	test('a check the service refuses for a reason to fix (403): the item fails (an error, never Clear); with Continue (using error output) it leaves there', async () => {
		const id = tx('forbidden');
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${id}(-2)?/screening-checks$`,
					answer: { status: 403, body: 'Forbidden', contentType: 'text/plain' },
				},
			],
		});
		const stopped = await runAml(gate(), [payment(id, false, false)]);
		expect(stopped.status).toBe('error');
		expect(stopped.error?.message).toMatch(/403|[Ff]orbidden|permission/);
		const continued = await runAml(gate(), [payment(`${id}-2`, false, false)], {
			continueErrorOutput: true,
		});
		expect(continued.outputs[0]).toEqual([]);
		expect(continued.outputs[1]).toEqual([]);
		expect(continued.outputs[2]).toEqual([
			expect.objectContaining({ error: expect.stringMatching(/^Insufficient permissions/) }),
		]);
	});

	test('an unreadable check answer (200 without the list) blocks', async () => {
		const id = tx('odd');
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${id}/screening-checks$`,
					answer: { status: 200, body: '{}', contentType: 'application/json' },
				},
			],
		});
		const run = await runAml(gate(), [payment(id, false, false)]);
		expect(run.outputs[1]).toEqual([]);
		expect(run.outputs[0][0]).toMatchObject({
			decision: 'block',
			reasonCode: 'check-unanswered',
			reason: 'screening: unreadable answer',
			steps: expect.objectContaining({ monitoring: 'clear', screening: 'unknown' }),
		});
	});

	test('the time budget spent in a check: Block with reason "timeout", answered within the budget', async () => {
		const id = tx('slow');
		await control.post('/faults', {
			rules: [
				{ method: 'POST', path: `^/api/v1/transactions/${id}/monitoring-checks$`, latencyMs: 4000 },
			],
		});
		const run = await runAml(gate({ options: { timeBudget: 1000 } }), [payment(id, false, false)]);
		expect(run.status).toBe('success');
		expect(run.outputs[1]).toEqual([]);
		const [item] = run.outputs[0];
		expect(item).toMatchObject({
			decision: 'block',
			reasonCode: 'timeout',
			reason: 'timeout',
			steps: expect.objectContaining({
				store: 'created',
				monitoring: 'unknown',
				screening: 'clear',
				heldAlert: { status: 'after answer' },
			}),
		});
		// the budget; the manual alert follows the answer
		expect(nodeMs(run)).toBeLessThan(1000 + 600);
		expect(await heldAlerts(id)).toHaveLength(1);
	});

	test('the time budget spent in the store: Block with reason "timeout", no check sent, "may have been stored"', async () => {
		const id = tx('slow-store');
		await control.post('/faults', {
			rules: [
				{ method: 'POST', path: `^/api/v1/persons/${personId}/transactions$`, latencyMs: 1500 },
			],
		});
		const mark = await control.mark();
		const run = await runAml(gate({ options: { timeBudget: 700 } }), [payment(id, false, false)]);
		expect(run.outputs[1]).toEqual([]);
		const [item] = run.outputs[0];
		expect(item).toMatchObject({
			decision: 'block',
			reasonCode: 'timeout',
			steps: expect.objectContaining({ store: 'timeout', monitoring: 'not sent' }),
		});
		expect(nodeMs(run)).toBeLessThan(700 + 400);
		expect(sentFor(await since(mark), id)).toEqual([]);
	});

	test('the two checks run side by side: 500 ms each, the gate takes about 500 ms, not 1000', async () => {
		const id = tx('parallel');
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${id}/(monitoring|screening)-checks$`,
					latencyMs: 500,
				},
			],
		});
		const run = await runAml(gate(), [payment(id, false, false)]);
		expect(run.outputs[1]).toEqual([expect.objectContaining({ decision: 'clear' })]);
		const ms = nodeMs(run);
		console.log(`[gate] two 500 ms checks side by side: node ${ms} ms`);
		expect(ms).toBeGreaterThanOrEqual(500);
		expect(ms).toBeLessThan(900);
	});

	test('Route to Clear/Block off: one output, decision on every item', async () => {
		const run = await runAml(gate({ routeOutputs: false }), [
			payment(tx('one-a'), false, false),
			payment(tx('one-b'), true, false),
		]);
		expect(run.outputs).toHaveLength(1);
		expect(run.outputs[0].map((i) => i.decision)).toEqual(['clear', 'block']);
	});
});

describe('Time Budget on Transaction Create and the checks', () => {
	test('Create: a spent budget fails the item and says the transaction may have been stored', async () => {
		const id = tx('create-slow');
		await control.post('/faults', {
			rules: [
				{ method: 'POST', path: `^/api/v1/persons/${personId}/transactions$`, latencyMs: 1500 },
			],
		});
		const run = await runAml({
			resource: 'transaction',
			operation: 'create',
			personId,
			transactionId: id,
			attributesMode: 'json',
			attributesJson: '{"amount":"1.00"}',
			options: { timeBudget: 500 },
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/^Time budget of 500 ms spent: .*may have been applied/);
		expect(nodeMs(run)).toBeLessThan(500 + 400);
	});

	test('Run Monitoring Check: a spent budget routes to Block with reason "timeout"', async () => {
		const id = tx('check-slow');
		// stored without a check (a Gate with no check enabled is refused)
		const stored = await runAml(transactionCreateFromInput(), [payment(id, false, false)]);
		expect(stored.status).toBe('success');
		await control.post('/faults', {
			rules: [
				{ method: 'POST', path: `^/api/v1/transactions/${id}/monitoring-checks$`, latencyMs: 3000 },
			],
		});
		const run = await runAml({
			resource: 'transaction',
			operation: 'runMonitoringCheck',
			transactionId: id,
			options: { timeBudget: 800 },
		});
		expect(run.outputs[1]).toEqual([]);
		expect(run.outputs[0]).toEqual([
			expect.objectContaining({
				transactionId: id,
				decision: 'block',
				reason: 'timeout',
				results: [],
			}),
		]);
		expect(nodeMs(run)).toBeLessThan(800 + 400);
	});
});

describe('Transaction → Gate as an AI tool (MCP Server Trigger)', () => {
	test('one output: a clean payment answers decision "clear", a large one "block" with its alert IDs; both stored', async () => {
		// example 05's MCP Server Trigger with one tool: the Gate, its payment fields filled by the agent
		const mcpPath = `aml-gate-mcp-${suffix}`;
		const example = prepareExample(path_.join(EXAMPLES_DIR, '05-ai-agent-tools.json'), {
			sandboxUrl: context().sandbox.baseUrl,
			credential: context().credential,
		});
		const nodes = example.nodes as Json[];
		const trigger = nodes.find((n) => n.name === 'MCP Server Trigger')!;
		trigger.parameters.path = mcpPath;
		trigger.webhookId = randomUUID();
		const template = nodes.find((n) => n.name === 'check_transaction')!;
		const fromAI = (name: string, what: string) => `={{ $fromAI('${name}', '${what}', 'string') }}`;
		const tool = {
			...template,
			id: randomUUID(),
			name: 'gate_payment',
			parameters: {
				resource: 'transaction',
				operation: 'gate',
				personId: { __rl: true, value: fromAI('personId', 'ID of the stored person'), mode: 'id' },
				transactionId: fromAI('transactionId', 'Your ID of the payment'),
				attributesMode: 'fields',
				amount: fromAI('amount', 'Decimal amount as text'),
				descriptionType: 'manual',
				toolDescription:
					'Store a payment and check it. Answers decision clear or block; block means do not pay.',
			},
		};
		const workflow = {
			...example,
			name: `gate tool ${suffix}`,
			nodes: [trigger, tool],
			connections: {
				gate_payment: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
			},
		};
		const mcp = await mcpTools(workflow, mcpPath);
		try {
			const small = tx('tool-small');
			const large = tx('tool-large');
			const clear = JSON.parse(
				textOf(
					await mcp.client.callTool({
						name: 'gate_payment',
						arguments: { personId, transactionId: small, amount: '12.00' },
					}),
				),
			);
			expect(clear).toEqual([expect.objectContaining({ transactionId: small, decision: 'clear' })]);
			const blocked = JSON.parse(
				textOf(
					await mcp.client.callTool({
						name: 'gate_payment',
						arguments: { personId, transactionId: large, amount: '25000.00' },
					}),
				),
			);
			expect(blocked).toEqual([
				expect.objectContaining({
					transactionId: large,
					decision: 'block',
					reason: expect.stringMatching(/monitoring scenario/),
				}),
			]);
			const alertIds = (await control.get<Json[]>('/alerts'))
				.filter((a) => a.transactionId === large || a.transaction?.id === large)
				.map((a) => a.id);
			expect(blocked[0].alertIds).toEqual(expect.arrayContaining(alertIds));
			expect(alertIds.length).toBeGreaterThan(0);
			expect(await storedIds()).toEqual(expect.arrayContaining([small, large]));
		} finally {
			await mcp.close();
		}
	});
});

/**
 * A payment's decision across executions (issue 50), under the stricter reading of the interface: a repeated check
 * answers only the alerts it creates, and only the checks raise a transaction's alerts (not its store). Two runs "at
 * once" are two executions of the same workflow, the second started while the first's check is held on its way in.
 */
describe('Transaction → Gate across executions', () => {
	const stored = async (id: string): Promise<Json> =>
		(await control.get<Json[]>('/transactions', { personId })).find((t) => t.id === id) ?? {};
	const alertsOf = async (id: string): Promise<Json[]> =>
		(await control.get<Json[]>('/alerts')).filter((a) => a.transactionId === id);
	const later = async <T>(ms: number, run: () => Promise<T>): Promise<T> => {
		await new Promise((resolve) => setTimeout(resolve, ms));
		return await run();
	};
	const decisionOf = (run: RunResult) => [...run.outputs[0], ...(run.outputs[1] ?? [])][0];

	beforeAll(async () => {
		await control.post('/config', { checksReportCreatedAlertsOnly: true, alertsOnStore: false });
		// the runner workflow exists before two runs start at once (else each would build its own, in any order)
		expect((await runAml(gate(), [payment(tx('warm'), false, false)])).status).toBe('success');
	});

	afterAll(async () => {
		await control.post('/config', { checksReportCreatedAlertsOnly: false, alertsOnStore: true });
	});

	test("the same large payment twice at once (the resend 400 ms after the first, whose check is held 1.5 s): both block, the resend with the first run's decision, one check of each kind", async () => {
		const id = tx('at-once');
		const sent = payment(id, true, false);
		await holdCheck(id, 1500);
		const mark = await control.mark();
		const [first, resend] = await Promise.all([
			runAml(gate(), [sent]),
			later(400, async () => await runAml(gate(), [sent])),
		]);
		// the first run's check reached the service after the resend started: without the record, the resend's own
		// check raised the alert and the first run's repeat found nothing new (process)
		expect(decisionOf(first)).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-raised',
			steps: expect.objectContaining({
				store: 'created',
				record: { generation: 0, written: 'after answer' },
			}),
		});
		expect(decisionOf(resend)).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-raised',
			reason: decisionOf(first).reason,
			alertIds: decisionOf(first).alertIds,
			steps: expect.objectContaining({
				store: 'skipped',
				record: expect.objectContaining({ found: 'block', reads: expect.any(Number) }),
				monitoring: 'not sent',
			}),
		});
		expect(decisionOf(first).alertIds.length).toBeGreaterThan(0);
		expect(sentFor(await since(mark), id).sort()).toEqual([
			'monitoring-checks',
			'screening-checks',
		]);
		expect((await stored(id)).attributes.n8n_gate_decision).toMatchObject({ decision: 'block' });
	});

	test("the same clean payment twice at once: both clear, the resend with the first run's decision and no check of its own", async () => {
		const id = tx('at-once-clean');
		const sent = payment(id, false, false);
		await holdCheck(id, 1000);
		const mark = await control.mark();
		const [first, resend] = await Promise.all([
			runAml(gate(), [sent]),
			later(400, async () => await runAml(gate(), [sent])),
		]);
		expect(first.outputs[1]).toEqual([expect.objectContaining({ decision: 'clear' })]);
		expect(resend.outputs[1]).toEqual([
			expect.objectContaining({
				decision: 'clear',
				steps: expect.objectContaining({
					record: expect.objectContaining({ found: 'lookup' }),
					monitoring: 'not sent',
				}),
			}),
		]);
		// one check of each kind; a lookup after the first run's checks, and one for the resend's answer
		expect(sentFor(await since(mark), id).sort()).toEqual([
			'monitoring-checks',
			'screening-checks',
			'unresolved-alerts',
			'unresolved-alerts',
		]);
	});

	test('resent after a lost answer: a check the node gave up on (time budget) while the service went on: the resend blocks as the first did', async () => {
		const id = tx('lost');
		const sent = payment(id, true, false);
		await holdCheck(id, 2500);
		const first = await runAml(gate({ options: { timeBudget: 1000 } }), [sent]);
		expect(decisionOf(first)).toMatchObject({ decision: 'block', reasonCode: 'timeout' });
		// the held check has reached the service meanwhile and raised its alert
		await new Promise((resolve) => setTimeout(resolve, 2000));
		expect((await alertsOf(id)).length).toBeGreaterThan(0);
		const resend = await runAml(gate(), [sent]);
		expect(resend.outputs[1]).toEqual([]);
		expect(decisionOf(resend)).toMatchObject({ decision: 'block', reasonCode: 'timeout' });
	});

	test('resent after the analyst closed its alert: still blocked; released by the transaction status RELEASED, it clears once no alert is open', async () => {
		const id = tx('analyst');
		const sent = payment(id, true, false);
		const first = await runAml(gate(), [sent]);
		expect(decisionOf(first).decision).toBe('block');
		const [alertId] = decisionOf(first).alertIds as number[];
		const closed = await runAml({
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MONITORING',
			alertId: String(alertId),
			status: 'CLOSED AS TRUE POSITIVE',
		});
		expect(closed.status).toBe('success');
		const again = await runAml(gate(), [sent]);
		expect(again.outputs[1]).toEqual([]);
		expect(decisionOf(again)).toMatchObject({ decision: 'block', alertIds: [alertId] });

		const released = await updateTransaction(id, { status: 'released' });
		expect(released.status).toBe('success');
		const afterRelease = await runAml(gate(), [sent]);
		expect(afterRelease.outputs[1]).toEqual([
			expect.objectContaining({
				decision: 'clear',
				released: 'RELEASED',
				steps: expect.objectContaining({ lookup: 'none', monitoring: 'not sent' }),
			}),
		]);
	});

	test("a payment stored by something else (Transaction → Create): blocked by default; released, checked, then the open-alerts lookup, whose failure blocks as its own step, never the store's; with Check Payments Stored Before the Gate checked at once", async () => {
		const id = tx('stored-elsewhere');
		const sent = payment(id, false, false);
		const created = await runAml(transactionCreateFromInput(), [sent]);
		expect(created.status).toBe('success');
		// by default: held, no check, one manual alert
		const held = await runAml(gate(), [sent]);
		expect(decisionOf(held)).toMatchObject({ decision: 'block', reasonCode: 'stored-before-gate' });
		// released (the transaction's status set after that block): checked under claim 1
		await updateTransaction(id, { status: 'RELEASED' });
		await control.post('/faults', {
			rules: [
				{
					method: 'GET',
					path: `^/api/v1/transactions/${id}/unresolved-alerts$`,
					answer: { status: 410, body: 'Gone', contentType: 'text/plain' },
				},
			],
		});
		const mark = await control.mark();
		const run = await runAml(gate(), [sent]);
		expect(run.status).toBe('success');
		expect(decisionOf(run)).toMatchObject({
			decision: 'block',
			reasonCode: 'lookup-failed',
			steps: expect.objectContaining({ store: 'skipped', monitoring: 'clear', lookup: 'failed' }),
		});
		// Check Payments Stored Before the Gate: checked at once
		const atOnce = payment(tx('stored-elsewhere-at-once'), false, false);
		expect((await runAml(transactionCreateFromInput(), [atOnce])).status).toBe('success');
		const checked = await runAml(gate({ options: { checkStoredBefore: true } }), [atOnce]);
		expect(decisionOf(checked)).toMatchObject({ decision: 'clear' });
		// checks first, then the lookup
		expect(sentFor(await since(mark), id).at(-1)).toBe('unresolved-alerts');
	});

	test('the same payment sent again with its timestamp in another ISO-8601 form is the same payment', async () => {
		const id = tx('iso');
		const sent = payment(id, false, false, { timestamp: '2026-03-01T10:00:00Z' });
		expect((await runAml(gate(), [sent])).outputs[1]).toHaveLength(1);
		for (const timestamp of ['2026-03-01T10:00:00.000Z', '2026-03-01T11:00:00+01:00']) {
			const again = await runAml(gate(), [{ ...sent, timestamp }]);
			expect(decisionOf(again)).toMatchObject({ decision: 'clear' });
		}
	});

	test('Transaction → Run Monitoring Check of a transaction checked before: an empty repeat blocks "earlier alerts unresolved" while its alert is open', async () => {
		const id = tx('standalone');
		expect(decisionOf(await runAml(gate(), [payment(id, true, false)])).decision).toBe('block');
		const run = await runAml({
			resource: 'transaction',
			operation: 'runMonitoringCheck',
			transactionId: id,
		});
		expect(run.outputs[1]).toEqual([]);
		expect(run.outputs[0]).toEqual([
			expect.objectContaining({
				decision: 'block',
				reason: 'earlier alerts unresolved',
				results: [],
				unresolvedAlerts: { status: 'open' },
			}),
		]);
	});

	test('Time Budget from an expression: numeric text is its number; other text or a negative number is refused before any request', async () => {
		for (const bad of ['={{ "soon" }}', '={{ -5 }}']) {
			const mark = await control.mark();
			const refused = await runAml(gate({ options: { timeBudget: bad } }), [
				payment(tx(`budget-bad${bad.length}`), false, false),
			]);
			expect(refused.status).toBe('error');
			expect(refused.error?.message).toMatch(/"Time Budget"/);
			expect(await since(mark)).toEqual([]);
		}
		const id = tx('budget-text');
		await holdCheck(id, 1500);
		const run = await runAml(gate({ options: { timeBudget: '={{ "500" }}' } }), [
			payment(id, false, false),
		]);
		expect(decisionOf(run)).toMatchObject({ decision: 'block', reasonCode: 'timeout' });
	});

	test("each item's Time Budget counts from the node's start: three copies of one payment with 1,000 ms take about 1 s, not 3", async () => {
		const id = tx('copies');
		const sent = payment(id, false, false);
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${id}/(monitoring|screening)-checks$`,
					latencyMs: 700,
				},
			],
		});
		const run = await runAml(gate({ options: { timeBudget: 1000 } }), [sent, sent, sent]);
		expect(run.outputs[0].length + run.outputs[1].length).toBe(3);
		expect(nodeMs(run)).toBeLessThan(1000 + 600);
	});

	test('checks that are off show "off"; a null entry in a check\'s list blocks without a TypeError', async () => {
		const id = tx('null-entry');
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${id}/monitoring-checks$`,
					answer: { status: 200, body: '{"results":[null]}', contentType: 'application/json' },
				},
			],
		});
		const run = await runAml(gate({ runScreening: false }), [payment(id, false, false)]);
		expect(decisionOf(run)).toMatchObject({
			decision: 'block',
			reason: 'monitoring: 1 monitoring scenario(s) triggered',
			steps: expect.objectContaining({ screening: 'off' }),
		});
		const refused = await runAml(gate({ runScreening: false }), [
			payment(tx('off-refused'), false, false, { personId: 'nobody-here' }),
		]);
		expect(decisionOf(refused)).toMatchObject({
			decision: 'block',
			steps: expect.objectContaining({ monitoring: 'not sent', screening: 'off' }),
		});
	});
});

describe('Transaction → Gate: its record is its own (nothing a payment carries or another write stores opens or forges it)', () => {
	const stored = async (id: string): Promise<Json> =>
		(await control.get<Json[]>('/transactions', { personId })).find((t) => t.id === id) ?? {};
	const decisionOf = (run: RunResult) => [...run.outputs[0], ...(run.outputs[1] ?? [])][0];
	/** The service's API as another client of the same account (its web app, a script): not this package. */
	const otherClient = async () => {
		const c = context().sandbox;
		const token = (
			await axios.post(c.tokenUrl, 'grant_type=client_credentials', {
				auth: { username: c.clientId, password: c.clientSecret },
			})
		).data.access_token as string;
		return axios.create({
			baseURL: `${c.baseUrl}/api`,
			headers: { Authorization: `Bearer ${token}` },
		});
	};
	const requestsFor = async (mark: number, fragment: string) =>
		(await since(mark)).filter((r) => r.path.includes(fragment));

	test("every write path refuses the Gate's record keys before any request, naming the field or column", async () => {
		const id = tx('forge');
		const mark = await control.mark();
		const viaJson = await runAml({
			resource: 'transaction',
			operation: 'create',
			personId,
			transactionId: id,
			attributesMode: 'json',
			attributesJson: JSON.stringify({
				amount: '25000.00',
				n8n_gate_decision: { decision: 'clear' },
			}),
		});
		expect(viaJson.error?.message).toMatch(
			/"attributes\.n8n_gate_decision" is a key of the record/,
		);
		const viaInput = await runAml(transactionCreateFromInput(), [
			payment(id, true, false, { n8n_gate_claim: { run: 'x', until: '2099-01-01T00:00:00' } }),
		]);
		expect(viaInput.error?.message).toMatch(/"attributes\.n8n_gate_claim" is a key of the record/);
		const viaUpdate = await updateTransaction(id, { n8nGateDecision: '{"decision":"clear"}' });
		expect(viaUpdate.error?.message).toMatch(
			/"attributes\.n8nGateDecision" is a key of the record/,
		);
		// a later claim's key (the claim after an unchecked one) as well
		const viaGate = await runAml(gate(), [
			payment(id, false, false, { n8n_gate_claim_1: { run: 'x', until: '2099-01-01T00:00:00Z' } }),
		]);
		expect(viaGate.error?.message).toMatch(/"attributes\.n8n_gate_claim_1" is a key of the record/);
		for (const uploadType of ['TRANSACTION', 'TRANSACTION_UPDATE']) {
			const run = await upload(
				{
					rows: [
						{
							id,
							person_id: personId,
							timestamp: '2026-01-01T00:00:00Z',
							amount: '25000.00',
							direction: 'O',
							n8n_gate_decision: '{"decision":"clear"}',
						},
					],
				},
				{ uploadType },
			);
			expect(run.error?.message).toMatch(/"CSV header" has the column "n8n_gate_decision"/);
		}
		expect(await requestsFor(mark, id)).toEqual([]);
		expect(await requestsFor(mark, '/data-upload')).toEqual([]);
		expect(await stored(id)).toEqual({});
	});

	test('a payment whose own status is a Release Status is refused before any request, naming the field', async () => {
		const id = tx('own-status');
		const mark = await control.mark();
		const released = await runAml(gate(), [payment(id, true, false, { status: 'released' })]);
		expect(released.error?.message).toMatch(/"attributes\.status" is one of the Release Statuses/);
		const approved = await runAml(gate({ options: { releaseStatuses: 'APPROVED' } }), [
			payment(id, true, false, { status: 'approved' }),
		]);
		expect(approved.error?.message).toMatch(/"attributes\.status" is one of the Release Statuses/);
		expect(await requestsFor(mark, id)).toEqual([]);
	});

	test("a resend differing only in status is the same payment: blocked with status pending, released by the analyst's RELEASED while the payment system still sends pending", async () => {
		const id = tx('pending');
		const sent = payment(id, true, false, { status: 'pending' });
		const first = await runAml(gate(), [sent]);
		expect(decisionOf(first)).toMatchObject({ decision: 'block' });
		for (const alertId of decisionOf(first).alertIds as number[]) {
			const closed = await runAml({
				resource: 'alert',
				operation: 'updateStatus',
				alertType: 'MONITORING',
				alertId: String(alertId),
				status: 'CLOSED AS FALSE POSITIVE',
			});
			expect(closed.status).toBe('success');
		}
		const update = await updateTransaction(id, { status: 'RELEASED' });
		expect(update.status).toBe('success');
		const again = await runAml(gate(), [sent]);
		expect(again.outputs[1]).toEqual([
			expect.objectContaining({
				decision: 'clear',
				released: 'RELEASED',
				steps: expect.objectContaining({ store: 'skipped' }),
			}),
		]);
	});

	test('a payment stored by an import with a Release Status as its status: that status never releases its block', async () => {
		const id = tx('imported-released');
		const created = await runAml(transactionCreateFromInput(), [
			payment(id, true, false, { status: 'RELEASED' }),
		]);
		expect(created.status).toBe('success');
		const sent = {
			...payment(id, true, false),
			timestamp: (await stored(id)).attributes.timestamp,
		};
		const first = await runAml(gate(), [{ ...sent, status: 'pending' }]);
		expect(decisionOf(first)).toMatchObject({ decision: 'block' });
		const again = await runAml(gate(), [{ ...sent, status: 'pending' }]);
		expect(again.outputs[1]).toEqual([]);
		expect(decisionOf(again)).toMatchObject({
			decision: 'block',
			reasonCode: 'stored-before-gate',
			steps: expect.objectContaining({ record: { found: 'block' } }),
		});
		expect(decisionOf(again).released).toBeUndefined();
	});

	test('a decision another writer stored (not signed by this credential) is never answered: it blocks with no check sent; released, the payment is checked as a first submission', async () => {
		const id = tx('forged-clear');
		const sent = payment(id, true, false);
		const api = await otherClient();
		const { id: _id, personId: _p, ...attributes } = sent;
		await api.post(`/v1/persons/${personId}/transactions`, {
			id,
			attributes: { ...attributes, n8n_gate_decision: { decision: 'clear' } },
		});
		const mark = await control.mark();
		const first = await runAml(gate(), [sent]);
		expect(first.outputs[1]).toEqual([]);
		expect(decisionOf(first)).toMatchObject({ decision: 'block', reasonCode: 'record-unreadable' });
		expect(decisionOf(first).reason).toMatch(/not signed by a key of this credential/);
		expect(sentFor(await since(mark), id)).toEqual([]);
		await api.patch(`/v1/persons/${personId}/transactions/${id}`, {
			id,
			attributes: { status: 'RELEASED' },
		});
		const mark2 = await control.mark();
		const released = await runAml(gate(), [sent]);
		expect(decisionOf(released)).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-raised',
			steps: expect.objectContaining({ monitoring: 'hits' }),
		});
		expect(sentFor(await since(mark2), id)).toEqual(
			expect.arrayContaining(['monitoring-checks', 'screening-checks']),
		);
		// the re-check's block is recorded as the next generation
		for (
			let waited = 0;
			waited < 3000 && !(await stored(id)).attributes.n8n_gate_decision_1;
			waited += 100
		)
			await new Promise((resolve) => setTimeout(resolve, 100));
		expect((await stored(id)).attributes.n8n_gate_decision_1).toMatchObject({ decision: 'block' });
	});

	test('a claim that cannot be read (a text; an unsigned claim) blocks "record-unreadable" with no check sent', async () => {
		const api = await otherClient();
		for (const [name, claim] of [
			['text', 'taken'],
			['local', { run: 'r', execution: '1', until: '2020-01-01T00:00:00' }],
		] as const) {
			const id = tx(`claim-${name}`);
			const sent = payment(id, false, false);
			const { id: _id, personId: _p, ...attributes } = sent;
			await api.post(`/v1/persons/${personId}/transactions`, {
				id,
				attributes: { ...attributes, n8n_gate_claim: claim },
			});
			const mark = await control.mark();
			const run = await runAml(gate(), [sent]);
			expect(run.outputs[1]).toEqual([]);
			expect(decisionOf(run)).toMatchObject({ decision: 'block', reasonCode: 'record-unreadable' });
			expect(sentFor(await since(mark), id)).toEqual([]);
		}
	});

	test('If Transaction Already Exists → Error: a payment found stored fails the item as an error naming the setting, never clear', async () => {
		const id = tx('exists-error');
		const sent = payment(id, false, false);
		expect((await runAml(gate(), [sent])).outputs[1]).toHaveLength(1);
		const stopped = await runAml(gate({ onExisting: 'error' }), [sent]);
		expect(stopped.status).toBe('error');
		expect(stopped.error?.message).toMatch(/"If Transaction Already Exists" is set to Error/);
		const continued = await runAml(gate({ onExisting: 'error' }), [sent], {
			continueErrorOutput: true,
		});
		expect(continued.outputs[0]).toEqual([]);
		expect(continued.outputs[1]).toEqual([]);
		expect(continued.outputs[2]).toEqual([
			expect.objectContaining({
				error: expect.stringMatching(/"If Transaction Already Exists" is set to Error/),
			}),
		]);
		const regular = await runAml(gate({ onExisting: 'error' }), [sent], { continueOnFail: true });
		expect(regular.outputs[1]).toEqual([]);
		expect(regular.outputs[0]).toEqual([expect.objectContaining({ decision: 'block' })]);
	});
});

describe('Transaction → Gate: a run that may have learnt something never ends without a record of it', () => {
	/** The failed item of a screening check refused while monitoring raised its alert: its block recorded. */
	const expectBlockWrittenFirst = async (id: string, failed: Json) => {
		expect(failed).toMatchObject({
			decision: 'block',
			reasonCode: 'alerts-raised',
			steps: expect.objectContaining({
				monitoring: 'hits',
				screening: 'refused',
				record: { generation: 0, written: 'after answer' },
			}),
		});
		expect(failed.alertIds.length).toBeGreaterThan(0);
		await storedWith(id, 'n8n_gate_decision');
		expect((await stored(id)).attributes.n8n_gate_decision).toMatchObject({
			decision: 'block',
			reason: expect.stringMatching(/monitoring scenario\(s\) triggered/),
			alertIds: (failed.alertIds as number[]).join(','),
		});
	};
	/** The transaction's first screening check refused (403: a permission missing on the account). */
	const screeningRefusedOnce = async (id: string) =>
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${id}/screening-checks$`,
					answer: { status: 403, body: 'Forbidden', contentType: 'text/plain' },
					times: 1,
				},
			],
		});
	const stored = async (id: string): Promise<Json> =>
		(await control.get<Json[]>('/transactions', { personId })).find((t) => t.id === id) ?? {};
	const decisionOf = (run: RunResult) => [...run.outputs[0], ...(run.outputs[1] ?? [])][0];
	const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
	/** Waits (up to `ms`) until the stored transaction `id` has the attribute `key`. */
	const storedWith = async (id: string, key: string, ms = 4000) => {
		for (let waited = 0; waited < ms && !(await stored(id)).attributes?.[key]; waited += 250)
			await pause(250);
	};
	test("a check refused (403) while the other raised its alert: the item fails keeping the other check's alert IDs, its block is recorded, and a resend blocks with them", async () => {
		const id = tx('refused-once');
		const sent = payment(id, true, false);
		await screeningRefusedOnce(id);
		const first = await runAml(gate(), [sent], { continueOnFail: true });
		expect(first.outputs[1]).toEqual([]);
		const [failed] = first.outputs[0];
		expect(failed.error).toMatch(/^Insufficient permissions/);
		await expectBlockWrittenFirst(id, failed);
		const mark = await control.mark();
		const resend = await runAml(gate(), [sent]);
		expect(resend.outputs[1]).toEqual([]);
		expect(decisionOf(resend)).toMatchObject({ decision: 'block', alertIds: failed.alertIds });
		expect(sentFor(await since(mark), id)).toEqual([]);
	});

	test("with On Error → Continue (using error output) the failed item carries the fields it has with Continue (under details): decision, reasonCode, steps and the other check's alert IDs", async () => {
		const id = tx('refused-error-output');
		await screeningRefusedOnce(id);
		const run = await runAml(gate(), [payment(id, true, false)], { continueErrorOutput: true });
		expect(run.outputs[0]).toEqual([]);
		expect(run.outputs[1]).toEqual([]);
		const [item] = run.outputs[2];
		expect(item.error).toMatch(/^Insufficient permissions/);
		const failed = item.details;
		expect(failed.transactionId).toBe(id);
		await expectBlockWrittenFirst(id, failed);
	});

	test('an execution cancelled (workflow timeout 1 s) while its check is held: the execution is cancelled, no decision is written (the check ran: its alert exists), and the next copy blocks "still-deciding" with one manual alert, never clear', async () => {
		const id = tx('cancelled');
		const sent = payment(id, true, false);
		await holdCheck(id, 1500);
		const cancelled = await runAml(
			gate({ options: { timeBudget: 1500 } }),
			[sent],
			{},
			{
				workflowSettings: { executionTimeout: 1 },
				cancelled: true,
			},
		);
		// the execution shows it cancelled, and the Gate's error: the check was on its way, it may have run
		expect(cancelled.status).toBe('canceled');
		expect(cancelled.error?.message).toMatch(
			/^The execution was cancelled while the request was on its way\. The request reached the service and may have been applied/,
		);
		expect(cancelled.error?.description).toMatch(/monitoring-checks: cancelled during attempt 1/);
		// the held check ran on the service after the cancel: its alert exists
		const raised = async () =>
			(await control.get<Json[]>('/alerts')).filter(
				(a) => a.transactionId === id && a.scenarioType === 'ONLINE',
			);
		for (let waited = 0; waited < 2000 && !(await raised()).length; waited += 100) await pause(100);
		expect((await raised()).length).toBeGreaterThan(0);
		const attributes = (await stored(id)).attributes;
		expect(attributes.n8n_gate_claim).toEqual(expect.any(Object));
		expect(attributes.n8n_gate_decision).toBeUndefined();
		const mark = await control.mark();
		const next = await runAml(gate({ options: { timeBudget: 500 } }), [sent]);
		expect(next.outputs[1]).toEqual([]);
		expect(decisionOf(next)).toMatchObject({
			decision: 'block',
			reasonCode: 'still-deciding',
			steps: expect.objectContaining({
				record: expect.objectContaining({ found: 'wait' }),
				monitoring: 'not sent',
			}),
		});
		expect(sentFor(await since(mark), id)).toEqual([]);
		// its wait ended with the claim still undecided: one manual alert puts the payment in the analysts' queue
		const held = async () =>
			(await control.get<Json[]>('/manual-alerts')).filter((a) => a.transactionId === id);
		for (let waited = 0; waited < 3000 && !(await held()).length; waited += 100) await pause(100);
		expect((await held()).map((a) => a.rationaleComment)).toEqual([
			expect.stringMatching(/still-deciding.*wrote no decision/),
		]);
	});

	test('a check whose answer trickles in for 8 s after its headers (budget 1 s): the attempt ends at the budget, Block "timeout" (it may have run) answered at the budget and its manual alert, recorded; the alert it raised is in the service', async () => {
		const id = tx('trickled-answer');
		const sent = payment(id, true, false);
		await checkFaultOnce(id, { trickleMs: 8000 });
		const run = await runAml(gate({ options: { timeBudget: 1000 } }), [sent]);
		// n8n's timeout bounds only the wait for the headers and the socket's idle time: the attempt's own end does the rest
		console.log(`[gate] trickled answer, budget 1000 ms: node ${nodeMs(run)} ms`);
		// the budget; the block's manual alert and its record follow the answer
		expect(nodeMs(run)).toBeLessThan(1000 + 600);
		expect(run.outputs[1]).toEqual([]);
		const item = decisionOf(run);
		expect(item).toMatchObject({
			decision: 'block',
			reasonCode: 'timeout',
			alertIds: [],
			steps: expect.objectContaining({
				monitoring: 'unknown',
				screening: 'clear',
				heldAlert: { status: 'after answer' },
			}),
		});
		expect(await heldAlerts(id)).toHaveLength(1);
		await storedWith(id, 'n8n_gate_decision');
		expect((await stored(id)).attributes.n8n_gate_decision).toMatchObject({ decision: 'block' });
		// the check ran on the service: its alert exists, for the analyst and the next copy's open-alerts lookup
		const raised = async () =>
			(await control.get<Json[]>('/alerts')).filter((a) => a.transactionId === id);
		for (let waited = 0; waited < 3000 && !(await raised()).length; waited += 100) await pause(100);
		expect((await raised()).length).toBeGreaterThan(0);
	});
});

describe('Transaction → Gate: each step reports its own failure', () => {
	test('a store refused (403), or a 502 then 403: the failed item says "store refused", names the store as the step, never a check; no check sent', async () => {
		for (const [name, answers] of [
			['403', [403]],
			['502-403', [502, 403]],
		] as const) {
			const id = tx(`store-${name}`);
			await control.post('/faults', {
				rules: answers.map((status) => ({
					method: 'POST',
					path: `^/api/v1/persons/${personId}/transactions$`,
					answer: {
						status,
						body: status === 403 ? 'Forbidden' : 'Bad Gateway',
						contentType: 'text/plain',
					},
					times: 1,
				})),
			});
			const mark = await control.mark();
			const run = await runAml(gate(), [payment(id, false, false)], { continueOnFail: true });
			await control.del('/faults');
			expect(run.outputs[1]).toEqual([]);
			const [failed] = run.outputs[0];
			expect(failed.error).toEqual(expect.any(String));
			expect(failed).toMatchObject({
				decision: 'block',
				reasonCode: 'store-refused',
				reason: 'store refused: the service answered 403',
				steps: { store: 'store-refused', monitoring: 'not sent', screening: 'not sent' },
			});
			expect(sentFor(await since(mark), id)).toEqual([]);
		}
	});
});
