import * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import axios from 'axios';

import {
	context,
	control,
	n8n,
	nodeOutput,
	nodeOutputs,
	ownerRest,
	runAml,
} from '../harness/context';
import type { CredentialRef, Json } from '../harness/client';
import { Aml } from '../../nodes/Aml/Aml.node';
import { AmlTrigger } from '../../nodes/AmlTrigger/AmlTrigger.node';
import {
	applyChoices,
	credentialTypes,
	exampleFiles,
	importExample,
	readExample,
	stickyText,
	type ExampleChoices,
} from '../harness/examples';

/**
 * The example workflows as a user gets them: each file is imported into n8n unchanged, then the test does what the
 * user does after import (choose credentials; set what a sticky note asks for) and runs it against the sandbox.
 *
 * Outside services: the Jira node's credential points at a Jira stand-in served by this file (the credential has a
 * site URL), so the issues it creates are checked. The Slack node always calls slack.com (its credential holds only a
 * token); the e2e n8n sends its slack.com requests to a Slack stand-in (test/harness/slack.ts, through HTTPS_PROXY),
 * whose record of the calls the tests read: example 07's test answers the message as an officer does in Slack (opens
 * the message's button, sends the form). Scheduled examples are started through a Webhook node put in the Schedule Trigger's place (n8n's API
 * cannot fire a schedule); the rest of those workflows is as imported.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const created: string[] = [];
const madeCredentials: Record<string, CredentialRef> = {};

async function credential(type: string, name: string, data: Json): Promise<CredentialRef> {
	madeCredentials[type] ??= await n8n().createCredential(name, type, data);
	return madeCredentials[type];
}

/** Imports the file unchanged, makes the user's choices, returns the workflow id and the stored workflow. */
/** The newest version of each node of this package (the AML node also serves as the AI tool `amlTool`). */
const newestOf = (version: number | number[]) =>
	Array.isArray(version) ? Math.max(...version) : version;
const NEWEST_VERSION: Record<string, number> = {
	'n8n-nodes-aml.aml': newestOf(new Aml().description.version),
	'n8n-nodes-aml.amlTool': newestOf(new Aml().description.version),
	'n8n-nodes-aml.amlTrigger': newestOf(new AmlTrigger().description.version),
};

async function importAsUser(
	file: string,
	choices: ExampleChoices,
): Promise<{ id: string; workflow: Json }> {
	const { id, workflow } = await importExample(n8n(), file, choices);
	created.push(id);
	return { id, workflow };
}

/** Schedule triggers cannot be fired through the API: the same chain is started from a Webhook node in its place. */
async function scheduleToWebhook(id: string, workflow: Json): Promise<string> {
	const hookPath = `example-${randomUUID()}`;
	const schedule = (workflow.nodes as Json[]).find(
		(n) => n.type === 'n8n-nodes-base.scheduleTrigger',
	)!;
	Object.assign(schedule, {
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path: hookPath,
			responseMode: 'lastNode',
			responseData: 'noData',
			options: {},
		},
	});
	const response = await n8n().api.put(`/workflows/${id}`, {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: workflow.settings,
	});
	if (response.status >= 300)
		throw new Error(`PUT workflow: ${response.status} ${JSON.stringify(response.data)}`);
	return hookPath;
}

/** The `count` newest finished executions of a workflow (waits for them), oldest first. */
async function finishedExecutions(
	workflowId: string,
	count: number,
	timeoutMs = 120_000,
): Promise<Json[]> {
	const started = Date.now();
	for (;;) {
		const list = (await n8n().listExecutions(workflowId, { limit: 50 })).filter(
			(e) => e.finished || e.stoppedAt,
		);
		if (list.length >= count) {
			const executions = await Promise.all(
				list.slice(0, count).map((e) => n8n().getExecution(e.id, true)),
			);
			return executions.sort((a, b) => Number(a.id) - Number(b.id));
		}
		if (Date.now() - started > timeoutMs)
			throw new Error(
				`${list.length} of ${count} executions of ${workflowId} finished within ${timeoutMs} ms`,
			);
		await sleep(200);
	}
}

const amlApi = async () => {
	const c = context().sandbox;
	const token = (
		await axios.post(c.tokenUrl, 'grant_type=client_credentials', {
			auth: { username: c.clientId, password: c.clientSecret },
		})
	).data.access_token;
	return axios.create({
		baseURL: `${c.baseUrl}/api`,
		headers: { Authorization: `Bearer ${token}` },
	});
};

/** A monitoring alert (transaction over the scenario threshold) and a screening alert (a listed person's name). */
async function raiseAlerts(prefix: string): Promise<void> {
	const api = await amlApi();
	await api.post('/v1/persons/cust-1001/transactions', {
		id: `${prefix}-tx`,
		attributes: {
			amount: '25000.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-11-22T10:00:00Z',
		},
	});
	await api.post(`/v1/transactions/${prefix}-tx/monitoring-checks`);
	await api.post('/v1/persons/cust-1006/screening-checks');
}

/**
 * Imports an alert example with an HMAC-verified AML Webhook API credential, the test's AML credential and the given
 * others, publishes it and points a sandbox webhook target (signed with the credential's secret) at its trigger.
 * Starts from a reset sandbox and no recorded Slack calls.
 */
async function publishAlertExample(
	file: string,
	credentials: Record<string, CredentialRef>,
	events = ['ALERT_CREATED', 'SCREENING_ALERT_CREATED'],
	settings: Record<string, Json> = {},
): Promise<{ id: string; url: string; target: string }> {
	await control.post('/reset');
	await axios.delete(`${context().slack.url}/calls`);
	const secret = `whsec-${randomUUID()}`;
	const key = `amlWebhookApi${file.slice(0, 2)}`;
	madeCredentials[key] = await n8n().createCredential(
		`AML webhook secret (e2e ${file.slice(0, 2)})`,
		'amlWebhookApi',
		{ method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: secret },
	);
	const { id, workflow } = await importAsUser(file, {
		credentials: {
			amlOAuth2Api: context().credential,
			amlWebhookApi: madeCredentials[key],
			...credentials,
		},
		settings,
	});
	await n8n().activate(id);
	const trigger = (workflow.nodes as Json[]).find((n) => n.type === 'n8n-nodes-aml.amlTrigger')!;
	const url = `${context().n8n.baseUrl}/webhook/${trigger.webhookId}/aml`;
	for (
		let i = 0;
		i < 100 && (await axios.post(url, {}, { validateStatus: () => true })).status === 404;
		i++
	)
		await sleep(100);
	const target = await control.post<{ id: string }>('/webhooks', {
		url,
		events,
		verification: { mode: 'hmac', secret },
	});
	return { id, url, target: target.id };
}

/** The Slack credential of the examples (its token reaches only the Slack stand-in). */
const SLACK_TOKEN = 'xoxb-0000000000-0000000000000-e2eexampletokenxxxxxxxx';
const slackCredential = async () =>
	await credential('slackApi', 'Slack (e2e, never reaches Slack)', { accessToken: SLACK_TOKEN });

