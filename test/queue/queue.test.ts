import axios from 'axios';
import { execSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	N8nClient,
	PERSON_CREATE_FROM_INPUT,
	amlTriggerWorkflow,
	bodyItemsNode,
	sandboxCredentialData,
	webhookNode,
	type CredentialRef,
	type Json,
} from '../harness/client';
import {
	amlCredentialData as amlCredential,
	control,
	customListSyncFromInput,
	n8n,
	runAml,
	tokenUrlOf,
	transactionCreateFromInput,
} from '../harness/context';
import { REPO_ROOT, waitFor } from '../harness/n8n';
import { startQueueCluster, type QueueCluster } from '../harness/queue';
import { sleep } from '../harness/trigger';

/** waitFor with the test's own label. */
const until = (check: () => Promise<boolean>, ms: number) =>
	waitFor(check, ms, 'a queue-mode condition', 250);
import { upload } from '../harness/upload';
import { startSandbox, type Sandbox } from '../sandbox';

/**
 * The package on n8n's queue mode (test/harness/queue.ts): PostgreSQL, Redis, one main process, two workers that
 * run the executions, two webhook processes that take the production webhooks (every call below goes to them in
 * turn). Sizes follow the issue; AML_QUEUE_SCALE (default 1; `npm test` runs 0.5) scales them; AML_QUEUE_TOKEN_SECONDS
 * (default 2) sets the token lifetime of the token-economy test (1: a harder run).
 */
const SCALE = Number(process.env.AML_QUEUE_SCALE ?? 1);
const EXECUTIONS = 20;
const TOKEN_SECONDS = Number(process.env.AML_QUEUE_TOKEN_SECONDS ?? 2);
const ITEMS_PER_EXECUTION = Math.max(10, Math.round(500 * SCALE));
const DELIVERIES = Math.max(100, Math.round(1000 * SCALE));
const KILL_ITEMS = Math.max(500, Math.round(5000 * SCALE));

let sandbox: Sandbox;
let cluster: QueueCluster;
let dir: string;
const figures: Record<string, unknown> = {};

/** Execution ids each worker logged as started ("Worker started execution N"). */
function startedOnWorkers(): Map<string, string> {
	const on = new Map<string, string>();
	for (const worker of cluster.workers) {
		const log = fs.existsSync(worker.logFile) ? fs.readFileSync(worker.logFile, 'utf8') : '';
		for (const m of log.matchAll(/Worker started execution (\d+)/g)) on.set(m[1], worker.name);
	}
	return on;
}

async function stats(): Promise<Json> {
	return await control.get('/stats');
}

beforeAll(async () => {
	// As the e2e projects' set-up: the cluster loads dist/, so a run after a source change tests that change.
	if (process.env.AML_E2E_SKIP_BUILD !== '1')
		execSync('npm run -s build', { cwd: REPO_ROOT, stdio: 'inherit' });
	sandbox = await startSandbox({ quiet: true, webhookRetryScale: 0.001 });
	cluster = await startQueueCluster({
		workers: 2,
		webhooks: 2,
		// a killed worker's job is noticed within seconds, not n8n's default minute
		env: {
			QUEUE_WORKER_LOCK_DURATION: '10000',
			QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
			QUEUE_WORKER_STALLED_INTERVAL: '5000',
		},
	});
	const client0 = new N8nClient(cluster.main.baseUrl, cluster.main.apiKey);
	const credential = await client0.createCredential(
		'AML sandbox',
		'amlOAuth2Api',
		sandboxCredentialData(sandbox),
	);
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-queue-ctx-'));
	const file = path.join(dir, 'context.json');
	fs.writeFileSync(
		file,
		JSON.stringify({
			n8n: {
				baseUrl: cluster.main.baseUrl,
				apiKey: cluster.main.apiKey,
				logFile: cluster.main.logFile,
				userFolder: cluster.userFolder,
				owner: cluster.main.owner,
			},
			sandbox: {
				baseUrl: sandbox.baseUrl,
				tokenUrl: sandbox.tokenUrl,
				controlUrl: sandbox.controlUrl,
				clientId: sandbox.clientId,
				clientSecret: sandbox.clientSecret,
			},
			credential,
		}),
	);
	process.env.AML_E2E_CONTEXT = file;
	n8n().webhookBaseUrls = cluster.webhooks.map((w) => w.url);
}, 600_000);

