import axios from 'axios';
import { createHmac, randomUUID } from 'node:crypto';
import * as zlib from 'node:zlib';

import { dbNotReady, type Json } from '../harness/client';
import { control, n8n } from '../harness/context';
import { cleanup, deliveries, publish, settled, target, until } from '../harness/trigger';
import { report, size, sleep, tally } from './helpers';

/**
 * AML Trigger under bad and heavy deliveries (HMAC-SHA256 verification):
 * - unsigned or wrongly signed deliveries are answered 401 and start nothing;
 * - a replayed delivery (same bytes, also several at once) starts nothing;
 * - a burst of deliveries sent by the sandbox within a few seconds loses none: each event starts exactly one
 *   execution (n8n answers late or 503 under load → the sandbox retries, the trigger deduplicates).
 *
 *   AML_FAULTS_BURST          deliveries in the burst (short 200, full 1,000)
 *   AML_FAULTS_BURST_SECONDS  seconds they are sent within (short 2, full 10)
 *   AML_FAULTS_BAD_DELIVERIES unsigned + wrongly signed deliveries (short 40, full 200)
 */
const BURST = size('BURST', 200, 1000);
const BURST_SECONDS = size('BURST_SECONDS', 2, 10);
const BAD = size('BAD_DELIVERIES', 40, 200);
const SIGNED = 20;
const SECRET = `hook-${randomUUID()}`;
const HEADER = 'X-AML-Signature';
/** What each hostile body gets (n8n 2.41.1; n8n inflates gzip and deflate before the trigger sees the bytes, so a signature covers the JSON inside). */
const EXPECTED_HOSTILE: Json = {
	'deep unsigned': '401 Webhook verification failed',
	'deep signed': '400 Not an AML event: nested deeper than 32 levels',
	'__proto__ unsigned': '401 Webhook verification failed',
	'__proto__ signed': '200',
	'form unsigned': '401 Webhook verification failed',
	'XML unsigned': '401 Webhook verification failed',
	'XML signed': '400 Not an AML event: expected a JSON object with a text "action"',
	'gzip unsigned': '401 Webhook verification failed',
	'gzip signed (compressed bytes)': '401 Webhook verification failed',
	'gzip signed (JSON inside)': '200',
	// n8n reads the body before the trigger runs and refuses it itself (2.41.1: 500 "There was a problem executing the workflow")
	'over 16 MiB unsigned': expect.stringMatching(/^(413|500) /),
};
/** The deliveries that run: the signed __proto__ body, the signed gzip body and the normal one sent last. */
const EXPECTED_HOSTILE_RUNS = [400002, 400005, 400099];

const sign = (body: string, secret = SECRET) =>
	createHmac('sha256', secret).update(body).digest('hex');
/** POSTs raw bytes; repeats (as the service would) while n8n answers 503 "Database is not ready!" (a loaded machine). */
async function post(url: string, body: string, headers: Json = {}) {
	for (let tries = 0; ; tries++) {
		const r = await axios.post(url, body, {
			headers: { 'content-type': 'application/json', ...headers },
			validateStatus: () => true,
			transformRequest: (b) => b,
			timeout: 60_000,
		});
		if (!dbNotReady(r) || tries >= 60) return r;
		await sleep(1000);
	}
}

let credential: { id: string; name: string };

beforeAll(async () => {
	await control.post('/reset');
	credential = await n8n().createCredential(`faults webhook ${Date.now()}`, 'amlWebhookApi', {
		method: 'hmac',
		hmacHeaderName: HEADER,
		hmacSecret: SECRET,
	});
});

afterAll(async () => {
	// The workflows (and so their executions) are kept for secrets.test.ts; the suite's n8n is removed afterwards.
	cleanup.splice(0);
	await control.post('/reset');
});