/** The Slack Web API calls n8n made (to the Slack stand-in), oldest first. */
async function slackCalls(method: string): Promise<Json[]> {
	return ((await axios.get(`${context().slack.url}/calls`)).data as Json[]).filter(
		(c) => c.method === method,
	);
}

afterAll(async () => {
	for (const id of created)
		await n8n()
			.deleteWorkflow(id)
			.catch(() => undefined);
	for (const c of Object.values(madeCredentials))
		await n8n()
			.deleteCredential(c.id)
			.catch(() => undefined);
});

describe('every example imports into n8n as shipped', () => {
	test.each(exampleFiles().map((f) => [f.split('/').pop()!]))(
		'%s: no placeholders, credentials by name only, the AML nodes at their newest version, n8n accepts the file unchanged, the sticky notes name what to set',
		async (file) => {
			const shipped = readExample(file);
			expect(JSON.stringify(shipped)).not.toMatch(/__[A-Z0-9_]+__/);
			const notes = stickyText(shipped);
			expect(notes.length).toBeGreaterThan(0);
			for (const node of shipped.nodes as Json[]) {
				// this package's nodes at the version a new node gets in the editor (its newest)
				const newest = NEWEST_VERSION[node.type as string];
				if (newest !== undefined)
					expect({ node: node.name, typeVersion: node.typeVersion }).toEqual({
						node: node.name,
						typeVersion: newest,
					});
				for (const [type, ref] of Object.entries(
					(node.credentials ?? {}) as Record<string, Json>,
				)) {
					expect({ node: node.name, type, ref }).toEqual({
						node: node.name,
						type,
						ref: { id: null, name: expect.any(String) },
					});
					// every node with a credential is named in a sticky note (what to choose there)
					if (!(node.type === 'n8n-nodes-aml.amlTool'))
						expect({ node: node.name, named: notes.includes(`**${node.name}**`) }).toEqual({
							node: node.name,
							named: true,
						});
				}
			}
			const stored = await n8n().createWorkflow(shipped);
			created.push(String(stored.id));
			expect(stored.name).toBe(shipped.name);
			expect((stored.nodes as Json[]).map((n) => n.name).sort()).toEqual(
				(shipped.nodes as Json[]).map((n) => n.name).sort(),
			);
			// no credential of these names exists in the test's n8n: the references stay for the user to choose
			for (const node of stored.nodes as Json[])
				for (const ref of Object.values((node.credentials ?? {}) as Record<string, Json>))
					expect(ref.id ?? null).toBeNull();
			expect(credentialTypes(stored)).toEqual(credentialTypes(shipped));
		},
	);
});

