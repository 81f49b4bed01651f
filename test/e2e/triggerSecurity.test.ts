import axios from 'axios';
import { createHash, createHmac, randomUUID } from 'node:crypto';

import fs from 'node:fs';

import { amlTriggerWorkflow } from '../harness/client';
import { context, loadedTypes, n8n, ownerRest, type Json } from '../harness/context';
import {
	cleanup,
	NODE,
	publish,
	runCleanup,
	runs,
	settled,
	sleep,
	until,
} from '../harness/trigger';

/**
 * AML Trigger against hostile callers, in real n8n (SECURITY.md): incomplete verification settings let nothing in,
 * signed deliveries outside the service's retry span are refused, secrets in request headers never reach the
 * output, and a body cannot smuggle the trigger's internal deduplication key.
 */

const SECRET = `sec-${randomUUID()}`;
const sign = (body: string, secret = SECRET) =>
	createHmac('sha256', secret).update(body).digest('hex');
const post = (url: string, body: string, headers: Json = {}) =>
	axios.post(url, body, {
		headers: { 'content-type': 'application/json', ...headers },
		validateStatus: () => true,
		transformRequest: (b) => b,
	});
/** A delivery body; `createdTime` null leaves the field out. */
const event = (
	alertId: number,
	createdTime: string | null = new Date().toISOString(),
	extra: Json = {},
) =>
	JSON.stringify({
		action: 'MANUAL_ALERT_CREATED',
		...(createdTime === null ? {} : { createdTime }),
		metadata: { alertId, personId: 'cust-1001', status: 'NEW' },
		...extra,
	});
const DAY = 86_400_000;

let hmac: { id: string; name: string };

beforeAll(async () => {
	hmac = await n8n().createCredential(
		`AML webhook security ${randomUUID().slice(0, 8)}`,
		'amlWebhookApi',
		{ method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: SECRET },
	);
	cleanup.push(() => n8n().deleteCredential(hmac.id));
});

afterAll(async () => {
	await runCleanup();
});

describe('AML Trigger: incomplete verification settings fail closed', () => {
	test('basic auth whose password resolves to empty lets no caller in, not even one sending "aml:"', async () => {
		// n8n's forms and its REST call refuse an empty password, but not an expression that resolves to one (an unset
		// variable, a typo): the trigger must not rest on the form.
		const cred = await n8n().createCredential(
			`AML webhook empty password ${randomUUID().slice(0, 8)}`,
			'amlWebhookApi',
			{ method: 'basicAuth', user: 'aml', password: '={{ "" }}' },
		);
		cleanup.push(() => n8n().deleteCredential(cred.id));
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, cred);
		const basic = (v: string) => ({ Authorization: `Basic ${Buffer.from(v).toString('base64')}` });
		const answers = [
			await post(wf.url, event(8001), basic('aml:')),
			await post(wf.url, event(8002), basic('aml')),
			await post(wf.url, event(8003)),
		];
		expect(answers.map((r) => r.status)).toEqual([401, 401, 401]);
		await sleep(1500);
		expect(await runs(wf.id)).toHaveLength(0);
	});
});