test(
	`${BAD} unsigned or wrongly signed deliveries → 401, nothing started; ${SIGNED} replayed deliveries start nothing`,
	async () => {
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, credential);
		const event = (alertId: number) =>
			JSON.stringify({
				action: 'ALERT_STATUS_UPDATED',
				createdTime: new Date().toISOString(),
				metadata: { alertId, status: 'CLOSED', previousStatus: 'NEW' },
			});
		const bad: Array<{ kind: string; body: string; headers: Json }> = [];
		for (let i = 0; i < BAD; i++) {
			const body = event(100_000 + i);
			const kinds = [
				{ kind: 'unsigned', body, headers: {} },
				{ kind: 'wrong secret', body, headers: { [HEADER]: sign(body, 'not-the-secret') } },
				{ kind: 'signature of another body', body, headers: { [HEADER]: sign(event(999)) } },
				{ kind: 'garbage signature', body, headers: { [HEADER]: 'sha256=' + 'ab'.repeat(32) } },
				{ kind: 'empty signature', body, headers: { [HEADER]: '' } },
			];
			bad.push(kinds[i % kinds.length]);
		}
		const refused = await Promise.all(bad.map((b) => post(wf.url, b.body, b.headers)));
		const refusedStatus = tally(refused.map((r) => r.status));

		// Signed deliveries start one execution each; replays of the same bytes (one by one and several at once) start none.
		const signed = Array.from({ length: SIGNED }, (_, i) => event(200_000 + i));
		const first = await Promise.all(signed.map((b) => post(wf.url, b, { [HEADER]: sign(b) })));
		expect(first.map((r) => r.status)).toEqual(signed.map(() => 200));
		await settled(wf.id, SIGNED, 500);
		const replays = await Promise.all(
			[...signed, ...signed, ...signed].map((b) =>
				post(wf.url, b, { [HEADER]: `sha256=${sign(b)}` }),
			),
		);
		const out = await settled(wf.id, SIGNED, 2000);
		report('webhooks-refused-and-replayed', {
			bad: BAD,
			refusedStatus,
			kinds: tally(bad.map((b) => b.kind)),
			signed: SIGNED,
			replays: replays.length,
			replayStatus: tally(replays.map((r) => `${r.status} ${r.data?.reason ?? ''}`.trim())),
			executions: out.length,
		});

		expect(refused.map((r) => r.status)).toEqual(bad.map(() => 401));
		for (const r of replays)
			expect({ status: r.status, data: r.data }).toEqual({
				status: 200,
				data: { received: true, started: false, reason: 'duplicate delivery' },
			});
		expect(out).toHaveLength(SIGNED);
		expect(out.map((o) => o.metadata.alertId).sort()).toEqual(
			signed.map((b) => JSON.parse(b).metadata.alertId).sort(),
		);
	},
	10 * 60_000,
);

test(
	`a burst of ${BURST} deliveries within ${BURST_SECONDS} s loses none: one execution per event`,
	async () => {
		const wf = await publish(
			{ authentication: 'amlWebhookApi', events: ['MANUAL_ALERT_CREATED'] },
			credential,
		);
		await target(wf.url, {
			events: ['MANUAL_ALERT_CREATED'],
			verification: { mode: 'hmac', headerName: HEADER, secret: SECRET },
		});
		const marker = randomUUID();
		const started = Date.now();
		const perTick = Math.max(1, Math.ceil(BURST / (BURST_SECONDS * 10)));
		for (let i = 0; i < BURST; i += perTick) {
			const emits: Array<Promise<unknown>> = [];
			for (let j = i; j < Math.min(BURST, i + perTick); j++) {
				emits.push(
					control.post('/webhooks/emit', {
						action: 'MANUAL_ALERT_CREATED',
						metadata: {
							alertId: 300_000 + j,
							personId: 'cust-1001',
							transactionId: null,
							rationale: 'OTHER',
							status: 'NEW',
							marker,
						},
					}),
				);
			}
			await Promise.all(emits);
			const due = started + ((i + perTick) / BURST) * BURST_SECONDS * 1000;
			if (due > Date.now()) await sleep(due - Date.now());
		}
		const sentIn = (Date.now() - started) / 1000;
		// Every event accepted by n8n (retries of the sandbox included), then exactly one execution per event.
		const log = await until(
			`all ${BURST} events accepted`,
			async () => {
				await control.post('/webhooks/flush');
				const d = await deliveries(wf.url);
				const accepted = new Set(d.filter((x) => x.accepted).map((x) => x.eventId));
				return accepted.size >= BURST ? d : undefined;
			},
			15 * 60_000,
		);
		const acceptedIn = (Date.now() - started) / 1000;
		const out = await settled(wf.id, BURST, 3000);
		const ids = out.map((o) => o.metadata.alertId as number);
		report('webhooks-burst', {
			deliveries: BURST,
			sentInSeconds: Math.round(sentIn * 10) / 10,
			allAcceptedAfterSeconds: Math.round(acceptedIn * 10) / 10,
			attempts: log.length,
			attemptStatus: tally(
				log.map((d) => d.status ?? `no answer (${(d as unknown as Json).error ?? '?'})`),
			),
			executions: out.length,
			distinctEvents: new Set(ids).size,
		});
		expect(sentIn).toBeLessThan(BURST_SECONDS + 2);
		expect(out).toHaveLength(BURST);
		expect(new Set(ids).size).toBe(BURST);
		expect([...ids].sort((a, b) => a - b)).toEqual(
			Array.from({ length: BURST }, (_, j) => 300_000 + j),
		);
		expect(out.every((o) => o.metadata.marker === marker)).toBe(true);
		// Accepted exactly once per event: no attempt after the first 2xx of an event.
		expect(log.filter((d) => d.accepted)).toHaveLength(BURST);
	},
	30 * 60_000,
);