describe('example 01: transaction gate', () => {
	const KEY = 'X-Core-Banking-Key';
	const secret = `gate-${randomUUID()}`;
	let path = '';
	let customerPath = '';
	beforeAll(async () => {
		await control.post('/reset');
		const header = await credential('httpHeaderAuth', 'Core banking header auth (e2e)', {
			name: KEY,
			value: secret,
		});
		const { id, workflow } = await importAsUser('01-transaction-gate.json', {
			credentials: { amlOAuth2Api: context().credential, httpHeaderAuth: header },
		});
		path = (workflow.nodes as Json[]).find((n) => n.name === 'Core banking payment')!.parameters
			.path;
		customerPath = (workflow.nodes as Json[]).find((n) => n.name === 'Core banking customer')!
			.parameters.path;
		await n8n().activate(id);
	});

	const call = async (body: Json, headers: Json = { [KEY]: secret }) =>
		await n8n().callWebhook(path, body, { headers });
	const pay = async (body: Json) => {
		const answer = await call(body);
		expect(answer.status).toBe(200);
		return answer.data as Json;
	};
	const payment = (id: string, amount: string, extra: Json = {}) => ({
		id,
		personId: 'cust-1001',
		amount,
		type: 'wire_transfer',
		direction: 'O',
		timestamp: '2026-11-22T09:00:00Z',
		...extra,
	});
	const stored = async (id: string) =>
		(await control.get<Json[]>('/transactions', { personId: 'cust-1001' })).some(
			(t) => t.id === id,
		);

	test('a customer not yet stored: the payment is blocked (store refused); stored through the onboarding webhook, the same payment is processed', async () => {
		const customer = `cust-new-${randomUUID().slice(0, 8)}`;
		const before = await pay(payment('gate-new-1', '10.00', { personId: customer }));
		expect(before).toMatchObject({
			decision: 'block',
			reason: expect.stringMatching(/store refused/),
		});

		expect(
			(await n8n().callWebhook(customerPath, { id: customer, type: 'INDIVIDUAL' }, {})).status,
		).toBe(403);
		const onboarding = await n8n().callWebhook(
			customerPath,
			{
				id: customer,
				type: 'INDIVIDUAL',
				attributes: { first_name: 'Anna', last_name: 'Schmidt', country: 'DE' },
			},
			{ headers: { [KEY]: secret } },
		);
		expect({ status: onboarding.status, data: onboarding.data }).toEqual({
			status: 200,
			data: { personId: customer, result: 'created' },
		});
		const person = (await control.get<Json[]>('/persons')).find((p) => p.id === customer);
		expect(person).toMatchObject({ type: 'INDIVIDUAL', attributes: { last_name: 'Schmidt' } });

		expect(await pay(payment('gate-new-2', '10.00', { personId: customer }))).toMatchObject({
			transactionId: 'gate-new-2',
			decision: 'process',
		});
		// data the node refuses is answered 422 with the reason, nothing stored
		const refused = await n8n().callWebhook(
			customerPath,
			{ id: 'has space', type: 'INDIVIDUAL' },
			{ headers: { [KEY]: secret } },
		);
		expect(refused.status).toBe(422);
		expect(refused.data).toMatchObject({
			stored: false,
			error: expect.stringMatching(/Person ID/),
		});
	});

	test('a call without the header (or with a wrong one) is refused with 403 and stores nothing', async () => {
		expect((await call(payment('gate-0', '10.00'), {})).status).toBe(403);
		expect((await call(payment('gate-0', '10.00'), { [KEY]: 'wrong' })).status).toBe(403);
		expect(await stored('gate-0')).toBe(false);
	});

	test('a clean payment is processed; it is stored', async () => {
		expect(await pay(payment('gate-1', '120.00', { receiver_name: 'Jonas Brandt' }))).toEqual({
			transactionId: 'gate-1',
			decision: 'process',
		});
		expect(await stored('gate-1')).toBe(true);
	});

	test('an amount over the scenario threshold is blocked by monitoring; the alert exists', async () => {
		const answer = await pay(payment('gate-2', '25000.00'));
		expect(answer).toMatchObject({
			transactionId: 'gate-2',
			decision: 'block',
			reason: expect.stringMatching(/monitoring scenario/),
		});
		const alerts = (await control.get<Json[]>('/alerts')).filter(
			(a) => a.transactionId === 'gate-2',
		);
		expect(alerts.length).toBeGreaterThan(0);
		expect(answer.alertIds).toEqual(expect.arrayContaining([alerts[0].id]));
	});

	test('a sanctioned receiver is blocked by screening', async () => {
		expect(
			await pay(payment('gate-3', '80.00', { receiver_name: 'Viktor Drabenko' })),
		).toMatchObject({
			transactionId: 'gate-3',
			decision: 'block',
			reason: expect.stringMatching(/screening match/),
		});
	});

	test('fail-closed: a monitoring check answering 500 blocks the payment; the check is not sent again (it may have run)', async () => {
		await control.post('/faults', {
			rules: [{ path: '/monitoring-checks$', errorRate: 1, errorStatus: 500 }],
		});
		const mark = await control.mark();
		try {
			expect(await pay(payment('gate-4', '10.00'))).toMatchObject({
				transactionId: 'gate-4',
				decision: 'block',
				reasonCode: 'check-unanswered',
				reason: 'monitoring: the service answered 500',
			});
		} finally {
			await control.del('/faults');
		}
		const checks = (await control.requestsSince(mark)).filter(
			(r: Json) => r.path === '/api/v1/transactions/gate-4/monitoring-checks',
		);
		expect(checks).toHaveLength(1);
	});

	test("a screening check refused (403) while monitoring raised its alert: the error branch answers block with that alert's ID and the steps", async () => {
		await control.post('/faults', {
			rules: [
				{
					path: '/transactions/gate-4b/screening-checks$',
					answer: { status: 403, body: 'Forbidden', contentType: 'text/plain' },
				},
			],
		});
		try {
			const answer = await pay(payment('gate-4b', '25000.00'));
			expect(answer).toMatchObject({
				decision: 'block',
				reasonCode: 'alerts-raised',
				reason: expect.stringMatching(/^monitoring: /),
			});
			const alerts = (await control.get<Json[]>('/alerts')).filter(
				(a) => a.transactionId === 'gate-4b',
			);
			expect(alerts.length).toBeGreaterThan(0);
			expect(answer.alertIds).toEqual(expect.arrayContaining([alerts[0].id]));
		} finally {
			await control.del('/faults');
		}
	});

	test('fail-closed: with the AML service down (every connection dropped, token endpoint included) the gate answers block, not an n8n error', async () => {
		await control.post('/faults', { rules: [{ path: '.*', dropRate: 1 }] });
		try {
			const answer = await pay(payment('gate-5', '10.00'));
			// no check is sent for a payment that is not stored (or not known to be)
			expect(answer).toEqual({
				transactionId: 'gate-5',
				decision: 'block',
				reasonCode: 'store-failed',
				reason: expect.stringMatching(/^store failed: /),
				alertIds: [],
			});
		} finally {
			await control.del('/faults');
		}
		expect(await stored('gate-5')).toBe(false);
	});

	test('fail-closed: payment data the node refuses (no amount, an ID with a space) is answered block, nothing is stored', async () => {
		const { amount: _amount, ...withoutAmount } = payment('gate-6', '1.00');
		expect(await pay(withoutAmount)).toMatchObject({
			transactionId: 'gate-6',
			decision: 'block',
			reason: expect.stringMatching(/^AML check not completed: .*Amount/),
		});
		expect(await pay(payment('gate 7', '1.00'))).toMatchObject({
			transactionId: 'gate 7',
			decision: 'block',
			reason: expect.stringMatching(/^AML check not completed: .*Transaction ID/),
		});
		expect(await pay({})).toMatchObject({ transactionId: null, decision: 'block' });
		expect(await stored('gate-6')).toBe(false);
	});

	test('the short timeout: a check attempt that hangs is given up after 5 s and not repeated (it may have run): the payment is blocked, well inside the default 30 s', async () => {
		await control.post('/faults', {
			rules: [{ path: '/monitoring-checks$', hangRate: 1, times: 1 }],
		});
		const mark = await control.mark();
		try {
			const started = Date.now();
			expect(await pay(payment('gate-8', '15.00'))).toMatchObject({
				transactionId: 'gate-8',
				decision: 'block',
				reasonCode: 'check-unanswered',
				reason: expect.stringMatching(/^monitoring: no answer/),
			});
			const ms = Date.now() - started;
			expect(ms).toBeGreaterThanOrEqual(5_000);
			expect(ms).toBeLessThan(25_000);
		} finally {
			await control.del('/faults');
		}
		const checks = (await control.requestsSince(mark)).filter(
			(r: Json) => r.path === '/api/v1/transactions/gate-8/monitoring-checks',
		);
		expect(checks).toHaveLength(1);
	});

	test('the gate and the sync meet: after one run of example 02, a payment of example 01 to an account on the synced blocklist is blocked by screening; before it, the same payment was processed', async () => {
		const IBAN = 'DE44500105175407324931'; // blk-3's account in the sandbox's blocklist.csv
		// a customer of its own (the seeded one has met the velocity scenario in the tests above)
		const personId = `cust-meet-${randomUUID().slice(0, 8)}`;
		const onboarded = await n8n().callWebhook(
			customerPath,
			{ id: personId, type: 'INDIVIDUAL', attributes: { first_name: 'Mara', last_name: 'Lind' } },
			{ headers: { [KEY]: secret } },
		);
		expect(onboarded.status).toBe(200);
		expect(
			await pay(payment('gate-meet-0', '75.00', { personId, receiver_account: IBAN })),
		).toEqual({
			transactionId: 'gate-meet-0',
			decision: 'process',
		});
		const sync = await importAsUser('02-custom-list-sync.json', {
			credentials: { amlOAuth2Api: context().credential, slackApi: await slackCredential() },
			settings: {
				'Download blocklist CSV': { url: `${context().sandbox.baseUrl}/files/blocklist.csv` },
				'Sync blocklist': {
					customListId: { __rl: true, mode: 'id', value: '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10' },
					options: { dryRun: false, invalidRows: 'skip', maxArchivePercent: 50 },
				},
			},
		});
		const hookPath = await scheduleToWebhook(sync.id, sync.workflow);
		await n8n().activate(sync.id);
		try {
			expect((await n8n().callWebhook(hookPath, {})).status).toBe(200);
			const [run] = await finishedExecutions(sync.id, 1);
			expect(run.status).toBe('success');
			expect(nodeOutput(run, 'Sync blocklist')[0]).toMatchObject({ failed: 0, invalid: 0 });
		} finally {
			await n8n().deactivate(sync.id);
		}
		const record = (
			await control.get<Json[]>('/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10/records')
		).find((r) => r.id === 'blk-3');
		expect(record?.attributes.bank_account_numbers).toEqual([IBAN]);

		const answer = await pay(payment('gate-meet-1', '75.00', { personId, receiver_account: IBAN }));
		expect(answer).toMatchObject({
			transactionId: 'gate-meet-1',
			decision: 'block',
			reason: expect.stringMatching(/screening match/),
		});
		// the account number went to the service with the payment, and the alert's hit is the blocklist record
		const tx = (await control.get<Json[]>('/transactions', { personId })).find(
			(t) => t.id === 'gate-meet-1',
		);
		expect(tx?.attributes.receiver_account).toBe(IBAN);
		expect(JSON.stringify(answer)).not.toMatch(/decision":"process/);
		expect(
			await pay(
				payment('gate-meet-2', '75.00', { personId, receiver_account: 'DE02120300000000202051' }),
			),
		).toEqual({ transactionId: 'gate-meet-2', decision: 'process' });
	});
});