describe('AML Trigger: odd secrets fail closed', () => {
	const basic = (v: string) => ({ Authorization: `Basic ${Buffer.from(v).toString('base64')}` });
	test('a secret of spaces or the text "undefined", a number, boolean or list from an expression, and one an expression takes from the delivery, refuse every delivery with 401 and start nothing (no failed execution)', async () => {
		const cases: Array<{ what: string; data: Json; send: (body: string) => Json }> = [
			{
				what: 'basic auth of spaces',
				data: { method: 'basicAuth', user: ' ', password: ' ' },
				send: () => basic(' : '),
			},
			{
				what: 'HMAC secret of spaces',
				data: { method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: '  ' },
				send: (b) => ({ 'X-AML-Signature': sign(b, '  ') }),
			},
			{
				what: 'header value "undefined"',
				data: { method: 'header', headerName: 'X-AML-Secret', headerSecret: 'undefined' },
				send: () => ({ 'X-AML-Secret': 'undefined' }),
			},
			{
				what: 'password a number',
				data: { method: 'basicAuth', user: 'aml', password: '={{ 5 }}' },
				send: () => basic('aml:5'),
			},
			{
				what: 'HMAC secret a boolean',
				data: { method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: '={{ true }}' },
				send: (b) => ({ 'X-AML-Signature': sign(b, 'true') }),
			},
			{
				what: 'header value a list',
				data: { method: 'header', headerName: 'X-AML-Secret', headerSecret: '={{ [1] }}' },
				send: () => ({ 'X-AML-Secret': '1' }),
			},
			{
				what: 'header name a number',
				data: { method: 'header', headerName: '={{ 7 }}', headerSecret: 'x-secret-1' },
				send: () => ({ '7': 'x-secret-1' }),
			},
			{
				// the credential is read within the delivery's call: an expression must not reach the delivery itself
				what: "header value from an expression reading the delivery's header",
				data: {
					method: 'header',
					headerName: 'X-AML-Secret',
					headerSecret: '={{ $json.headers?.["x-aml-secret"] ?? $json.body?.secret }}',
				},
				send: () => ({ 'X-AML-Secret': 'chosen-by-the-caller' }),
			},
		];
		const answers: Json = {};
		const workflows: string[] = [];
		for (const [i, c] of cases.entries()) {
			const cred = await n8n().createCredential(
				`AML webhook odd ${randomUUID().slice(0, 8)}`,
				'amlWebhookApi',
				c.data,
			);
			cleanup.push(() => n8n().deleteCredential(cred.id));
			const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, cred);
			workflows.push(wf.id);
			const body = event(8401 + i);
			answers[c.what] = (await post(wf.url, body, c.send(body))).status;
		}
		expect(answers).toEqual(Object.fromEntries(cases.map((c) => [c.what, 401])));
		await sleep(1500);
		const executions: Json = {};
		for (const [i, id] of workflows.entries())
			executions[cases[i].what] = (await n8n().listExecutions(id)).length;
		expect(executions).toEqual(Object.fromEntries(cases.map((c) => [c.what, 0])));
	});
});

describe('AML Trigger: the event comes from the verified bytes only', () => {
	test('a captured signed delivery resent as form-encoded, a text field carrying "&action=…&createdTime=<now>&z=", starts nothing; a signed body that is not a JSON object is refused with 400', async () => {
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, hmac);
		// The capture: a real, signed ALERT_CREATED whose hit details (free text) were written by the attacker.
		const now = new Date().toISOString();
		const captured = JSON.stringify({
			action: 'ALERT_CREATED',
			createdTime: new Date(Date.now() - 16 * DAY).toISOString(),
			metadata: {
				alertId: 8501,
				hits: [
					{
						reason: 'r',
						details: `x&action=TRANSACTION_CLEARED&createdTime=${now}&z=`,
						scenarioHandle: 's',
					},
				],
			},
		});
		const asForm = await post(wf.url, captured, {
			'content-type': 'application/x-www-form-urlencoded',
			'X-AML-Signature': sign(captured),
		});
		// Read as JSON from its bytes, it is the old alert: refused as a replay.
		expect({ status: asForm.status, message: asForm.data?.message }).toEqual({
			status: 400,
			message: expect.stringMatching(/createdTime is 16 days old/),
		});
		// A signed form body: n8n parses it into {action, createdTime}, but it is not a JSON object.
		const form = `action=TRANSACTION_CLEARED&createdTime=${encodeURIComponent(now)}`;
		const signedForm = await post(wf.url, form, {
			'content-type': 'application/x-www-form-urlencoded',
			'X-AML-Signature': sign(form),
		});
		expect({ status: signedForm.status, message: signedForm.data?.message }).toEqual({
			status: 400,
			message: expect.stringMatching(/^Not an AML event: expected a JSON object/),
		});
		await sleep(1500);
		expect(await runs(wf.id)).toHaveLength(0);
	});

	test('without verification too, the event is read from the bytes as JSON: a form body starts nothing', async () => {
		const wf = await publish({ authentication: 'none', events: ['*'] });
		const form = `action=TRANSACTION_CLEARED&createdTime=${encodeURIComponent(new Date().toISOString())}`;
		const r = await post(wf.url, form, { 'content-type': 'application/x-www-form-urlencoded' });
		expect(r.status).toBe(400);
		await sleep(1500);
		expect(await runs(wf.id)).toHaveLength(0);
	});
});