afterAll(async () => {
	console.log(`[queue] figures ${JSON.stringify(figures, null, 1)}`);
	await n8n()
		.cleanup()
		.catch(() => undefined);
	await cluster?.stop();
	await sandbox?.close();
	if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 180_000);

describe('every operation family runs on the workers', () => {
	const prefix = `q-${Date.now()}`;

	test('person and transaction writes, a monitoring check with Clear/Block, Return All', async () => {
		const person = await runAml(PERSON_CREATE_FROM_INPUT, [
			{ id: `${prefix}-p`, first_name: 'Queue', last_name: 'Mode' },
		]);
		expect(person.status).toBe('success');
		const txs = Array.from({ length: 120 }, (_, i) => ({
			id: `${prefix}-t${i}`,
			personId: `${prefix}-p`,
			amount: i === 0 ? '15000.00' : '10.00',
			type: 'payment',
			direction: 'O',
			timestamp: '2026-03-07T10:00:00Z',
		}));
		const created = await runAml(transactionCreateFromInput(), txs);
		expect(created.status).toBe('success');
		expect(created.outputs[0]).toHaveLength(120);
		// a person of its own for the check: 120 transactions of one person may trigger other scenarios
		await runAml({
			resource: 'person',
			operation: 'create',
			personId: `${prefix}-c`,
			attributesMode: 'fields',
		});
		const pair = [
			{
				id: `${prefix}-large`,
				personId: `${prefix}-c`,
				amount: '15000.00',
				type: 'wire_transfer',
				direction: 'O',
				timestamp: '2026-03-07T10:00:00Z',
			},
			{
				id: `${prefix}-small`,
				personId: `${prefix}-c`,
				amount: '120.00',
				type: 'payment',
				direction: 'O',
				timestamp: '2026-03-07T11:00:00Z',
			},
		];
		expect((await runAml(transactionCreateFromInput(), pair)).status).toBe('success');
		const check = await runAml(
			{
				resource: 'transaction',
				operation: 'runMonitoringCheck',
				transactionId: '={{ $json.id }}',
			},
			[{ id: `${prefix}-large` }, { id: `${prefix}-small` }],
		);
		expect(check.status).toBe('success');
		// Block is output 0, Clear output 1
		const [block, clear] = check.outputs;
		expect(clear.map((i) => i.transactionId)).toEqual([`${prefix}-small`]);
		expect(block.map((i) => i.transactionId)).toEqual([`${prefix}-large`]);
		expect(
			(await control.get<Json[]>('/alerts')).some((a) => a.transactionId === `${prefix}-large`),
		).toBe(true);
		const all = await runAml({
			resource: 'transaction',
			operation: 'getAll',
			personId: `${prefix}-p`,
			returnAll: true,
		});
		expect(all.status).toBe('success');
		expect(all.outputs[0]).toHaveLength(120);
		const workers = startedOnWorkers();
		for (const run of [person, created, check, all])
			expect(workers.get(run.executionId)).toMatch(/^worker-/);
	});

	test('two executions gating one payment at once, on the workers: the same answer, one check of each kind', async () => {
		// the stricter reading of the interface: a repeated check answers only the alerts it creates, and only the checks
		// raise a transaction's alerts
		await control.post('/config', { checksReportCreatedAlertsOnly: true, alertsOnStore: false });
		try {
			await runAml({
				resource: 'person',
				operation: 'create',
				personId: `${prefix}-g`,
				attributesMode: 'fields',
			});
			const gate = transactionCreateFromInput({
				operation: 'gate',
				excludeInputFields: 'id, personId',
			});
			for (const [name, amount, decision] of [
				['large', '25000.00', 'block'],
				['clean', '40.00', 'clear'],
			]) {
				const id = `${prefix}-gate-${name}`;
				const sent = {
					id,
					personId: `${prefix}-g`,
					amount,
					type: 'wire_transfer',
					direction: 'O',
					timestamp: '2026-03-08T10:00:00Z',
				};
				// the first execution's monitoring check is held 1.5 s on its way in; the second starts 400 ms later
				await control.post('/faults', {
					rules: [
						{
							method: 'POST',
							path: `^/api/v1/transactions/${id}/monitoring-checks$`,
							latencyMs: 1500,
							times: 1,
						},
					],
				});
				const mark = await control.mark();
				const [first, second] = await Promise.all([
					runAml(gate, [sent]),
					sleep(400).then(async () => await runAml(gate, [sent])),
				]);
				await control.del('/faults');
				const decided = (run: typeof first) => [...run.outputs[0], ...run.outputs[1]][0];
				expect(decided(first)).toMatchObject({ decision });
				expect(decided(second)).toMatchObject({
					decision,
					steps: expect.objectContaining({
						store: 'skipped',
						record: expect.objectContaining({ found: decision === 'clear' ? 'lookup' : 'block' }),
					}),
				});
				const checks = ((await control.requestsSince(mark)) as Json[])
					.filter(
						(r) => r.method === 'POST' && String(r.path).startsWith(`/api/v1/transactions/${id}/`),
					)
					.map((r) => String(r.path).split('/').pop())
					.sort();
				expect(checks).toEqual(['monitoring-checks', 'screening-checks']);
				const workers = startedOnWorkers();
				figures[`gate ${name} workers`] = [first, second].map((run) =>
					workers.get(run.executionId),
				);
				for (const run of [first, second]) expect(workers.get(run.executionId)).toMatch(/^worker-/);
			}
		} finally {
			await control.post('/config', { checksReportCreatedAlertsOnly: false, alertsOnStore: true });
		}
	});

	test('custom list Sync', async () => {
		const listId = (
			await control.post<{ id: string }>('/custom-lists', { name: `queue sync ${prefix}` })
		).id;
		const rows = (n: number, tag: string) =>
			Array.from({ length: n }, (_, i) => ({ id: `r${i}`, name: `Person ${i} ${tag}` }));
		const params = customListSyncFromInput(listId);
		expect((await runAml(params, rows(30, 'a'))).status).toBe('success');
		const run = await runAml(params, [...rows(20, 'a'), { id: 'r99', name: 'new' }]);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ created: 1, archived: 10, unchanged: 20, failed: 0 });
		const records = await control.get<Array<{ id: string; archived: boolean }>>(
			`/custom-lists/${listId}/records`,
		);
		expect(
			records
				.filter((r) => !r.archived)
				.map((r) => r.id)
				.sort(),
		).toEqual([...rows(20, 'a').map((r) => r.id), 'r99'].sort());
		expect(startedOnWorkers().get(run.executionId)).toMatch(/^worker-/);
	});

	test('CSV upload with Wait for Completion (binary data in the database, read by the worker)', async () => {
		const rows = Array.from({ length: 25 }, (_, i) => ({
			id: `${prefix}-csv${i}`,
			type: 'INDIVIDUAL',
			first_name: `F${i}`,
			last_name: 'Csv',
		}));
		const run = await upload({ rows }, { uploadType: 'PERSON', waitForCompletion: true });
		expect(run.status).toBe('success');
		expect(run.output[0]).toMatchObject({ status: 'COMPLETED', success: true, type: 'PERSON' });
		expect(
			(await control.get<Json[]>('/persons')).filter((p) => p.id.startsWith(`${prefix}-csv`)),
		).toHaveLength(25);
		expect(startedOnWorkers().get(run.executionId)).toMatch(/^worker-/);
	});
});