describe('example 02: nightly custom list sync', () => {
	// the export the workflow downloads: the sandbox's blocklist.csv, then other contents
	let csv = '';
	let server: http.Server;
	let exportUrl = '';
	beforeAll(async () => {
		csv = (
			await axios.get(`${context().sandbox.baseUrl}/files/blocklist.csv`, { responseType: 'text' })
		).data as string;
		server = http.createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/csv' });
			res.end(csv);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		exportUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/blocklist.csv`;
	});
	afterAll(async () => {
		await new Promise((resolve) => server.close(resolve));
	});
	const LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';
	const active = async () =>
		(await control.get<Json[]>(`/custom-lists/${LIST}/records`)).filter((r) => !r.archived);

	test('the list equals the CSV source; a second run changes nothing; Slack hears, in one message, when the guard stops a run, when records fail and when rows are invalid (the valid rows still written), nothing else', async () => {
		await control.post('/reset');
		const { id, workflow } = await importAsUser('02-custom-list-sync.json', {
			credentials: { amlOAuth2Api: context().credential, slackApi: await slackCredential() },
			settings: {
				'Download blocklist CSV': { url: exportUrl },
				// what the sticky note asks for after the dry run (the file ships with Dry Run on)
				'Sync blocklist': {
					customListId: { __rl: true, mode: 'id', value: LIST },
					options: { dryRun: false, invalidRows: 'skip', maxArchivePercent: 50 },
				},
			},
		});
		const hookPath = await scheduleToWebhook(id, workflow);
		await n8n().activate(id);
		// The seeded list has 2 active records (blk-1, blk-2) that the source also has, under other names.
		expect((await n8n().callWebhook(hookPath, {})).status).toBe(200);
		const [first] = await finishedExecutions(id, 1);
		expect(first.status).toBe('success');
		expect(nodeOutput(first, 'Sync blocklist')[0]).toMatchObject({
			created: 998,
			updated: 2,
			archived: 0,
		});
		const records = (
			await control.get<Json[]>('/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10/records')
		).filter((r) => !r.archived);
		expect(records).toHaveLength(1000);
		expect(records.find((r) => r.id === 'blk-7')?.attributes).toEqual({
			name: 'Blocked Entity 0007',
			country: 'VG',
		});

		const mark = await control.mark();
		await n8n().callWebhook(hookPath, {});
		const [, second] = await finishedExecutions(id, 2);
		expect(nodeOutput(second, 'Sync blocklist')[0]).toMatchObject({
			created: 0,
			updated: 0,
			archived: 0,
			unchanged: 1000,
		});
		expect(
			(await control.requestsSince(mark)).filter(
				(r) => r.path.startsWith('/api') && r.method !== 'GET',
			),
		).toHaveLength(0);
		for (const run of [first, second])
			expect(run.data.resultData.runData['Report to Slack']).toBeUndefined();
		const posted = async () =>
			(await slackCalls('chat.postMessage')).map((p) => String(p.body.text));
		const postedBefore = (await posted()).length;

		// a broken export (two rows left): the archive guard stops the run before any change, and Slack hears of it
		const lines = csv.trim().split('\n');
		csv = `${lines.slice(0, 3).join('\n')}\n`;
		await n8n().callWebhook(hookPath, {});
		const [, , third] = await finishedExecutions(id, 3);
		expect(nodeOutputs(third, 'Sync blocklist')[1]).toHaveLength(1);
		expect(await active()).toHaveLength(1000);
		const stopped = (await posted()).slice(postedBefore);
		expect(stopped).toEqual([
			expect.stringMatching(
				/Blocklist sync stopped, nothing was changed: .*would archive 998 of the 1000/,
			),
		]);

		// an export with its header row only: Read CSV outputs nothing, its Always Output Data gives the Sync one
		// empty item, and the guard stops the run before any change; Slack hears of it
		const writesBefore = await control.mark();
		csv = `${lines[0]}\n`;
		await n8n().callWebhook(hookPath, {});
		const [, , , headerOnly] = await finishedExecutions(id, 4);
		expect(nodeOutputs(headerOnly, 'Sync blocklist')[1]).toHaveLength(1);
		expect(await active()).toHaveLength(1000);
		expect(
			(await control.requestsSince(writesBefore)).filter(
				(r) => r.path.startsWith('/api') && r.method !== 'GET',
			),
		).toHaveLength(0);
		expect((await posted()).slice(postedBefore + 1)).toEqual([
			expect.stringMatching(
				/Blocklist sync stopped, nothing was changed: .*would archive 1000 of the 1000/,
			),
		]);

		// a new row the service refuses: the others are written, Slack names the failed record
		csv = `${lines.join('\n')}\nblk-new-1,New Entity,DE,\nblk-new-2,Other Entity,FR,\n`;
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `/custom-lists/${LIST}/records$`,
					errorRate: 1,
					errorStatus: 400,
					times: 1,
				},
			],
		});
		try {
			await n8n().callWebhook(hookPath, {});
			const [, , , , fifth] = await finishedExecutions(id, 5);
			expect(nodeOutput(fifth, 'Sync blocklist')[0]).toMatchObject({ created: 1, failed: 1 });
		} finally {
			await control.del('/faults');
		}
		expect(await active()).toHaveLength(1001);
		expect((await posted()).slice(postedBefore + 2)).toEqual([
			expect.stringMatching(
				/Blocklist sync: created 1, updated 0, archived 0, failed 1, invalid rows 0\. First failure: create blk-new-\d: /,
			),
		]);

		// an export with an ID typed with a space and an ID twice: the valid new rows are added (blk-new-4, and the one
		// refused above), nothing is archived, and one Slack message names the invalid rows (never one message per row)
		csv = `${lines.join('\n')}\nblk-new-1,New Entity,DE,\nblk-new-2,Other Entity,FR,\nblk new 3,Typo Entity,DE,\nblk-new-4,Fourth Entity,NL,\nblk-1,Twice,DE,\n`;
		await n8n().callWebhook(hookPath, {});
		const [, , , , , sixth] = await finishedExecutions(id, 6);
		expect(sixth.status).toBe('success');
		expect(nodeOutput(sixth, 'Sync blocklist')).toHaveLength(1);
		expect(nodeOutput(sixth, 'Sync blocklist')[0]).toMatchObject({
			created: 2,
			archived: 0,
			invalid: 3,
			failed: 0,
		});
		const stored = await active();
		expect(stored.map((r) => r.id)).toEqual(
			expect.arrayContaining(['blk-new-1', 'blk-new-2', 'blk-new-4', 'blk-1']),
		);
		expect(stored).toHaveLength(1003);
		expect((await posted()).slice(postedBefore + 3)).toEqual([
			expect.stringMatching(
				/^:warning: Blocklist sync: created 2, updated 0, archived 0, failed 0, invalid rows 3\. Nothing was archived: .*Item 0: the record ID "blk-1" is also in item\(s\) 1004; Item 1002: "Record ID" .*; Item 1004: the record ID "blk-1" is also in item\(s\) 0$/,
			),
		]);
	});
});

/** Checks an alert example's two executions (one monitoring alert, one screening alert) up to the node before the outside service. */
async function alertExecutions(
	id: string,
	prefix: string,
	monitoringNode: string,
	screeningNode: string,
): Promise<{ monitoring: Json; screening: Json }> {
	const executions = await finishedExecutions(id, 2);
	const byAction = (action: string) =>
		executions.find((e) => nodeOutput(e, 'AML Trigger')[0]?.action === action)!;
	const monitoring = byAction('ALERT_CREATED');
	const screening = byAction('SCREENING_ALERT_CREATED');
	expect(nodeOutputs(monitoring, 'Monitoring alert?')[0]).toHaveLength(1);
	expect(nodeOutput(monitoring, monitoringNode)).toHaveLength(1);
	expect(nodeOutput(monitoring, 'Get monitoring alert')[0]).toMatchObject({
		personId: 'cust-1001',
		transactionId: `${prefix}-tx`,
	});
	// every hit of the screening alert, in one item: one message (one ticket) per alert
	const hits = nodeOutput(screening, 'Get screening hits');
	expect(hits.length).toBeGreaterThan(0);
	expect(nodeOutput(screening, 'All hits of the alert')).toHaveLength(1);
	expect(nodeOutput(screening, screeningNode)).toHaveLength(1);
	return { monitoring, screening };
}

describe('example 03: alert notification to Slack', () => {
	test('HMAC-verified deliveries of a monitoring and a screening alert each give one Slack message; forged deliveries start nothing', async () => {
		const { id, url, target } = await publishAlertExample('03-alert-notification.json', {
			slackApi: await slackCredential(),
		});
		try {
			const forged = JSON.stringify({
				action: 'ALERT_CREATED',
				createdTime: new Date().toISOString(),
				metadata: { alertId: 1, personId: 'cust-1001' },
			});
			expect(
				(
					await axios.post(url, forged, {
						headers: { 'content-type': 'application/json' },
						validateStatus: () => true,
					})
				).status,
			).toBe(401);
			expect(
				(
					await axios.post(url, forged, {
						headers: { 'content-type': 'application/json', 'X-AML-Signature': '0'.repeat(64) },
						validateStatus: () => true,
					})
				).status,
			).toBe(401);

			await raiseAlerts('ex3');
			const { monitoring, screening } = await alertExecutions(
				id,
				'ex3',
				'Monitoring alert message',
				'Screening alert message',
			);
			expect(await n8n().listExecutions(id, { limit: 50 })).toHaveLength(2); // the forged deliveries started nothing

			const monitoringText = nodeOutput(monitoring, 'Monitoring alert message')[0].text as string;
			expect(monitoringText).toMatch(
				/AML alert \d+ .* for person cust-1001, transaction ex3-tx: .*Large transaction/,
			);
			const hits = nodeOutput(screening, 'Get screening hits');
			const screeningText = nodeOutput(screening, 'Screening alert message')[0].text as string;
			expect(screeningText).toMatch(
				new RegExp(`Screening alert \\d+ for person cust-1006: ${hits.length} hit\\(s\\)`),
			);
			expect(screeningText).toContain('Viktor Drabenko');
			for (const hit of hits)
				expect(screeningText).toContain(`• ${hit.name} on ${hit.listName} (score ${hit.score})`);
			// each message was posted to Slack (the stand-in), in the channel the example names
			for (const execution of [monitoring, screening]) expect(execution.status).toBe('success');
			const posts = (await slackCalls('chat.postMessage')).filter(
				(p) => p.body.channel === '#aml-alerts' && !p.body.blocks,
			);
			expect(posts.map((p) => p.body.text).sort()).toEqual([monitoringText, screeningText].sort());
		} finally {
			await control.del(`/webhooks/${target}`);
			await n8n().deactivate(id);
		}
	});
});

describe('example 06: alert to Jira ticket', () => {
	let server: http.Server | undefined;
	const issues: Array<{ auth?: string; body: Json }> = [];
	beforeAll(async () => {
		// a Jira stand-in: the issue types (the node checks for sub-tasks) and issue creation
		server = http.createServer((req, res) => {
			let text = '';
			req.on('data', (c) => (text += c));
			req.on('end', () => {
				res.setHeader('content-type', 'application/json');
				if (req.method === 'GET' && req.url?.startsWith('/rest/api/2/issuetype')) {
					res.end(
						JSON.stringify([
							{ id: '10001', name: 'Task', subtask: false },
							{ id: '10002', name: 'Sub-task', subtask: true },
						]),
					);
				} else if (req.method === 'POST' && req.url === '/rest/api/2/issue') {
					issues.push({ auth: req.headers.authorization, body: JSON.parse(text) });
					res.statusCode = 201;
					res.end(
						JSON.stringify({
							id: String(10100 + issues.length),
							key: `AML-${issues.length}`,
							self: `http://jira.invalid/rest/api/2/issue/${10100 + issues.length}`,
						}),
					);
				} else {
					res.statusCode = 404;
					res.end(
						JSON.stringify({ errorMessages: [`no ${req.method} ${req.url} in the stand-in`] }),
					);
				}
			});
		});
		await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
	});
	afterAll(async () => {
		await new Promise((resolve) => server?.close(resolve));
	});

	test('one Jira issue per alert: the monitoring alert with its reasons, the screening alert with all its hits', async () => {
		const { port } = server!.address() as AddressInfo;
		const jira = await credential('jiraSoftwareCloudApi', 'Jira stand-in (e2e)', {
			email: 'aml-bot@example.com',
			apiToken: 'jira-e2e-token',
			domain: `http://127.0.0.1:${port}`,
		});
		// the Project and Issue Type the sticky note asks for (shipped empty): Jira's usual first project and Task type
		const { id, target } = await publishAlertExample(
			'06-alert-ticket-jira.json',
			{ jiraSoftwareCloudApi: jira },
			undefined,
			{
				'Create Jira issue': {
					project: { __rl: true, mode: 'id', value: '10000' },
					issueType: { __rl: true, mode: 'id', value: '10001' },
				},
			},
		);
		try {
			await raiseAlerts('ex6');
			const { monitoring, screening } = await alertExecutions(
				id,
				'ex6',
				'Monitoring alert ticket',
				'Screening alert ticket',
			);
			for (const execution of [monitoring, screening]) expect(execution.status).toBe('success');
			expect(issues).toHaveLength(2);
			for (const issue of issues) {
				expect(issue.auth).toBe(
					`Basic ${Buffer.from('aml-bot@example.com:jira-e2e-token').toString('base64')}`,
				);
				expect(issue.body.fields).toMatchObject({
					project: { id: '10000' },
					issuetype: { id: '10001' },
					labels: ['aml-alert'],
				});
			}
			const alert = nodeOutput(monitoring, 'Get monitoring alert')[0];
			const monitoringIssue = issues.find((i) => /^AML alert /.test(i.body.fields.summary))!;
			expect(monitoringIssue.body.fields.summary).toBe(
				`AML alert ${alert.id} (${alert.priority}): person cust-1001, transaction ex6-tx`,
			);
			expect(monitoringIssue.body.fields.description).toMatch(
				/Triggered scenarios:\n\* .*Large transaction/,
			);
			const hits = nodeOutput(screening, 'Get screening hits');
			const screeningIssue = issues.find((i) =>
				/^AML screening alert /.test(i.body.fields.summary),
			)!;
			expect(screeningIssue.body.fields.summary).toMatch(
				new RegExp(`person cust-1006, ${hits.length} hit\\(s\\)$`),
			);
			for (const hit of hits)
				expect(screeningIssue.body.fields.description).toContain(
					`* ${hit.name} on ${hit.listName} (${hit.listType}, score ${hit.score})`,
				);
			expect(nodeOutput(monitoring, 'Create Jira issue')[0]).toMatchObject({
				key: expect.stringMatching(/^AML-\d$/),
			});
		} finally {
			await control.del(`/webhooks/${target}`);
			await n8n().deactivate(id);
		}
	});
});