describe('AML Trigger: replayed signed deliveries', () => {
	test('a signed delivery dated beyond the 14-day retry span, ahead of the clock or undated is refused with 400 and its reason; within the span it runs', async () => {
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, hmac);
		const now = Date.now();
		const refusedBodies = {
			'16 days old': event(8101, new Date(now - 16 * DAY).toISOString()),
			'10 minutes ahead': event(8102, new Date(now + 10 * 60_000).toISOString()),
			'no createdTime': event(8103, null),
			'createdTime without a zone': event(8104, '2026-11-22T10:00:00'),
		};
		const refused: Json = {};
		for (const [what, body] of Object.entries(refusedBodies)) {
			const r = await post(wf.url, body, { 'X-AML-Signature': sign(body) });
			refused[what] = { status: r.status, message: r.data?.message };
		}
		expect(refused).toEqual({
			'16 days old': {
				status: 400,
				message: expect.stringMatching(
					/^Delivery refused: its createdTime is 16 days old, .*replayed delivery$/,
				),
			},
			'10 minutes ahead': {
				status: 400,
				message: expect.stringMatching(
					/^Delivery refused: its createdTime is 10 minutes in the future/,
				),
			},
			'no createdTime': { status: 400, message: expect.stringMatching(/createdTime" is missing/) },
			'createdTime without a zone': {
				status: 400,
				message: expect.stringMatching(
					/createdTime" is missing or not an ISO-8601 date-time with a time zone/,
				),
			},
		});
		// The service's last retry (14 days after the event) and a clock a little ahead are accepted.
		const late = event(8105, new Date(now - 14 * DAY).toISOString());
		const ahead = event(8106, new Date(now + 60_000).toISOString());
		for (const body of [late, ahead])
			expect((await post(wf.url, body, { 'X-AML-Signature': sign(body) })).status).toBe(200);
		const out = await settled(wf.id, 2);
		expect(out.map((o) => o.metadata.alertId).sort()).toEqual([8105, 8106]);
		// Unsigned, an old delivery is refused for its signature first (nothing about it is read).
		expect((await post(wf.url, refusedBodies['16 days old'])).status).toBe(401);
	});

	test("the bound within the span: a copy after the deduplication window starts an execution that the trigger ends without output (n8n's deduplication store, newest 10,000 keys)", async () => {
		// A window of 3 seconds stands for the default day.
		const wf = await publish(
			{ authentication: 'amlWebhookApi', events: ['*'], options: { dedupWindow: 0.05 } },
			hmac,
		);
		const body = event(8201);
		expect((await post(wf.url, body, { 'X-AML-Signature': sign(body) })).data).toBe('');
		await settled(wf.id, 1, 300);
		expect((await post(wf.url, body, { 'X-AML-Signature': sign(body) })).data).toEqual({
			received: true,
			started: false,
			reason: 'duplicate delivery',
		});
		await sleep(4000);
		const replay = await post(wf.url, body, { 'X-AML-Signature': sign(body) });
		expect({ status: replay.status, data: replay.data }).toEqual({ status: 200, data: '' });
		const executions = await until("the replay's execution", async () => {
			const list = (await n8n().listExecutions(wf.id, { includeData: true })).filter(
				(e) => e.finished || e.status === 'success',
			);
			return list.length >= 2 ? list : undefined;
		});
		const items = executions
			.map((e) => (e.data?.resultData?.runData?.[NODE]?.[0]?.data?.main?.[0] ?? []).length)
			.sort();
		expect(items).toEqual([0, 1]);
	});
});

describe("AML Trigger: one trigger's deliveries do not touch another's memory", () => {
	test('a trigger with a short deduplication window does not make another trigger forget the deliveries it accepted', async () => {
		const long = await publish({ authentication: 'none', events: ['*'] });
		// About 0.6 s: its own records expire at once.
		const short = await publish({
			authentication: 'none',
			events: ['*'],
			options: { dedupWindow: 0.01 },
		});
		const body = event(8601);
		expect((await post(long.url, body)).data).toBe('');
		await settled(long.id, 1, 300);
		await sleep(1500);
		// Any delivery to the short-window trigger, after the long one's record is older than the short window.
		expect((await post(short.url, event(8602))).data).toBe('');
		// The copy to the long-window trigger is still known as run: answered "duplicate", no execution started.
		expect((await post(long.url, body)).data).toEqual({
			received: true,
			started: false,
			reason: 'duplicate delivery',
		});
		await sleep(1500);
		expect(await n8n().listExecutions(long.id)).toHaveLength(1);
	});
});

describe('AML Trigger: what a delivery cannot put into the output', () => {
	test("Include Headers redacts Authorization, Proxy-Authorization, Cookie and the signature header; a body's own deliveryKey is replaced by the delivery's and chooses no key", async () => {
		const wf = await publish(
			{ authentication: 'amlWebhookApi', events: ['*'], options: { includeHeaders: true } },
			hmac,
		);
		const cookie = `sid=${randomUUID()}`;
		const proxy = `Basic ${Buffer.from(`proxy:${randomUUID()}`).toString('base64')}`;
		const forged = 'forged-key-chosen-by-the-body';
		const body = event(8301, null, {}).replace(
			'"action"',
			`"deliveryKey":"${forged}","createdTime":"${new Date().toISOString()}","action"`,
		);
		const r = await post(wf.url, body, {
			'X-AML-Signature': sign(body),
			Cookie: cookie,
			'Proxy-Authorization': proxy,
			Authorization: 'Bearer caller-token',
		});
		expect(r.status).toBe(200);
		const [out] = await settled(wf.id, 1);
		expect(out.headers).toMatchObject({
			cookie: '[redacted]',
			'proxy-authorization': '[redacted]',
			authorization: '[redacted]',
			'x-aml-signature': '[redacted]',
		});
		const hash = createHash('sha256').update(body).digest('base64url');
		expect(out.deliveryKey).toBe(hash);
		const stored = JSON.stringify(await n8n().listExecutions(wf.id, { includeData: true }));
		for (const secret of [cookie, proxy, 'caller-token', forged])
			expect(stored).not.toContain(secret);
		// The delivery is remembered under the hash of its bytes, not under the key the body named: other bytes that
		// name that hash as their key run, and the same bytes again are a duplicate.
		const other = body.replace(forged, hash);
		expect((await post(wf.url, other, { 'X-AML-Signature': sign(other) })).data).toBe('');
		expect((await post(wf.url, body, { 'X-AML-Signature': sign(body) })).data).toEqual({
			received: true,
			started: false,
			reason: 'duplicate delivery',
		});
		expect(await settled(wf.id, 2)).toHaveLength(2);
	});
});

describe("AML Trigger: credential-equivalent output fields (n8n's sensitiveOutputFields)", () => {
	test("n8n loaded the trigger with its declaration; with a secret header and Include Headers the stored execution shows the header and Authorization as [redacted], in the API and in the editor's REST", async () => {
		const { nodes } = await loadedTypes();
		const trigger = nodes.find((node) => node.name === 'n8n-nodes-aml.amlTrigger');
		expect(trigger?.sensitiveOutputFields).toEqual([
			'headers.authorization',
			'headers.proxy-authorization',
			'headers.cookie',
			'headers.x-aml-secret',
			'headers.x-aml-signature',
		]);
		const secret = `hdr-${randomUUID()}`;
		const cred = await n8n().createCredential(
			`AML webhook header ${randomUUID().slice(0, 8)}`,
			'amlWebhookApi',
			{ method: 'header', headerName: 'X-AML-Secret', headerSecret: secret },
		);
		cleanup.push(() => n8n().deleteCredential(cred.id));
		const wf = await publish(
			{ authentication: 'amlWebhookApi', events: ['*'], options: { includeHeaders: true } },
			cred,
		);
		const caller = `Bearer caller-${randomUUID()}`;
		const r = await post(wf.url, event(8401), { 'X-AML-Secret': secret, Authorization: caller });
		expect(r.status).toBe(200);
		const [out] = await settled(wf.id, 1);
		expect(out.headers).toMatchObject({
			'x-aml-secret': '[redacted]',
			authorization: '[redacted]',
			'content-type': 'application/json',
		});
		const [stored] = await n8n().listExecutions(wf.id, { includeData: true });
		const rest = await ownerRest();
		const editor = await rest.get(`/executions/${String(stored.id)}`);
		expect(editor.status).toBe(200);
		for (const text of [JSON.stringify(stored), JSON.stringify(editor.data)]) {
			expect(text).toContain('[redacted]');
			expect(text).not.toContain(secret);
			expect(text).not.toContain(caller);
		}
	});
});

describe('AML Trigger: a refused delivery is visible where the user looks', () => {
	const basicHeader = `Basic ${Buffer.from(`aml:${randomUUID()}`).toString('base64')}`;

	test("at run time each refusal leaves a line in n8n's log with its reason and the method that would match, at most one per trigger per minute (4 refusals, 1 line), no value of any header", async () => {
		const before = fs.readFileSync(context().n8n.logFile, 'utf8').length;
		// publish() waits for the URL with an unsigned probe: the first refusal of this trigger.
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, hmac);
		const statuses = [];
		for (let i = 0; i < 3; i++)
			statuses.push(
				(
					await post(wf.url, event(8701 + i), {
						Authorization: basicHeader,
						'X-Request-Id': 'req-value-1',
					})
				).status,
			);
		expect(statuses).toEqual([401, 401, 401]);
		const lines = await until('the refusal in the log', async () => {
			const found = fs
				.readFileSync(context().n8n.logFile, 'utf8')
				.slice(before)
				.split('\n')
				.filter((l) => l.includes(`of workflow ${wf.id} refused a delivery`));
			return found.length ? found : undefined;
		});
		await sleep(500);
		const all = fs.readFileSync(context().n8n.logFile, 'utf8').slice(before);
		expect(all.split('\n').filter((l) => l.includes(`of workflow ${wf.id} refused`))).toHaveLength(
			1,
		);
		expect(lines[0]).toMatch(/refused a delivery \(401\): no X-AML-Signature header arrived/);
		for (const value of [basicHeader, basicHeader.slice(6), 'req-value-1', SECRET])
			expect(all).not.toContain(value);
	});

	test('while "Listen for test event" runs, a refused delivery is answered 401 and shown in the editor: the test execution fails at the trigger naming the headers that arrived (names only) and the method that would match', async () => {
		const webhookId = randomUUID();
		const created = await n8n().createWorkflow(
			amlTriggerWorkflow(
				`AML Trigger test mode ${webhookId.slice(0, 8)}`,
				webhookId,
				{ authentication: 'amlWebhookApi', events: ['*'] },
				hmac,
			),
		);
		cleanup.push(() => n8n().deleteWorkflow(created.id));
		const rest = await ownerRest();
		const stored = await rest.get(`/workflows/${created.id}`);
		const started = await rest.post(`/workflows/${created.id}/run`, {
			workflowData: stored.data.data,
			triggerToStartFrom: { name: NODE },
		});
		expect({ status: started.status, data: started.data?.data }).toEqual({
			status: 200,
			data: { waitingForWebhook: true },
		});
		const testUrl = `${context().n8n.baseUrl}/webhook-test/${webhookId}/aml`;
		const body = event(8801);
		const r = await post(testUrl, body, {
			Authorization: basicHeader,
			'X-Hook-Token': 'token-value-1',
		});
		expect(r.status).toBe(401);
		const failed = await until('the failed test execution', async () => {
			const list = await n8n().listExecutions(created.id, { includeData: true });
			return list.find((e) => e.status === 'error');
		});
		const error = failed.data?.resultData?.error ?? {};
		expect(error.message).toBe(
			'Delivery refused (401): no X-AML-Signature header arrived (HMAC-SHA256 Signature method)',
		);
		expect(error.description).toMatch(
			/Headers that arrived \(names only\): .*authorization.*x-hook-token/,
		);
		expect(error.description).toMatch(/Basic credentials arrived: the Basic Auth method checks it/);
		expect(error.description).toMatch(
			/secret-like header "x-hook-token" arrived: the Secret Header method/,
		);
		const saved = JSON.stringify(failed);
		for (const value of [basicHeader.slice(6), 'token-value-1', SECRET, '"alertId":8801'])
			expect(saved).not.toContain(value);
		// The test URL is no longer listening: the refusal ended the test.
		expect((await post(testUrl, body)).status).toBe(404);
	});
});