test(`token economy across processes: ${EXECUTIONS} executions of ${ITEMS_PER_EXECUTION} items over both workers, ${TOKEN_SECONDS} s tokens`, async () => {
	const client = n8n();
	const credential = await client.createCredential(
		`AML tokens ${Date.now()}`,
		'amlOAuth2Api',
		amlCredential(),
	);
	const prefix = `tok-${Date.now()}`;
	const node = { parameters: PERSON_CREATE_FROM_INPUT };
	const webhookPath = `tokens-${randomUUID()}`;
	const workflow = await client.createWorkflow(
		client.runnerWorkflow(node, { credentials: { amlOAuth2Api: credential } }, webhookPath),
	);
	await client.activate(workflow.id);
	// the first use of a credential stores its token (n8n does not single-flight the very first fetch)
	expect(
		(await client.callWebhook(webhookPath, { items: [{ id: `${prefix}-first` }] })).status,
	).toBe(200);
	// tokens live TOKEN_SECONDS from now on (the stored one is expired at once)
	await control.post('/config', {
		tokenLifetimeSeconds: TOKEN_SECONDS,
	});
	await control.post('/tokens/expire');
	const before = await stats();
	const startedAt = Date.now();
	const answers = await Promise.all(
		Array.from({ length: EXECUTIONS }, (_, e) =>
			client.callWebhook(webhookPath, {
				items: Array.from({ length: ITEMS_PER_EXECUTION }, (_, i) => ({
					id: `${prefix}-${e}-${i}`,
					first_name: 'T',
				})),
			}),
		),
	);
	const seconds = (Date.now() - startedAt) / 1000;
	const after = await stats();
	await control.post('/config', { tokenLifetimeSeconds: 3600 });
	const executions = (await client.listExecutions(workflow.id, { limit: 100 })).filter(
		(e) => e.status !== 'new',
	);
	const workers = startedOnWorkers();
	const perWorker: Record<string, number> = {};
	for (const e of executions)
		perWorker[workers.get(String(e.id)) ?? 'not on a worker'] =
			(perWorker[workers.get(String(e.id)) ?? 'not on a worker'] ?? 0) + 1;
	const tokenRequests = after.tokenRequests - before.tokenRequests;
	const tokenRequests429 = after.tokenRequests429 - before.tokenRequests429;
	const lifetimes = Math.ceil(seconds / TOKEN_SECONDS);
	// what went wrong, in the figures, when an execution did not answer 200 (the cause is not in jest's diff)
	const failures = await Promise.all(
		executions
			.filter((e) => e.status !== 'success')
			.map(async (e) => {
				const data = (await client.getExecution(String(e.id)).catch(() => ({}))) as Json;
				const error = data.data?.resultData?.error;
				return {
					id: e.id,
					status: e.status,
					worker: workers.get(String(e.id)),
					node: data.data?.resultData?.lastNodeExecuted,
					error: error && {
						name: error.name,
						message: error.message,
						description: error.description,
						httpCode: error.httpCode,
					},
				};
			}),
	);
	figures.tokens = {
		failedAnswers: answers
			.filter((a) => a.status !== 200)
			.map((a) => ({ status: a.status, data: JSON.stringify(a.data).slice(0, 500) })),
		failures,
		executions: EXECUTIONS,
		items: EXECUTIONS * ITEMS_PER_EXECUTION,
		seconds,
		tokenRequests,
		tokenRequests429,
		lifetimesElapsed: lifetimes,
		perWorker,
	};
	expect(answers.map((a) => a.status)).toEqual(Array(EXECUTIONS).fill(200));
	expect(executions.filter((e) => e.status === 'success')).toHaveLength(EXECUTIONS + 1);
	const stored = (await control.get<Json[]>('/persons')).filter(
		(p) => p.id.startsWith(`${prefix}-`) && p.id !== `${prefix}-first`,
	);
	expect(stored).toHaveLength(EXECUTIONS * ITEMS_PER_EXECUTION);
	expect(Object.keys(perWorker).sort()).toEqual(['worker-1', 'worker-2']);
	expect(tokenRequests).toBeLessThanOrEqual(lifetimes + cluster.workers.length);
}, 600_000);