describe('example 07: alert review in Slack', () => {
	test("a monitoring and a manual alert each reach Slack with a button; the form the officer sends sets the chosen status, and the note with the officer's name, on that alert in the service (its type read from the trigger's alertType)", async () => {
		const { id, target } = await publishAlertExample(
			'07-alert-review-slack.json',
			{ slackApi: await slackCredential() },
			['ALERT_CREATED', 'MANUAL_ALERT_CREATED', 'SCREENING_ALERT_CREATED'],
		);
		try {
			const api = await amlApi();
			await api.post('/v1/persons/cust-1001/transactions', {
				id: 'ex7-tx',
				attributes: {
					amount: '25000.00',
					type: 'wire_transfer',
					direction: 'O',
					timestamp: '2026-11-22T10:00:00Z',
				},
			});
			await api.post('/v1/transactions/ex7-tx/monitoring-checks');
			const manual = (
				await api.post('/v1/manual-alerts', {
					personId: 'cust-1002',
					rationale: 'SUSPICIOUS_ACTIVITY',
					rationaleComment: 'Cash deposits just under the reporting limit',
				})
			).data as Json;
			const monitoring = (await control.get<Json[]>('/alerts')).find(
				(a) => a.transactionId === 'ex7-tx',
			)!;
			expect(monitoring).toBeDefined();
			// a sanctions screening of a person: the screening alert is reviewed the same way
			await api.post('/v1/persons/cust-1006/screening-checks');
			const screening = (await control.get<Json[]>('/screening-alerts')).find(
				(a) => a.personId === 'cust-1006',
			)!;
			expect(screening).toBeDefined();

			// Slack receives one message per alert, with the button that opens n8n's form for this execution
			let posts: Json[] = [];
			for (let i = 0; i < 600 && posts.length < 3; i++, await sleep(100))
				posts = await slackCalls('chat.postMessage');
			expect(posts).toHaveLength(3);
			const post = (text: RegExp) => posts.find((p) => text.test(JSON.stringify(p.body.blocks)))!;
			const monitoringPost = post(new RegExp(`AML monitoring alert ${monitoring.id}\\*`));
			const manualPost = post(new RegExp(`AML manual alert ${manual.id}\\*`));
			const screeningPost = post(new RegExp(`AML screening alert ${screening.id}\\*`));
			expect(JSON.stringify(screeningPost.body.blocks)).toMatch(/screening hit\(s\)/);
			for (const p of [monitoringPost, manualPost]) {
				expect(p.token).toBe(SLACK_TOKEN);
				expect(p.body.channel).toBe('#aml-alerts');
			}
			const messageText = (p: Json) =>
				(p.body.blocks as Json[]).map((b) => b.text?.text ?? '').join('\n');
			expect(messageText(monitoringPost)).toMatch(
				new RegExp(`for person cust-1001, transaction ex7-tx\n• .*Large transaction`),
			);
			expect(messageText(manualPost)).toMatch(
				/for person cust-1002\nRationale: SUSPICIOUS_ACTIVITY/,
			);
			const button = (p: Json) =>
				(p.body.blocks as Json[]).find((b) => b.type === 'actions')!.elements[0] as Json;
			expect(button(monitoringPost).text.text).toBe('Review and decide');
			const formUrl = (p: Json) => String(button(p).url);
			for (const p of [monitoringPost, manualPost])
				expect(formUrl(p)).toMatch(
					new RegExp(`^${context().n8n.baseUrl}/webhook-waiting/\\d+/.*signature=`),
				);

			// the executions wait for the officer (n8n's REST API: n8n 1.x's public API leaves waiting executions out);
			// nothing is changed in the service yet
			const rest = await ownerRest();
			const statuses = async () =>
				(
					(
						await rest.get('/executions', {
							params: { filter: JSON.stringify({ workflowId: id }) },
						})
					).data.data.results as Json[]
				).map((e) => e.status);
			let waiting: string[] = [];
			for (
				let i = 0;
				i < 100 && waiting.filter((status) => status === 'waiting').length < 3;
				i++, await sleep(100)
			)
				waiting = await statuses();
			expect(waiting).toEqual(['waiting', 'waiting', 'waiting']);
			expect(
				(await control.get<Json[]>('/alerts')).find((a) => a.id === monitoring.id)!.status,
			).toBe('NEW');
			// a link whose signature was changed opens nothing
			expect(
				(
					await axios.get(formUrl(monitoringPost).replace(/signature=[^&]+/, 'signature=0000'), {
						validateStatus: () => true,
					})
				).status,
			).toBeGreaterThanOrEqual(400);

			// The officer clicks the button: the form (the decisions, a note), then sends it as the browser does.
			const answer = async (p: Json, decision: string, note: string, officer: string) => {
				const page = await axios.get(formUrl(p), {
					headers: {
						'user-agent':
							'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36',
					},
					responseType: 'text',
				});
				expect(page.status).toBe(200);
				const html = String(page.data);
				for (const option of ['CLOSED AS FALSE POSITIVE', 'CLOSED AS TRUE POSITIVE', 'ESCALATED'])
					expect(html).toContain(option);
				const fieldOf = (label: string) =>
					new RegExp(`for='(field-\\d+)'[^>]*>\\s*${label}`).exec(html)?.[1];
				expect([fieldOf('Decision'), fieldOf('Note'), fieldOf('Officer')]).toEqual([
					'field-0',
					'field-1',
					'field-2',
				]);
				const form = new FormData();
				form.append('field-0', decision);
				form.append('field-1', note);
				form.append('field-2', officer);
				const sent = await fetch(formUrl(p), { method: 'POST', body: form });
				expect(sent.status).toBe(200);
			};
			await answer(
				monitoringPost,
				'CLOSED AS FALSE POSITIVE',
				'Salary payment, matches the customer profile',
				'Ana Officer',
			);
			await answer(
				manualPost,
				'ESCALATED',
				'Escalated to the MLRO for a suspicious activity report',
				'Ben Reviewer',
			);
			await answer(
				screeningPost,
				'CLOSED AS TRUE POSITIVE',
				'Same person as the sanctions list entry',
				'Cem Analyst',
			);

			// the executions resume and end (waiting executions have a stop time too, so wait for their end state)
			let ended: Json[] = [];
			for (let i = 0; i < 600 && ended.length < 3; i++, await sleep(100))
				ended = (await n8n().listExecutions(id, { limit: 50 })).filter(
					(e) => !['new', 'running', 'waiting'].includes(e.status),
				);
			expect(ended.map((e) => e.status)).toEqual(['success', 'success', 'success']);
			const storedScreening = (await control.get<Json[]>('/screening-alerts')).find(
				(a) => a.id === screening.id,
			)!;
			expect(storedScreening.status).toBe('CLOSED AS TRUE POSITIVE');
			expect(JSON.stringify(storedScreening.statuses)).toContain(
				'Same person as the sanctions list entry (decided by Cem Analyst in the Slack review)',
			);
			const done = await Promise.all(ended.map((e) => n8n().getExecution(e.id, true)));
			const stored = (await control.get<Json[]>('/alerts')).find((a) => a.id === monitoring.id)!;
			expect(stored.status).toBe('CLOSED AS FALSE POSITIVE');
			expect(stored.statuses.map((s: Json) => s.status)).toEqual([
				'NEW',
				'CLOSED AS FALSE POSITIVE',
			]);
			expect(stored.notes.map((n: Json) => n.content)).toEqual([
				'Salary payment, matches the customer profile (decided by Ana Officer in the Slack review)',
			]);
			const storedManual = (await control.get<Json[]>('/manual-alerts')).find(
				(a) => a.id === manual.id,
			)!;
			expect(storedManual.status).toBe('ESCALATED');
			expect(storedManual.notes.map((n: Json) => n.content)).toEqual([
				'Escalated to the MLRO for a suspicious activity report (decided by Ben Reviewer in the Slack review)',
			]);
			const updated = done.map((e) => nodeOutput(e, 'Update alert status')[0]);
			expect(updated).toEqual(
				expect.arrayContaining([
					expect.objectContaining({
						alertType: 'MONITORING',
						alertId: monitoring.id,
						status: 'CLOSED AS FALSE POSITIVE',
						updated: true,
					}),
					expect.objectContaining({
						alertType: 'MANUAL',
						alertId: manual.id,
						status: 'ESCALATED',
						updated: true,
					}),
					expect.objectContaining({
						alertType: 'SCREENING',
						alertId: screening.id,
						status: 'CLOSED AS TRUE POSITIVE',
						updated: true,
					}),
				]),
			);
		} finally {
			await control.del(`/webhooks/${target}`);
			await n8n().deactivate(id);
		}
	});
});

