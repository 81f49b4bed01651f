import { createHash, createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import {
	DEFAULT_DEDUP_WINDOW_MINUTES,
	deliveryKey,
	MAX_REMEMBERED_DELIVERIES,
	PENDING_MS,
	MAX_KEYS_PER_TRIGGER,
	RecentDeliveries,
	admitDelivery,
	firstRuns,
	KEY_FIELD,
	triggerIdOf,
} from '../../nodes/AmlTrigger/dedup';
import { EVENT_ACTIONS } from '../../nodes/AmlTrigger/events';
import {
	eventTimeMs,
	MAX_CLOCK_SKEW_MS,
	MAX_DELIVERY_AGE_MS,
	staleness,
} from '../../nodes/AmlTrigger/freshness';
import {
	entityTypeOf,
	eventFields,
	rejection,
	splitList,
	type EventFilter,
} from '../../nodes/AmlTrigger/filters';
import {
	methodHints,
	REFUSAL_LOG_INTERVAL_MS,
	RefusalLog,
	refusalLogLine,
	refusalOf,
	refusalText,
	verificationFailure,
} from '../../nodes/AmlTrigger/refusal';
import { payloadOf, redactedHeaders } from '../../nodes/AmlTrigger/request';
import { SAMPLE_PAYLOADS, sampleItem } from '../fixtures/triggerSamples';
import { alertTypeOf } from '../../nodes/AmlTrigger/events';
import {
	hmacHex,
	missingSetting,
	safeEqual,
	secretHeaderNames,
	signatureBytes,
	verifyDelivery,
	type Headers,
	type VerificationSettings,
} from '../../nodes/AmlTrigger/verify';

type Json = Record<string, unknown>;

const triggerId = (workflowId: string, name: string) =>
	triggerIdOf({ getWorkflow: () => ({ id: workflowId }), getNode: () => ({ name }) });

const body = Buffer.from(
	'{"action":"ALERT_CREATED", "createdTime":"2026-11-22T10:15:30.123456Z","metadata":{"alertId":1,"name":"Zoë"}}',
);

describe('AML Trigger verification', () => {
	const hmac: VerificationSettings = {
		method: 'hmac',
		hmacHeaderName: 'X-AML-Signature',
		hmacSecret: 's3cret',
	};
	const sig = createHmac('sha256', 's3cret').update(body).digest('hex');

	test('HMAC of the raw bytes passes, in any header case, with or without sha256=, any hex case', () => {
		expect(verifyDelivery(hmac, { 'x-aml-signature': sig }, body)).toBe(true);
		expect(verifyDelivery(hmac, { 'X-AML-Signature': `sha256=${sig}` }, body)).toBe(true);
		expect(verifyDelivery(hmac, { 'x-aml-signature': `SHA256=${sig.toUpperCase()}` }, body)).toBe(
			true,
		);
		expect(verifyDelivery(hmac, { 'x-aml-signature': ` ${sig} ` }, body)).toBe(true);
	});

	test('HMAC fails for re-serialised JSON, wrong secret, truncated or missing signature, missing raw body', () => {
		const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
		expect(reserialised.equals(body)).toBe(false);
		expect(verifyDelivery(hmac, { 'x-aml-signature': sig }, reserialised)).toBe(false);
		expect(verifyDelivery(hmac, { 'x-aml-signature': hmacHex('other', body) }, body)).toBe(false);
		expect(verifyDelivery(hmac, { 'x-aml-signature': sig.slice(0, 63) }, body)).toBe(false);
		expect(verifyDelivery(hmac, { 'x-aml-signature': `${sig}00` }, body)).toBe(false);
		expect(verifyDelivery(hmac, {}, body)).toBe(false);
		expect(verifyDelivery(hmac, { 'x-aml-signature': sig }, undefined)).toBe(false);
		expect(
			verifyDelivery({ ...hmac, hmacHeaderName: 'X-Other' }, { 'x-aml-signature': sig }, body),
		).toBe(false);
	});

	test('an empty signing secret never verifies (even with a matching HMAC of the empty key)', () => {
		const empty = createHmac('sha256', '').update(body).digest('hex');
		expect(
			verifyDelivery({ method: 'hmac', hmacSecret: '' }, { 'x-aml-signature': empty }, body),
		).toBe(false);
	});

	test('HMAC header defaults to X-AML-Signature', () => {
		expect(
			verifyDelivery({ method: 'hmac', hmacSecret: 's3cret' }, { 'x-aml-signature': sig }, body),
		).toBe(true);
	});

	test('secret header: exact value, header name any case; empty secret never verifies', () => {
		const s: VerificationSettings = {
			method: 'header',
			headerName: 'X-Hook-Token',
			headerSecret: 'tok-1',
		};
		expect(verifyDelivery(s, { 'x-hook-token': 'tok-1' }, body)).toBe(true);
		expect(verifyDelivery(s, { 'x-hook-token': 'tok-2' }, body)).toBe(false);
		expect(verifyDelivery(s, { 'x-hook-token': 'tok-1 ' }, body)).toBe(false);
		expect(verifyDelivery(s, { 'x-hook-token': ['tok-1', 'x'] }, body)).toBe(true);
		expect(verifyDelivery(s, {}, body)).toBe(false);
		expect(verifyDelivery({ ...s, headerSecret: '' }, { 'x-hook-token': '' }, body)).toBe(false);
	});

	test('basic auth: user and password both right; passwords may contain ":"', () => {
		const s: VerificationSettings = { method: 'basicAuth', user: 'aml', password: 'p:w' };
		const basic = (v: string) => ({ authorization: `Basic ${Buffer.from(v).toString('base64')}` });
		expect(verifyDelivery(s, basic('aml:p:w'), body)).toBe(true);
		expect(
			verifyDelivery(
				s,
				{ authorization: `basic ${Buffer.from('aml:p:w').toString('base64')}` },
				body,
			),
		).toBe(true);
		expect(verifyDelivery(s, basic('aml:p:x'), body)).toBe(false);
		expect(verifyDelivery(s, basic('other:p:w'), body)).toBe(false);
		expect(verifyDelivery(s, basic('amlp:w'), body)).toBe(false);
		expect(verifyDelivery(s, { authorization: 'Bearer x' }, body)).toBe(false);
		expect(verifyDelivery(s, {}, body)).toBe(false);
		expect(verifyDelivery({ method: 'basicAuth', user: '', password: '' }, basic(':'), body)).toBe(
			false,
		);
	});

	test('every incomplete setting fails closed: an empty or missing password, user, header value or signing secret lets nothing in', () => {
		const basic = (v: string) => ({ authorization: `Basic ${Buffer.from(v).toString('base64')}` });
		expect(
			verifyDelivery({ method: 'basicAuth', user: 'aml', password: '' }, basic('aml:'), body),
		).toBe(false);
		expect(verifyDelivery({ method: 'basicAuth', user: 'aml' }, basic('aml:'), body)).toBe(false);
		expect(
			verifyDelivery({ method: 'basicAuth', user: '', password: 'pw' }, basic(':pw'), body),
		).toBe(false);
		expect(verifyDelivery({ method: 'header', headerName: 'X-H' }, { 'x-h': '' }, body)).toBe(
			false,
		);
		expect(verifyDelivery({ method: 'hmac' }, { 'x-aml-signature': hmacHex('', body) }, body)).toBe(
			false,
		);
	});

	test('odd secrets fail closed without throwing: spaces only, the text "undefined" or "null", numbers, booleans, lists, objects; the message never names the value', () => {
		const basic = (v: string) => ({ authorization: `Basic ${Buffer.from(v).toString('base64')}` });
		const odd = (s: Json) => s as unknown as VerificationSettings;
		const refused: Array<[VerificationSettings, Headers]> = [
			[odd({ method: 'basicAuth', user: ' ', password: ' ' }), basic(' : ')],
			[odd({ method: 'basicAuth', user: 'aml', password: 'undefined' }), basic('aml:undefined')],
			[odd({ method: 'basicAuth', user: 'aml', password: 5 }), basic('aml:5')],
			[odd({ method: 'hmac', hmacSecret: '  ' }), { 'x-aml-signature': hmacHex('  ', body) }],
			[odd({ method: 'hmac', hmacSecret: true }), { 'x-aml-signature': hmacHex('true', body) }],
			[odd({ method: 'hmac', hmacSecret: 's', hmacHeaderName: 7 }), { '7': hmacHex('s', body) }],
			[odd({ method: 'header', headerSecret: 'null' }), { 'x-aml-secret': 'null' }],
			[odd({ method: 'header', headerSecret: [1] }), { 'x-aml-secret': '1' }],
			[odd({ method: 'header', headerSecret: { a: 1 } }), { 'x-aml-secret': '[object Object]' }],
			[odd({ method: 5 }), {}],
		];
		for (const [settings, headers] of refused) {
			expect(() => verifyDelivery(settings, headers, body)).not.toThrow();
			expect(verifyDelivery(settings, headers, body)).toBe(false);
			expect(missingSetting(settings)).toEqual(expect.any(String));
		}
		expect(missingSetting(odd({ method: 'basicAuth', user: 'aml', password: 5 }))).toBe(
			'Password is not text (a number): check its expression',
		);
		expect(missingSetting(odd({ method: 'header', headerSecret: 'undefined' }))).toMatch(
			/Header Value is the text "undefined"/,
		);
		// Real secrets with spaces around them are compared as they are.
		expect(
			verifyDelivery(
				{ method: 'basicAuth', user: 'aml', password: ' pw ' },
				basic('aml: pw '),
				body,
			),
		).toBe(true);
	});

	test('unknown method fails closed', () => {
		expect(verifyDelivery({ method: 'nope' } as unknown as VerificationSettings, {}, body)).toBe(
			false,
		);
	});

	test('safeEqual compares content and length', () => {
		expect(safeEqual('abc', 'abc')).toBe(true);
		expect(safeEqual('abc', 'abd')).toBe(false);
		expect(safeEqual('abc', 'abcd')).toBe(false);
		expect(safeEqual('', '')).toBe(true);
	});

	test('signatureBytes takes only 64 hex digits', () => {
		expect(signatureBytes('sha256=' + 'a'.repeat(64))?.length).toBe(32);
		expect(signatureBytes('g'.repeat(64))).toBeUndefined();
		expect(signatureBytes('')).toBeUndefined();
	});

	test('secret headers per method', () => {
		const always = ['authorization', 'proxy-authorization', 'cookie'];
		expect(secretHeaderNames(undefined)).toEqual(always);
		expect(secretHeaderNames({ method: 'header', headerName: 'X-Hook-Token' })).toEqual([
			...always,
			'x-hook-token',
		]);
		expect(secretHeaderNames({ method: 'hmac' })).toEqual([...always, 'x-aml-signature']);
		expect(
			redactedHeaders(
				{ Cookie: 'sid=1', 'Proxy-Authorization': 'Basic eDp5', host: 'n8n' },
				secretHeaderNames(undefined),
			),
		).toEqual({
			Cookie: '[redacted]',
			'Proxy-Authorization': '[redacted]',
			host: 'n8n',
		});
	});

	test('credential completeness', () => {
		expect(missingSetting({ method: 'hmac', hmacSecret: 'x' })).toBeUndefined();
		expect(missingSetting({ method: 'hmac' })).toMatch(/Signing Secret/);
		expect(missingSetting({ method: 'header', headerName: 'X', headerSecret: '' })).toMatch(
			/Header Value/,
		);
		expect(missingSetting({ method: 'basicAuth', user: 'u' })).toMatch(/Password/);
		expect(missingSetting({})).toMatch(/method/);
	});
});

describe('AML Trigger deduplication', () => {
	test('key is the SHA-256 of the raw bytes', () => {
		expect(deliveryKey(body)).toBe(createHash('sha256').update(body).digest('base64url'));
		expect(deliveryKey(Buffer.from(body.toString().replace(', ', ',')))).not.toBe(
			deliveryKey(body),
		);
	});

	test('in-process state: pending until recorded, pending expires, recorded lasts the window', () => {
		const r = new RecentDeliveries();
		const t0 = 1_000_000;
		const t = triggerId('wf1', 'AML Trigger');
		expect(r.state(t, 'k', t0, 60)).toBeUndefined();
		r.markPending(t, 'k', t0);
		expect(r.state(t, 'k', t0 + 1000, 60)).toBe('pending');
		expect(r.state(triggerId('wf2', 'AML Trigger'), 'k', t0 + 1000, 60)).toBeUndefined();
		expect(r.state(t, 'k', t0 + PENDING_MS + 1, 60)).toBeUndefined();
		r.markPending(t, 'k', t0);
		r.markRecorded(t, 'k', t0 + 10);
		expect(r.state(t, 'k', t0 + 59 * 60_000, 60)).toBe('recorded');
		expect(r.state(t, 'k', t0 + 61 * 60_000, 60)).toBeUndefined();
	});

	test("webhook()'s decision: start (marked pending), retry later within PENDING_MS, duplicate once recorded; never with the window 0 or in test mode", () => {
		const r = new RecentDeliveries();
		const t = triggerId('wf1', 'AML Trigger');
		const t0 = 1_000_000;
		expect(admitDelivery(t, 'k', 60, false, t0, r)).toBe('start');
		expect(admitDelivery(t, 'k', 60, false, t0 + 1000, r)).toBe('retry later');
		expect(admitDelivery(t, 'k', 60, false, t0 + PENDING_MS + 1, r)).toBe('start');
		r.markRecorded(t, 'k', t0 + PENDING_MS + 2);
		expect(admitDelivery(t, 'k', 60, false, t0 + PENDING_MS + 3, r)).toBe('duplicate');
		expect(admitDelivery(t, 'k', 0, false, t0 + PENDING_MS + 3, r)).toBe('start');
		expect(admitDelivery(t, 'k', 60, true, t0 + PENDING_MS + 3, r)).toBe('start');
		expect(admitDelivery(t, undefined, 60, false, t0, r)).toBe('start');
		// after the window the in-process map has forgotten it: an execution starts (n8n's store decides in execute())
		expect(admitDelivery(t, 'k', 60, false, t0 + PENDING_MS + 61 * 60_000, r)).toBe('start');
	});

	test("execute()'s decision: a key recorded in n8n's store or already run here outputs nothing; window 0 and test mode pass all", async () => {
		const stored = new Set<string>(['old']);
		const asked: string[][] = [];
		const ctx = (mode: string) =>
			({
				getMode: () => mode,
				helpers: {
					checkProcessedAndRecord: async (keys: string[]) => {
						asked.push(keys);
						const processed = keys.filter((k) => stored.has(k));
						for (const k of keys) stored.add(k);
						return { new: keys.filter((k) => !processed.includes(k)), processed };
					},
				},
			}) as never;
		const item = (key?: string) => ({ json: key ? { [KEY_FIELD]: key } : {} });
		const r = new RecentDeliveries();
		const t = triggerId('wf1', 'AML Trigger');
		const run = async (keys: Array<string | undefined>, mode = 'webhook', window = 60) =>
			(await firstRuns(ctx(mode), t, keys.map(item), window, 1_000_000, r)).map(
				(i) => i.json[KEY_FIELD] ?? 'none',
			);
		expect(await run(['old', 'new', undefined])).toEqual(['new', 'none']);
		expect(asked).toEqual([['old', 'new']]);
		// the same key again: recorded here already (stopped even if the store had lost it)
		stored.clear();
		expect(await run(['new'])).toEqual([]);
		expect(await run(['old'], 'webhook', 0)).toEqual(['old']);
		expect(await run(['old'], 'manual')).toEqual(['old']);
		expect(asked).toHaveLength(2);
	});

	test('in-process map is bounded per trigger', () => {
		const r = new RecentDeliveries(3);
		const t = triggerId('wf1', 'AML Trigger');
		for (let i = 0; i < 5; i++) r.markRecorded(t, `k${i}`, 1000 + i);
		expect(r.state(t, 'k0', 2000, 60)).toBeUndefined();
		expect(r.state(t, 'k4', 2000, 60)).toBe('recorded');
		expect(MAX_KEYS_PER_TRIGGER).toBe(10_000);
	});

	test("a flood of deliveries to one trigger evicts none of another trigger's pending keys", () => {
		const r = new RecentDeliveries(1000);
		const quiet = triggerId('wf1', 'AML Trigger');
		const busy = triggerId('wf2', 'AML Trigger');
		const t0 = 1_000_000;
		r.state(quiet, 'pending-copy', t0, 1440);
		r.markPending(quiet, 'pending-copy', t0);
		for (let i = 0; i < 50_000; i++) {
			r.state(busy, `k${i}`, t0 + i, 1440);
			r.markPending(busy, `k${i}`, t0 + i);
		}
		expect(r.state(quiet, 'pending-copy', t0 + 50_000, 1440)).toBe('pending');
		expect(r.size()).toEqual({ triggers: 2, keys: 1001 });
	});

	test("a trigger's window prunes its own keys only; parts of removed triggers are dropped", () => {
		const r = new RecentDeliveries();
		const long = triggerId('wf1', 'AML Trigger');
		const short = triggerId('wf2', 'AML Trigger');
		const t0 = 1_000_000;
		r.state(long, 'a', t0, 1440);
		r.markRecorded(long, 'a', t0);
		r.state(short, 'b', t0, 1);
		r.markRecorded(short, 'b', t0);
		const gone = triggerId('wf3', 'AML Trigger');
		r.state(gone, 'x', t0, 1);
		r.markRecorded(gone, 'x', t0);
		// Two hours later, a delivery to the 1-minute trigger: its own record expired, the 1-day one stays.
		expect(r.state(short, 'c', t0 + 2 * 3_600_000, 1)).toBeUndefined();
		expect(r.size()).toEqual({ triggers: 2, keys: 1 });
		expect(r.state(long, 'a', t0 + 2 * 3_600_000, 1440)).toBe('recorded');
	});

	test('defaults', () => {
		expect(DEFAULT_DEDUP_WINDOW_MINUTES).toBe(1440);
		expect(MAX_REMEMBERED_DELIVERIES).toBe(10_000);
	});
});

describe('AML Trigger event selection and filters', () => {
	const all: EventFilter = { events: ['*'], decisionRules: [] };

	test('selected events, typed decision rules (any case), all', () => {
		expect(rejection(all, 'PERSON_CLEARED', {})).toBeUndefined();
		const some: EventFilter = { events: ['ALERT_CREATED'], decisionRules: ['person_cleared'] };
		expect(rejection(some, 'ALERT_CREATED', {})).toBeUndefined();
		expect(rejection(some, 'PERSON_CLEARED', {})).toBeUndefined();
		expect(rejection(some, 'TRANSACTION_CLEARED', {})).toMatch(/not selected/);
		expect(rejection({ events: [], decisionRules: [] }, 'ALERT_CREATED', {})).toMatch(
			/not selected/,
		);
	});

	test('entity type: explicit, inferred from a transaction id, events about neither pass', () => {
		const f: EventFilter = { ...all, entityType: 'TRANSACTION' };
		expect(
			rejection(f, 'ALERT_CREATED', { entityType: 'TRANSACTION', personId: 'p' }),
		).toBeUndefined();
		expect(rejection(f, 'ALERT_CREATED', { entityType: 'PERSON', personId: 'p' })).toMatch(
			/entity type/,
		);
		expect(
			rejection(f, 'ALERT_STATUS_UPDATED', { personId: 'p', transactionId: 't' }),
		).toBeUndefined();
		expect(rejection(f, 'ALERT_STATUS_UPDATED', { personId: 'p', transactionId: null })).toMatch(
			/entity type/,
		);
		expect(
			rejection(f, 'CUSTOM_LIST_RECORD_CREATED', { customListId: 'x', recordId: 'r' }),
		).toBeUndefined();
		expect(entityTypeOf({ entityType: 'person' })).toBe('PERSON');
	});

	test('scenario type in any case; events without one pass', () => {
		const f: EventFilter = { ...all, scenarioType: 'PERIODIC' };
		expect(rejection(f, 'ALERT_CREATED', { scenarioType: 'periodic' })).toBeUndefined();
		expect(rejection(f, 'ALERT_CREATED', { scenarioType: 'OFFLINE' })).toMatch(/scenario type/);
		expect(rejection(f, 'MANUAL_ALERT_CREATED', {})).toBeUndefined();
	});

	test('risk levels apply to FINAL_RISK_UPDATED only', () => {
		const f: EventFilter = { ...all, riskLevels: splitList('high, Unacceptable') };
		expect(rejection(f, 'FINAL_RISK_UPDATED', { finalRisk: 'HIGH' })).toBeUndefined();
		expect(rejection(f, 'FINAL_RISK_UPDATED', { finalRisk: 'unacceptable' })).toBeUndefined();
		expect(rejection(f, 'FINAL_RISK_UPDATED', { finalRisk: 'LOW' })).toMatch(/risk level LOW/);
		// an event without a risk level passes (marked: unappliedFilters), never dropped without a trace
		expect(rejection(f, 'FINAL_RISK_UPDATED', {})).toBeUndefined();
		expect(rejection(f, 'ALERT_CREATED', { finalRisk: 'LOW' })).toBeUndefined();
	});

	test('splitList', () => {
		expect(splitList(' A, B\nC,, ')).toEqual(['A', 'B', 'C']);
		expect(splitList(undefined)).toEqual([]);
		expect(splitList(['x ', ''])).toEqual(['x']);
	});
});

describe('AML Trigger payload, headers and samples', () => {
	test('payload from the raw bytes as JSON only: form data, arrays, text and missing bytes are not events', () => {
		expect(payloadOf(body)?.action).toBe('ALERT_CREATED');
		expect(payloadOf(Buffer.from('{"action":"A","metadata":{}}'))).toEqual({
			action: 'A',
			metadata: {},
		});
		expect(payloadOf(undefined)).toBeUndefined();
		expect(payloadOf(Buffer.from('not json'))).toBeUndefined();
		expect(payloadOf(Buffer.from('action=A&createdTime=2026-11-27T10%3A00%3A00Z'))).toBeUndefined();
		expect(payloadOf(Buffer.from('{"action":""}'))).toBeUndefined();
		expect(payloadOf(Buffer.from('[{"action":"A"}]'))).toBeUndefined();
	});

	test('secret headers are redacted, others kept', () => {
		expect(
			redactedHeaders(
				{
					authorization: 'Basic x',
					'x-aml-signature': 'abc',
					'content-type': 'application/json',
					gone: undefined,
				},
				['authorization', 'x-aml-signature'],
			),
		).toEqual({
			authorization: '[redacted]',
			'x-aml-signature': '[redacted]',
			'content-type': 'application/json',
		});
	});

	test('a sample for every action of the trigger table, and for the example decision rules', () => {
		for (const { value } of EVENT_ACTIONS) {
			expect(SAMPLE_PAYLOADS[value]).toMatchObject({ action: value, metadata: expect.any(Object) });
			expect(Number.isNaN(Date.parse(String(SAMPLE_PAYLOADS[value].createdTime)))).toBe(false);
		}
		expect(Object.keys(SAMPLE_PAYLOADS).sort()).toEqual(
			[...EVENT_ACTIONS.map((e) => e.value), 'PERSON_CLEARED', 'TRANSACTION_CLEARED'].sort(),
		);
		expect(Object.keys(SAMPLE_PAYLOADS.ALERT_CREATED.metadata as object).sort()).toEqual(
			['alertId', 'entityType', 'hits', 'personId', 'scenarioType', 'transactionId'].sort(),
		);
	});

	test('the README shows every sample as it is, one JSON block each, to paste as mock data', () => {
		const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
		for (const sample of Object.values(SAMPLE_PAYLOADS))
			expect(readme).toContain(`\n\`\`\`json\n${JSON.stringify(sample)}\n\`\`\`\n`);
	});

	test('no sample names an ID that can exist: alert IDs 0, person, transaction and record IDs the ID rule refuses', () => {
		for (const sample of Object.values(SAMPLE_PAYLOADS)) {
			const metadata = sample.metadata as IDataObject;
			for (const key of ['alertId']) if (key in metadata) expect(metadata[key]).toBe(0);
			for (const id of (metadata.alertIds ?? []) as number[]) expect(id).toBe(0);
			for (const key of ['personId', 'transactionId', 'recordId'])
				if (typeof metadata[key] === 'string') expect(metadata[key]).toMatch(/ /);
		}
	});
});

describe('AML Trigger replay window (createdTime)', () => {
	const now = Date.UTC(2026, 10, 26, 12, 0, 0);
	const iso = (ms: number) => new Date(ms).toISOString();

	test('dates with a zone are read to the millisecond; without a zone or malformed they are not dates', () => {
		expect(eventTimeMs('2026-11-22T10:00:00.123456Z')).toBe(Date.UTC(2026, 10, 22, 10, 0, 0, 123));
		expect(eventTimeMs('2026-11-22T12:00:00+02:00')).toBe(Date.UTC(2026, 10, 22, 10, 0, 0));
		expect(eventTimeMs('2026-11-22T12:00:00+0200')).toBe(Date.UTC(2026, 10, 22, 10, 0, 0));
		for (const bad of [
			'2026-11-22T10:00:00',
			'2026-11-22',
			'2026-13-40T10:00:00Z',
			'yesterday',
			1700000000000,
			null,
			undefined,
			`2026-11-22T10:00:00.${'1'.repeat(50)}Z`,
		])
			expect(eventTimeMs(bad)).toBeUndefined();
	});

	test('within 15 days back and 5 minutes ahead a delivery is fresh; beyond either it is refused, saying why', () => {
		expect(MAX_DELIVERY_AGE_MS).toBe(15 * 86_400_000);
		expect(MAX_CLOCK_SKEW_MS).toBe(300_000);
		expect(staleness(iso(now), now)).toBeUndefined();
		expect(staleness(iso(now - 14 * 86_400_000), now)).toBeUndefined();
		expect(staleness(iso(now - MAX_DELIVERY_AGE_MS + 1000), now)).toBeUndefined();
		expect(staleness(iso(now + MAX_CLOCK_SKEW_MS - 1000), now)).toBeUndefined();
		expect(staleness(iso(now - MAX_DELIVERY_AGE_MS - 1000), now)).toMatch(/15 days old.*replayed/);
		expect(staleness(iso(now + 10 * 60_000), now)).toMatch(/10 minutes in the future/);
		expect(staleness(undefined, now)).toMatch(/createdTime" is missing/);
	});
});

describe('AML Trigger refusals: what the editor and the log are told', () => {
	const basic = `Basic ${Buffer.from('aml:pw-value').toString('base64')}`;

	test('the reason names the method and what was missing, never a value', () => {
		const hmac: VerificationSettings = { method: 'hmac', hmacSecret: 's3cret-value' };
		expect(verificationFailure(hmac, {}, body)).toBe(
			'no X-AML-Signature header arrived (HMAC-SHA256 Signature method)',
		);
		expect(verificationFailure(hmac, { 'x-aml-signature': 'abc' }, body)).toMatch(/not a hex HMAC/);
		expect(verificationFailure(hmac, { 'x-aml-signature': hmacHex('other', body) }, body)).toMatch(
			/does not match the body/,
		);
		expect(
			verificationFailure(
				{ method: 'basicAuth', user: 'aml', password: 'pw' },
				{ authorization: 'Bearer t' },
				body,
			),
		).toMatch(/not Basic credentials/);
		expect(verificationFailure({ method: 'header', headerSecret: ' ' }, {}, body)).toMatch(
			/credential is incomplete: Header Value is empty \(spaces only\)/,
		);
	});

	test('hints: which method would check what arrived; header names only, valid names, sorted', () => {
		const headers = {
			authorization: basic,
			'x-hook-signature': 'sha256=ab',
			'X-Api-Key': 'key-value',
			'content-type': 'application/json',
		};
		const refusal = refusalOf(401, 'no X-AML-Signature header arrived', headers);
		expect(refusal.headerNames).toEqual([
			'authorization',
			'content-type',
			'x-api-key',
			'x-hook-signature',
		]);
		expect(refusal.hints.join(' ')).toMatch(/Basic credentials arrived: the Basic Auth method/);
		expect(refusal.hints.join(' ')).toMatch(/signature-like header "x-hook-signature"/);
		expect(refusal.hints.join(' ')).toMatch(/secret-like header "x-api-key"/);
		const text = JSON.stringify(refusalText(refusal));
		for (const value of [basic, 'pw-value', 'sha256=ab', 'key-value'])
			expect(text).not.toContain(value);
		expect(methodHints({ 'content-type': 'application/json' })).toEqual([
			expect.stringMatching(/^No header that could carry a secret or a signature arrived/),
		]);
		expect(methodHints({ authorization: 'Bearer x' })[0]).toMatch(
			/\(Bearer scheme\).*Secret Header/,
		);
	});

	test('the log: at most one line per trigger per minute, the next one counts the refusals in between', () => {
		const log = new RefusalLog();
		expect(log.take('t1', 0)).toEqual({ log: true, unlogged: 0 });
		expect(log.take('t1', 1000).log).toBe(false);
		expect(log.take('t2', 1000)).toEqual({ log: true, unlogged: 0 });
		expect(log.take('t1', 2000).log).toBe(false);
		expect(log.take('t1', REFUSAL_LOG_INTERVAL_MS + 1)).toEqual({ log: true, unlogged: 2 });
		const line = refusalLogLine(
			'AML Trigger',
			'wf1',
			refusalOf(401, 'no X-AML-Signature header arrived', {}),
			2,
		);
		expect(line).toMatch(
			/^AML Trigger "AML Trigger" of workflow wf1 refused a delivery \(401\): no X-AML-Signature header arrived\. .* 2 more deliveries were refused/,
		);
	});
});

describe('AML Trigger sample events pinned in the alert examples', () => {
	const examples = ['03-alert-notification', '06-alert-ticket-jira', '07-alert-review-slack'];
	test.each(examples)(
		'%s: the trigger has pinned data, one sample event per selected event, each one the trigger itself would start with',
		(name) => {
			const workflow = JSON.parse(
				fs.readFileSync(path.join(__dirname, '..', '..', 'examples', `${name}.json`), 'utf8'),
			) as Json & { nodes: Json[]; pinData?: Record<string, Array<{ json: Json }>> };
			const trigger = workflow.nodes.find((n) => n.type === 'n8n-nodes-aml.amlTrigger')!;
			const parameters = trigger.parameters as { events: string[]; options?: Json };
			expect(Object.keys(workflow.pinData ?? {})[0]).toEqual(trigger.name);
			const items = workflow.pinData![trigger.name as string];
			// the trigger's items for the samples: alertType added, marked sample
			expect(items.map((i) => i.json)).toEqual(parameters.events.map((e) => sampleItem(e)));
			expect(items.map((i) => i.json.sample)).toEqual(parameters.events.map(() => true));
			for (const { json } of items) {
				// What the trigger would output for these bytes: read as an event, selected by its filters.
				const { alertType, sample, ...payload } = json;
				expect(alertType).toBe(alertTypeOf(String(json.action)));
				expect(sample).toBe(true);
				expect(payloadOf(Buffer.from(JSON.stringify(payload)))).toEqual(payload);
				expect(
					rejection(
						{ events: parameters.events, decisionRules: [], riskLevels: [] },
						String(json.action),
						json.metadata as IDataObject,
					),
				).toBeUndefined();
				expect(Object.keys(payload).sort()).toEqual(['action', 'createdTime', 'metadata']);
			}
		},
	);
});

describe('AML Trigger item fields', () => {
	test('alertType is read from the action: MONITORING, SCREENING, MANUAL, null for events about no alert', () => {
		expect(alertTypeOf('ALERT_CREATED')).toBe('MONITORING');
		expect(alertTypeOf('alert_status_updated')).toBe('MONITORING');
		expect(alertTypeOf('SCREENING_ALERT_CREATED')).toBe('SCREENING');
		expect(alertTypeOf('SCREENING_ALERT_UPDATED')).toBe('SCREENING');
		expect(alertTypeOf('MANUAL_ALERT_CREATED')).toBe('MANUAL');
		expect(alertTypeOf('FINAL_RISK_UPDATED')).toBeNull();
		expect(alertTypeOf('TRANSACTION_CLEARED')).toBeNull();
	});

	test('a filter whose field the event lacks lets it through, marked; a delivery is never a sample', () => {
		const filter = {
			events: ['*'],
			decisionRules: [],
			riskLevels: ['HIGH'],
			scenarioType: 'OFFLINE',
			entityType: 'TRANSACTION',
		};
		const person = { ...filter, entityType: 'PERSON' };
		expect(
			rejection(person, 'FINAL_RISK_UPDATED', { personId: 'p', riskScore: 3 }),
		).toBeUndefined();
		expect(eventFields(person, 'FINAL_RISK_UPDATED', { personId: 'p', riskScore: 3 })).toEqual({
			alertType: null,
			sample: false,
			unappliedFilters: ['Risk Levels: the event has no risk level (metadata.finalRisk)'],
		});
		expect(rejection(person, 'FINAL_RISK_UPDATED', { personId: 'p', finalRisk: 'LOW' })).toBe(
			'risk level LOW is filtered out',
		);
		expect(
			eventFields(filter, 'ALERT_CREATED', {
				alertId: 1,
				transactionId: 't',
				scenarioType: 'offline',
			}),
		).toEqual({ alertType: 'MONITORING', sample: false });
		expect(
			eventFields(filter, 'ALERT_CREATED', { alertId: 1, transactionId: 't' }).unappliedFilters,
		).toEqual(['Scenario Type: the event has no metadata.scenarioType']);
		expect(eventFields(filter, 'ALERT_CREATED', { alertId: 1 }).unappliedFilters).toEqual([
			'Entity Type: the event names no person or transaction (metadata.entityType)',
			'Scenario Type: the event has no metadata.scenarioType',
		]);
		expect(eventFields(filter, 'CUSTOM_LIST_RECORD_CREATED', { recordId: 'r' })).toEqual({
			alertType: null,
			sample: false,
		});
	});
});