type Answer = { status: number; data?: Json; retryAfterSeconds?: number };

/** One signed POST of `body`; a connection failure answers status 0. */
async function post(url: string, body: string, secret: string): Promise<Answer> {
	const signature = createHmac('sha256', secret).update(body).digest('hex');
	return await axios
		.post(url, body, {
			headers: { 'Content-Type': 'application/json', 'X-AML-Signature': signature },
			validateStatus: () => true,
			timeout: 30_000,
			transformRequest: (d) => d,
		})
		.then((r) => ({
			status: r.status,
			data: r.data as Json,
			retryAfterSeconds: Number(r.headers['retry-after']) || undefined,
		}))
		.catch(() => ({ status: 0, data: undefined }));
}

/**
 * Places for sends in flight, taken in the order asked. A delivery waiting for its next attempt holds none, as with
 * the service, whose retry of one event does not hold up its other events.
 */
class Slots {
	private free: number;

	private readonly waiting: Array<() => void> = [];

	constructor(size: number) {
		this.free = size;
	}

	async run<T>(send: () => Promise<T>): Promise<T> {
		if (this.free > 0) this.free--;
		else await new Promise<void>((resolve) => this.waiting.push(resolve));
		try {
			return await send();
		} finally {
			const next = this.waiting.shift();
			if (next) next();
			else this.free++;
		}
	}
}

/**
 * Posts like the service: the same bytes again after a non-2xx answer or a connection failure, until accepted, no
 * sooner than the answer's Retry-After. `first`: the first attempt, when the caller sent it (two copies at once); `slots`: where every other attempt waits
 * for a place.
 */
async function deliver(
	url: string,
	body: string,
	secret: string,
	opts: { first?: Promise<Answer>; slots?: Slots } = {},
): Promise<{ status: number; attempts: number; data?: Json }> {
	const send = () => post(url, body, secret);
	for (let attempt = 1; ; attempt++) {
		const answer =
			attempt === 1 && opts.first
				? await opts.first
				: await (opts.slots ? opts.slots.run(send) : send());
		if ((answer.status >= 200 && answer.status < 300) || attempt >= 50)
			return { status: answer.status, attempts: attempt, data: answer.data };
		// the trigger's Retry-After when it sent one (5 s while the same event is pending): sooner only loads the process
		await sleep(Math.max(200 * Math.min(attempt, 10), (answer.retryAfterSeconds ?? 0) * 1000));
	}
}