describe('alert examples run on their pinned sample events, with the AML credential chosen', () => {
	// What a user gets who clicks Execute workflow right after import, on any credential: the samples' IDs cannot exist
	// (alert 0, person "sample person"), so nothing real is read, posted or changed.
	const runPinned = async (
		file: string,
		credentials: Record<string, CredentialRef>,
		settings: Record<string, Json> = {},
	) => {
		const shipped = readExample(file);
		const chosen = applyChoices(shipped, { credentials, settings });
		const rest = await ownerRest();
		// what the editor's import stores (n8n's public API drops pinned data)
		const made = await rest.post('/workflows', {
			name: `${shipped.name} pinned ${randomUUID().slice(0, 8)}`,
			nodes: chosen.nodes,
			connections: chosen.connections,
			pinData: shipped.pinData,
			settings: shipped.settings,
			active: false,
		});
		expect(made.status).toBe(200);
		const id = String(made.data.data.id);
		created.push(id);
		const started = await rest.post(`/workflows/${id}/run`, {
			workflowData: made.data.data,
			triggerToStartFrom: { name: 'AML Trigger' },
		});
		expect(started.status).toBe(200);
		expect(started.data.data).not.toHaveProperty('waitingForWebhook');
		return { id, rest };
	};
	const stateOfAlerts = async () => ({
		alerts: await control.get<Json[]>('/alerts'),
		manual: await control.get<Json[]>('/manual-alerts'),
	});
	const webhookCredential = async () =>
		await credential('amlWebhookApi', 'AML webhook (e2e pinned samples)', {
			method: 'header',
			headerName: 'X-AML-Secret',
			headerSecret: randomUUID(),
		});

	const sampleRuns = async (id: string) => {
		const [execution] = await finishedExecutions(id, 1);
		const runData = execution.data.resultData.runData as Record<string, Json[]>;
		const items = (name: string) =>
			(runData[name] ?? [])
				.flatMap((run: Json) => run.data?.main?.[0] ?? [])
				.map((i: Json) => i.json);
		return { execution, runData, items };
	};

	test.each([
		['03-alert-notification.json', 'Monitoring alert message', 'Post to Slack'],
		['06-alert-ticket-jira.json', 'Monitoring alert ticket', 'Create Jira issue'],
	])(
		'%s: the samples run through the pinned AML answers to the message, and stop at Sample event?: nothing is read, posted or changed',
		async (file, message, send) => {
			await raiseAlerts(`pin${file.slice(0, 2)}`);
			await axios.delete(`${context().slack.url}/calls`);
			const before = await stateOfAlerts();
			const mark = await control.mark();
			const jira = await credential(
				'jiraSoftwareCloudApi',
				'Jira (e2e pinned samples, unreachable)',
				{
					email: 'aml-bot@example.com',
					apiToken: 'jira-e2e-token',
					domain: 'http://127.0.0.1:9',
				},
			);
			const { id } = await runPinned(
				file,
				{
					amlOAuth2Api: context().credential,
					amlWebhookApi: await webhookCredential(),
					slackApi: await slackCredential(),
					jiraSoftwareCloudApi: jira,
				},
				// what the sticky note asks for (example 06 ships Project and Issue Type empty)
				file.startsWith('06')
					? {
							'Create Jira issue': {
								project: { __rl: true, mode: 'id', value: '10000' },
								issueType: { __rl: true, mode: 'id', value: '10001' },
							},
						}
					: {},
			);
			const { execution, runData, items } = await sampleRuns(id);
			expect(execution.status).toBe('success');
			// the message or ticket of each sample can be seen before the first real event
			expect(JSON.stringify(items(message))).toMatch(/alert 0\b/);
			expect(items('Sample: nothing sent')).toHaveLength(2);
			expect(runData[send]).toBeUndefined();
			expect((await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api/'))).toEqual(
				[],
			);
			expect(await slackCalls('chat.postMessage')).toEqual([]);
			expect(await stateOfAlerts()).toEqual(before);
		},
	);

	test('07-alert-review-slack.json: the samples stop at Sample event? with their message built: nothing reaches Slack, no alert status is sent', async () => {
		await raiseAlerts('pin07');
		await axios.delete(`${context().slack.url}/calls`);
		const before = await stateOfAlerts();
		const mark = await control.mark();
		const { id } = await runPinned('07-alert-review-slack.json', {
			amlOAuth2Api: context().credential,
			amlWebhookApi: await webhookCredential(),
			slackApi: await slackCredential(),
		});
		const { execution, runData, items } = await sampleRuns(id);
		expect(execution.status).toBe('success');
		expect(items('Alert for review').map((i: Json) => i.alertType)).toEqual([
			'MONITORING',
			'MANUAL',
			'SCREENING',
		]);
		expect(items('Sample: nothing sent')).toHaveLength(3);
		expect(runData['Ask compliance officer']).toBeUndefined();
		expect(runData['Update alert status']).toBeUndefined();
		expect(await slackCalls('chat.postMessage')).toEqual([]);
		expect((await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api/'))).toEqual(
			[],
		);
		expect(await stateOfAlerts()).toEqual(before);
	});
});

describe('example 04: nightly CSV upload', () => {
	test('a clean export is stored (COMPLETED, no report); a re-upload of the same file is reported with the first id not saved', async () => {
		await control.post('/reset');
		const { id, workflow } = await importAsUser('04-nightly-csv-upload.json', {
			credentials: { amlOAuth2Api: context().credential, slackApi: await slackCredential() },
			settings: {
				'Download persons export': {
					url: `${context().sandbox.baseUrl}/files/persons-nightly.csv`,
				},
			},
		});
		const hookPath = await scheduleToWebhook(id, workflow);
		await n8n().activate(id);
		await n8n().callWebhook(hookPath, {});
		const [first] = await finishedExecutions(id, 1);
		expect(first.status).toBe('success');
		expect(nodeOutput(first, 'Upload to AML')[0]).toMatchObject({
			status: 'COMPLETED',
			success: true,
		});
		expect(nodeOutputs(first, 'Completed?')[1] ?? []).toHaveLength(0);
		expect(first.data.resultData.runData['Report to Slack']).toBeUndefined();
		expect(
			(await control.get<Json[]>('/persons')).filter((p) => p.id.startsWith('nightly-')),
		).toHaveLength(500);

		// The same file again: every id exists, so the first batch fails → PARTIALLY_COMPLETED → a report.
		await n8n().callWebhook(hookPath, {});
		const [, second] = await finishedExecutions(id, 2);
		expect(nodeOutputs(second, 'Completed?')[1]).toHaveLength(1);
		const report = nodeOutput(second, 'Upload report');
		expect(report).toHaveLength(1);
		expect(report[0].text).toMatch(/PARTIALLY_COMPLETED/);
		expect(report[0].text).toMatch(/First id not saved: nightly-0001/);
		// posted to Slack (the stand-in)
		expect(second.status).toBe('success');
		expect((await slackCalls('chat.postMessage')).map((p) => p.body.text)).toContain(
			report[0].text,
		);
	});
});

describe('example 08: release held payments', () => {
	test('the hold loop: a blocked payment whose alerts are all closed as false positive is released by the decision webhook (status RELEASED in the service, the core banking stand-in told) and clears when sent again; one with a confirmed alert gets no release and stays blocked', async () => {
		// the core banking system's release call: a stand-in that records what it is told
		const told: Json[] = [];
		const bank = http.createServer((req, res) => {
			let data = '';
			req.on('data', (chunk) => (data += chunk));
			req.on('end', () => {
				told.push({ path: req.url, body: JSON.parse(data || '{}') });
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end('{"released":true}');
			});
		});
		await new Promise<void>((resolve) => bank.listen(0, '127.0.0.1', resolve));
		const bankUrl = `http://127.0.0.1:${(bank.address() as AddressInfo).port}/payments/release`;
		const { id, target } = await publishAlertExample(
			'08-payment-release.json',
			{},
			['TRANSACTION_RELEASABLE'],
			{ 'Tell core banking': { url: bankUrl } },
		);
		const rules = (await control.get<Json>('/config')).decisionRules as Json[];
		// the rule the sticky note asks for: every alert of the transaction closed, none as a true positive
		await control.post('/config', {
			decisionRules: [
				...rules,
				{
					name: 'TRANSACTION_RELEASABLE',
					entity: 'TRANSACTION',
					condition: 'allAlertsClosedNoneConfirmed',
				},
			],
		});
		try {
			const api = await amlApi();
			const personId = `cust-hold-${randomUUID().slice(0, 8)}`;
			await api.post('/v1/persons', {
				id: personId,
				type: 'INDIVIDUAL',
				attributes: { first_name: 'Lena', last_name: 'Hofer' },
			});
			// the Gate of example 01 as shipped, fed what its webhook receives
			const gateNode = (readExample('01-transaction-gate.json').nodes as Json[]).find(
				(n) => n.name === 'AML Gate',
			)!;
			const gate = async (paymentId: string) => {
				const run = await runAml(gateNode.parameters, [
					{
						body: {
							id: paymentId,
							personId,
							amount: '25000.00',
							type: 'wire_transfer',
							direction: 'O',
							timestamp: '2026-11-22T09:00:00Z',
						},
					},
				]);
				expect(run.status).toBe('success');
				const [block = [], clear = []] = run.outputs;
				return [...block, ...clear][0];
			};
			const close = async (alertId: number, status: string) =>
				expect(
					(
						await api.put('/v1/alerts/status', {
							alertType: 'MONITORING',
							alertId,
							status,
							note: 'reviewed',
						})
					).status,
				).toBe(200);
			const statusOf = async (transactionId: string) =>
				(await control.get<Json[]>('/transactions', { personId })).find(
					(t) => t.id === transactionId,
				)?.attributes.status;

			// held: blocked by monitoring, its alerts closed as false positives
			const held = await gate('hold-1');
			expect(held).toMatchObject({ decision: 'block' });
			const heldAlerts = held.alertIds as number[];
			expect(heldAlerts.length).toBeGreaterThan(0);
			for (const alertId of heldAlerts) await close(alertId, 'CLOSED AS FALSE POSITIVE');
			const [release] = await finishedExecutions(id, 1);
			expect(release.status).toBe('success');
			expect(nodeOutput(release, 'AML Trigger')[0]).toMatchObject({
				action: 'TRANSACTION_RELEASABLE',
				metadata: { transactionId: 'hold-1', personId },
			});
			expect(String(await statusOf('hold-1')).toUpperCase()).toBe('RELEASED');
			expect(told).toEqual([
				{
					path: '/payments/release',
					body: { transactionId: 'hold-1', personId, action: 'release' },
				},
			]);
			expect(await gate('hold-1')).toMatchObject({ transactionId: 'hold-1', decision: 'clear' });

			// confirmed: one alert closed as a true positive, no release; sent again, still blocked
			const confirmed = await gate('hold-2');
			expect(confirmed).toMatchObject({ decision: 'block' });
			const [first, ...rest] = confirmed.alertIds as number[];
			await close(first, 'CLOSED AS TRUE POSITIVE');
			for (const alertId of rest) await close(alertId, 'CLOSED AS FALSE POSITIVE');
			await sleep(3000);
			expect((await n8n().listExecutions(id, { limit: 50 })).length).toBe(1);
			expect(told).toHaveLength(1);
			expect(String((await statusOf('hold-2')) ?? '').toUpperCase()).not.toBe('RELEASED');
			expect(await gate('hold-2')).toMatchObject({ transactionId: 'hold-2', decision: 'block' });
		} finally {
			await control.post('/config', { decisionRules: rules });
			await control.del(`/webhooks/${target}`);
			await n8n().deactivate(id);
			await new Promise((resolve) => bank.close(resolve));
		}
	});
});