test(
	'hostile bodies with HMAC verification on: deeply nested, __proto__ keys, oversized, form-encoded, XML, gzip: no crash, nothing runs unverified, each gets a clear answer',
	async () => {
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, credential);
		const now = () => new Date().toISOString();
		const DEPTH = 100_000;
		const deep = `{"action":"MANUAL_ALERT_CREATED","createdTime":"${now()}","metadata":{"alertId":400001,"deep":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}}`;
		const proto = `{"__proto__":{"polluted":"yes"},"action":"MANUAL_ALERT_CREATED","createdTime":"${now()}","metadata":{"alertId":400002,"constructor":{"prototype":{"polluted":"yes"}}}}`;
		const form = `action=MANUAL_ALERT_CREATED&createdTime=${encodeURIComponent(now())}&metadata=x`;
		const xml = `<?xml version="1.0"?><event><action>MANUAL_ALERT_CREATED</action><createdTime>${now()}</createdTime></event>`;
		const json = `{"action":"MANUAL_ALERT_CREATED","createdTime":"${now()}","metadata":{"alertId":400005}}`;
		const gzip = zlib.gzipSync(Buffer.from(json));
		const big = `{"action":"MANUAL_ALERT_CREATED","createdTime":"${now()}","metadata":{"pad":"${'x'.repeat(17 * 1024 * 1024)}"}}`;
		const cases: Array<{ kind: string; body: string | Buffer; headers: Json }> = [
			{ kind: 'deep unsigned', body: deep, headers: {} },
			{ kind: 'deep signed', body: deep, headers: { [HEADER]: sign(deep) } },
			{ kind: '__proto__ unsigned', body: proto, headers: {} },
			{ kind: '__proto__ signed', body: proto, headers: { [HEADER]: sign(proto) } },
			{
				kind: 'form unsigned',
				body: form,
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
			},
			{ kind: 'XML unsigned', body: xml, headers: { 'content-type': 'application/xml' } },
			{
				kind: 'XML signed',
				body: xml,
				headers: { 'content-type': 'application/xml', [HEADER]: sign(xml) },
			},
			{ kind: 'gzip unsigned', body: gzip, headers: { 'content-encoding': 'gzip' } },
			{
				kind: 'gzip signed (compressed bytes)',
				body: gzip,
				headers: {
					'content-encoding': 'gzip',
					[HEADER]: createHmac('sha256', SECRET).update(gzip).digest('hex'),
				},
			},
			{
				kind: 'gzip signed (JSON inside)',
				body: gzip,
				headers: { 'content-encoding': 'gzip', [HEADER]: sign(json) },
			},
			{ kind: 'over 16 MiB unsigned', body: big, headers: {} },
		];
		const answers: Json = {};
		for (const c of cases) {
			const r = await post(wf.url, c.body as string, c.headers);
			answers[c.kind] =
				`${r.status} ${typeof r.data === 'object' ? (r.data?.message ?? JSON.stringify(r.data)) : String(r.data).slice(0, 80)}`.trim();
		}
		report('webhooks-hostile-bodies', { answers });
		expect(answers).toEqual(EXPECTED_HOSTILE);
		// n8n is still up and a normal delivery still runs.
		const normal = `{"action":"MANUAL_ALERT_CREATED","createdTime":"${now()}","metadata":{"alertId":400099}}`;
		expect((await post(wf.url, normal, { [HEADER]: sign(normal) })).status).toBe(200);
		const out = await settled(wf.id, EXPECTED_HOSTILE_RUNS.length, 3000);
		report('webhooks-hostile-bodies-runs', {
			executions: out.length,
			alertIds: out.map((o) => o.metadata?.alertId),
		});
		expect(out.map((o) => o.metadata?.alertId).sort((a, b) => a - b)).toEqual(
			EXPECTED_HOSTILE_RUNS,
		);
		// A __proto__ key is data, never a prototype: no later item inherits "polluted".
		const last = out.find((o) => o.metadata?.alertId === 400099);
		expect(last?.polluted).toBeUndefined();
		expect(last?.metadata?.polluted).toBeUndefined();
	},
	10 * 60_000,
);