/** An HMAC-verified AML Trigger workflow (or `workflow`) published on the cluster, reachable on both webhook processes. */
async function publishedTrigger(
	name: string,
	workflow?: (credential: CredentialRef) => Promise<string>,
) {
	const client = n8n();
	const secret = `queue-${randomUUID()}`;
	const credential = await client.createCredential(
		`AML webhook ${name} ${Date.now()}`,
		'amlWebhookApi',
		{
			method: 'hmac',
			hmacHeaderName: 'X-AML-Signature',
			hmacSecret: secret,
		},
	);
	let id: string;
	let webhookId: string;
	if (workflow) {
		id = await workflow(credential);
		const stored = (await client.getWorkflow(id)) as Json;
		webhookId = (stored.nodes as Json[]).find((n) => n.name === 'AML Trigger')?.webhookId;
	} else {
		webhookId = randomUUID();
		id = (
			await client.createWorkflow(
				amlTriggerWorkflow(
					`AML Trigger queue ${name} ${webhookId.slice(0, 8)}`,
					webhookId,
					{ authentication: 'amlWebhookApi', events: ['*'] },
					credential,
				),
			)
		).id;
	}
	await client.activate(id);
	const urls = cluster.webhooks.map((w) => `${w.url}/webhook/${webhookId}/aml`);
	for (const url of urls)
		await until(
			async () => (await axios.post(url, {}, { validateStatus: () => true })).status !== 404,
			30_000,
		);
	return { id, urls, secret };
}

/** Signed ALERT_CREATED events numbered n, each alert id `base + n`, dated now (the trigger refuses old ones). */
function alertEvents() {
	const base = 900_000_000 + Math.floor(Math.random() * 1_000_000);
	const sentFrom = Date.now() - 60_000;
	const event = (n: number) =>
		JSON.stringify({
			action: 'ALERT_CREATED',
			createdTime: new Date(sentFrom + n).toISOString(),
			metadata: {
				alertId: base + n,
				personId: `p${n}`,
				transactionId: `t${n}`,
				entityType: 'TRANSACTION',
				scenarioType: 'OFFLINE',
				hits: [],
			},
		});
	return { base, event };
}

/**
 * Per event number: how many executions of the workflow ran `node` with that event (the trigger's output, or a node
 * after it); `started` counts every execution, also those where the trigger stopped a copy.
 */
async function runsPerEvent(workflowId: string, base: number, node = 'AML Trigger') {
	const runs = new Map<number, number>();
	let started = 0;
	let cursor: string | undefined;
	do {
		const page = await n8n().api.get('/executions', {
			params: { workflowId, limit: 250, includeData: true, ...(cursor ? { cursor } : {}) },
		});
		for (const e of page.data.data as Json[]) {
			started++;
			const ran = e.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.[0]?.json;
			const trigger = e.data?.resultData?.runData?.['AML Trigger']?.[0]?.data?.main?.[0]?.[0]?.json;
			if (ran && trigger) {
				const n = trigger.metadata.alertId - base;
				runs.set(n, (runs.get(n) ?? 0) + 1);
			}
		}
		cursor = page.data.nextCursor ?? undefined;
	} while (cursor);
	return { runs, started };
}

/** `runsPerEvent` once every one of `events` has run `node` at least once (or after `ms`), and 3 s later again. */
async function settledRuns(
	workflowId: string,
	base: number,
	events: number,
	node?: string,
	ms = 180_000,
) {
	await until(
		async () => (await runsPerEvent(workflowId, base, node)).runs.size >= events,
		ms,
	).catch(() => undefined);
	await sleep(3000);
	return await runsPerEvent(workflowId, base, node);
}

const numbers = (from: number, count: number) => Array.from({ length: count }, (_, n) => from + n);

// What the trigger promises across queue-mode processes (README "Alert notification", SECURITY.md), each measured
// here: the service's redeliveries run once; copies reaching two processes at the same instant run at least once, at
// the rate this burst measures (n8n's deduplication store has no atomic claim); exactly once at any timing is the
// Redis claim of example 09.
test(`AML Trigger, the service's retry pattern across both webhook processes: each redelivery stopped, none lost`, async () => {
	const EVENTS = Math.max(10, Math.round(20 * SCALE));
	const { id, urls, secret } = await publishedTrigger('retries');
	const { base, event } = alertEvents();
	// As the service redelivers one event: a copy 1 s after an answer it took as failed or late, to the other process
	// (as a load balancer may send it), one event after the other.
	for (const n of numbers(0, EVENTS)) {
		expect((await deliver(urls[n % 2], event(n), secret)).status).toBe(200);
		await sleep(1000);
		expect((await deliver(urls[(n + 1) % 2], event(n), secret)).status).toBe(200);
	}
	// and its scheduled retries (minutes later, all due at once): every event again, to both processes
	await Promise.all(
		numbers(0, EVENTS).flatMap((n) => urls.map((url) => deliver(url, event(n), secret))),
	);
	const { runs, started } = await settledRuns(id, base, EVENTS);
	figures.triggerRetries = { events: EVENTS, copies: EVENTS * 4, executionsStarted: started };
	expect(numbers(0, EVENTS).filter((n) => !runs.get(n))).toEqual([]);
	expect(numbers(0, EVENTS).filter((n) => (runs.get(n) ?? 0) > 1)).toEqual([]);
}, 600_000);

test(`AML Trigger across both webhook processes: ${DELIVERIES} deliveries, 10 % sent twice at the same instant: none lost, how many run twice measured`, async () => {
	const { id, urls, secret } = await publishedTrigger('burst');
	const { base, event } = alertEvents();
	const duplicates = Math.round(DELIVERIES / 10);
	const distinct = DELIVERIES - duplicates;
	// half of the duplicated events: both copies at once, one to each webhook process; the other half: both copies
	// at once to the same process. 16 events are sent at a time (both copies of an event in one place); a copy
	// answered 503 (the same event's execution has not recorded it yet, up to PENDING_MS) waits for its retry
	// without holding a place.
	const slots = new Slots(16);
	const pair = (to: [string, string], body: string) => {
		const firsts = slots.run(() =>
			Promise.all([post(to[0], body, secret), post(to[1], body, secret)]),
		);
		return Promise.all(
			to.map((url, i) => deliver(url, body, secret, { first: firsts.then((f) => f[i]), slots })),
		);
	};
	const jobs: Array<() => Promise<unknown>> = [];
	for (let n = 0; n < distinct; n++) {
		const body = event(n);
		if (n < duplicates / 2) jobs.push(() => pair([urls[0], urls[1]], body));
		else if (n < duplicates) jobs.push(() => pair([urls[n % 2], urls[n % 2]], body));
		else jobs.push(() => deliver(urls[n % 2], body, secret, { slots }));
	}
	const startedAt = Date.now();
	const shuffled = jobs.sort(() => Math.random() - 0.5);
	// every job asks for its place now, in the shuffled order
	const delivered = (await Promise.all(shuffled.map((job) => job()))).flat() as Array<
		Awaited<ReturnType<typeof deliver>>
	>;
	const seconds = (Date.now() - startedAt) / 1000;
	console.log(`[queue] trigger deliveries done in ${seconds} s`);
	const burst = await settledRuns(id, base, distinct);
	let runs = burst.runs;
	const lost = numbers(0, distinct).filter((n) => !runs.get(n));
	const twice = (from: number, count: number) =>
		numbers(from, count).filter((n) => (runs.get(n) ?? 0) > 1).length;
	figures.trigger = {
		deliveries: DELIVERIES,
		distinct,
		seconds,
		sendsRetried: delivered.filter((d) => d.attempts > 1).length,
		attempts: delivered.reduce((a, d) => a + d.attempts, 0),
		executionsStarted: burst.started,
		lost: lost.length,
		crossProcessPairs: duplicates / 2,
		startedTwiceCrossProcess: twice(0, duplicates / 2),
		sameProcessPairs: duplicates / 2,
		startedTwiceSameProcess: twice(duplicates / 2, duplicates / 2),
		startedTwiceSingle: twice(duplicates, distinct - duplicates),
	};
	expect(lost).toEqual([]);

	// A copy of 10 single events that arrives at the other process after the burst (the first copy's execution long
	// done): stopped unless the burst's writes to the trigger's record dropped its key.
	const again = numbers(duplicates, 10);
	await Promise.all(again.map((n) => deliver(urls[(n + 1) % 2], event(n), secret)));
	await sleep(5000);
	({ runs } = await runsPerEvent(id, base));
	Object.assign(figures.trigger as object, {
		laterCopies: again.length,
		startedTwiceLater: again.filter((n) => (runs.get(n) ?? 0) > 1).length,
	});
	console.log(`[queue] trigger burst ${JSON.stringify(figures.trigger)}`);
}, 900_000);

test('example 09 (a Redis claim after the trigger): copies at the same instant across both webhook processes run its steps exactly once, none lost', async () => {
	const EVENTS = Math.max(20, Math.round(50 * SCALE));
	const client = n8n();
	const redis = await client.createCredential(`Redis queue ${Date.now()}`, 'redis', {
		host: '127.0.0.1',
		port: Number(cluster.env.QUEUE_BULL_REDIS_PORT),
		database: 3,
		password: '',
	});
	const { id, urls, secret } = await publishedTrigger('exactly once', async (webhook) => {
		const { importExample } = await import('../harness/examples');
		return (
			await importExample(client, '09-exactly-once-queue-mode.json', {
				credentials: { amlWebhookApi: webhook, redis },
				// the test reads what each run did: keep successful executions (the example keeps failed ones only)
				workflowSettings: { saveDataSuccessExecution: 'all' },
			})
		).id;
	});
	const { base, event } = alertEvents();
	const slots = new Slots(16);
	// every event: two copies at the same instant, one to each webhook process, then a third later
	await Promise.all(
		numbers(0, EVENTS).map(async (n) => {
			const firsts = slots.run(() => Promise.all(urls.map((url) => post(url, event(n), secret))));
			await Promise.all(
				urls.map((url, i) =>
					deliver(url, event(n), secret, { first: firsts.then((f) => f[i]), slots }),
				),
			);
		}),
	);
	await Promise.all(
		numbers(0, EVENTS).map((n) => deliver(urls[n % 2], event(n), secret, { slots })),
	);
	const steps = await settledRuns(id, base, EVENTS, 'Your steps');
	const trigger = await runsPerEvent(id, base);
	figures.triggerRedisClaim = {
		events: EVENTS,
		copies: EVENTS * 3,
		executionsStarted: steps.started,
		triggerRanTwice: numbers(0, EVENTS).filter((n) => (trigger.runs.get(n) ?? 0) > 1).length,
	};
	expect(numbers(0, EVENTS).filter((n) => !steps.runs.get(n))).toEqual([]);
	expect(numbers(0, EVENTS).filter((n) => (steps.runs.get(n) ?? 0) > 1)).toEqual([]);
}, 600_000);

test(`a worker killed during a ${KILL_ITEMS}-item create: no duplicate, the execution says so, a re-run completes the rest`, async () => {
	const client = n8n();
	const prefix = `kill-${Date.now()}`;
	const webhookPath = `kill-${randomUUID()}`;
	const killCredential = await client.createCredential(
		`AML sandbox ${prefix}`,
		'amlOAuth2Api',
		sandboxCredentialData({ ...sandbox, tokenUrl: tokenUrlOf(sandbox.tokenUrl, prefix) }),
	);
	const workflow = await client.createWorkflow({
		name: `queue kill ${prefix}`,
		nodes: [
			webhookNode(webhookPath, { responseMode: 'onReceived' }),
			bodyItemsNode(),
			{
				id: randomUUID(),
				name: 'AML',
				type: 'n8n-nodes-aml.aml',
				typeVersion: 1,
				position: [440, 0],
				// keyed by the caller's ID; an ID the service already holds is skipped, so a re-run creates only the rest
				parameters: {
					...PERSON_CREATE_FROM_INPUT,
					onExisting: 'skip',
					options: { parallelRequests: 4 },
				},
				// its own credential: the create requests counted below are this test's only
				credentials: { amlOAuth2Api: killCredential },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'AML', type: 'main', index: 0 }]] },
		},
	});
	await client.activate(workflow.id);
	const items = Array.from({ length: KILL_ITEMS }, (_, i) => ({
		id: `${prefix}-${i}`,
		first_name: 'K',
	}));
	const stored = async () =>
		(await control.get<Json[]>('/persons')).filter((p) => p.id.startsWith(`${prefix}-`)).length;
	const mark = await control.mark();
	// slow the service down a little so that the run is still going when the worker dies
	await control.post('/faults', {
		rules: [{ method: 'POST', path: '^/api/v2/persons$', latencyMs: 5 }],
	});
	expect((await client.callWebhook(webhookPath, { items })).status).toBe(200);
	await until(async () => (await stored()) >= KILL_ITEMS / 5, 120_000);
	const running = (await client.listExecutions(workflow.id, { limit: 5 }))[0];
	const victim = cluster.workers.find((w) => w.name === startedOnWorkers().get(String(running.id)));
	expect(victim).toBeDefined();
	await victim!.kill();
	const atKill = await stored();
	await control.del('/faults');
	// n8n notices the dead worker's job (lock lost) and records the execution's end
	let state: Json = {};
	await until(async () => {
		state = await client.getExecution(String(running.id), false);
		return !['running', 'new'].includes(state.status);
	}, 120_000).catch(() => undefined);
	const afterKill = await stored();
	cluster.workers.splice(cluster.workers.indexOf(victim!), 1);
	await cluster.addWorker();

	expect((await client.callWebhook(webhookPath, { items })).status).toBe(200);
	await until(async () => (await stored()) >= KILL_ITEMS, 300_000);
	const last = (await client.listExecutions(workflow.id, { limit: 1 }))[0];
	await until(
		async () =>
			['success', 'error', 'crashed'].includes(
				(await client.getExecution(String(last.id), false)).status,
			),
		120_000,
	);
	const lastState = await client.getExecution(String(last.id), true);
	const creates = (await control.requestsSince(mark, { credential: prefix })).filter(
		(r) => r.method === 'POST' && r.path === '/api/v2/persons',
	);
	figures.kill = {
		items: KILL_ITEMS,
		storedAtKill: atKill,
		storedWhenNoticed: afterKill,
		killedExecution: {
			id: running.id,
			status: state.status,
			error: (await client.getExecution(String(running.id), true)).data?.resultData?.error?.message,
		},
		rerun: { status: lastState.status },
		createRequests: creates.length,
		createdOk: creates.filter((r) => r.status < 300).length,
		answered422: creates.filter((r) => r.status === 422).length,
	};
	expect(state.status).not.toBe('running');
	expect(lastState.status).toBe('success');
	const all = (await control.get<Json[]>('/persons')).filter((p) => p.id.startsWith(`${prefix}-`));
	expect(new Set(all.map((p) => p.id)).size).toBe(KILL_ITEMS);
	expect(all).toHaveLength(KILL_ITEMS);
	expect(creates.filter((r) => r.status < 300)).toHaveLength(KILL_ITEMS);
	const outputs = lastState.data.resultData.runData.AML[0].data.main[0].map(
		(i: Json) => i.json.result,
	);
	expect(
		outputs.filter((r: string) => r === 'created').length +
			outputs.filter((r: string) => r === 'skipped' || r === 'exists').length,
	).toBe(KILL_ITEMS);
}, 600_000);

test('a worker stopped (SIGKILL) while its Gate check is held: the payment resent is answered once, blocked "still-deciding" with one manual alert for the analysts, never clear', async () => {
	const prefix = `gate-kill-${Date.now()}`;
	const personId = `${prefix}-p`;
	await control.post('/config', { checksReportCreatedAlertsOnly: true, alertsOnStore: false });
	try {
		await runAml({ resource: 'person', operation: 'create', personId, attributesMode: 'fields' });
		// a short budget: the resend's whole wait ends within the test's time
		const gate = transactionCreateFromInput({
			operation: 'gate',
			excludeInputFields: 'id, personId',
			options: { timeBudget: 3000 },
		});
		const id = `${prefix}-tx`;
		const sent = {
			id,
			personId,
			amount: '25000.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-09T10:00:00Z',
		};
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/${id}/monitoring-checks$`,
					latencyMs: 2500,
					times: 1,
				},
			],
		});
		const before = new Set(startedOnWorkers().keys());
		// its execution never finishes: the call gives up once the resend has been answered
		const first = runAml(gate, [sent], {}, { timeoutMs: 15_000 }).catch((error: Error) => error);
		let executionId = '';
		// the payment stored with the first run's claim, its check held: the worker running it is stopped
		await until(async () => {
			executionId = [...startedOnWorkers().keys()].find((key) => !before.has(key)) ?? '';
			const stored = await control.get<Json[]>('/transactions', { personId });
			return executionId !== '' && stored.some((t) => t.id === id);
		}, 30_000);
		await sleep(300);
		const victim = cluster.workers.find((w) => w.name === startedOnWorkers().get(executionId))!;
		await victim.kill();
		cluster.workers.splice(cluster.workers.indexOf(victim), 1);
		await control.del('/faults');
		// the resend waits for the dead run's decision within its budget (no clock ends a claim), never checking meanwhile
		const resend = await runAml(
			{ ...gate, options: { timeBudget: 3_000 } },
			[sent],
			{},
			{ timeoutMs: 60_000 },
		);
		const [item] = [...resend.outputs[0], ...(resend.outputs[1] ?? [])];
		expect(resend.outputs[1]).toEqual([]);
		expect(item).toMatchObject({
			decision: 'block',
			reasonCode: 'still-deciding',
			steps: expect.objectContaining({ monitoring: 'not sent' }),
		});
		// the resend's wait ended: the payment is in the analysts' queue, one manual alert saying its run wrote no decision
		const stalled = async () =>
			(await control.get<Json[]>('/manual-alerts')).filter((a) => a.transactionId === id);
		await until(async () => (await stalled()).length > 0, 10_000);
		await sleep(500);
		expect(await stalled()).toHaveLength(1);
		expect(String((await stalled())[0].rationaleComment)).toMatch(/wrote no decision/);
		// released by an analyst: the next copy checks it under a claim of its own (the held check's alert is open)
		const released = await runAml({
			resource: 'transaction',
			operation: 'update',
			personId,
			transactionId: id,
			attributesMode: 'json',
			attributesJson: JSON.stringify({ status: 'RELEASED' }),
		});
		expect(released.status).toBe('success');
		const after = await runAml(gate, [sent], {}, { timeoutMs: 60_000 });
		expect([...after.outputs[0], ...(after.outputs[1] ?? [])][0]).toMatchObject({
			decision: 'block',
		});
		// the first execution never answered a decision
		const firstRun = await first;
		if (!(firstRun instanceof Error)) expect(firstRun.outputs.flat()).toEqual([]);
		figures['gate worker killed'] = { firstExecution: executionId, resendMs: resend.ms };
	} finally {
		await control.post('/config', { checksReportCreatedAlertsOnly: false, alertsOnStore: true });
	}
}, 180_000);
