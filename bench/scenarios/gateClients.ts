import { randomUUID } from 'node:crypto';
import * as http from 'node:http';

import { inWorkerAnswer, percentile, rawPost, type BenchEnv } from '../lib';
import type { Gate } from './gateWorkflows';

/**
 * The clients of the payment gate scenario (`gate.ts`): payments posted to an n8n gate's webhook, closed loop, and
 * the raw keep-alive client on its own thread making the Gate's requests without n8n.
 */

type Json = Record<string, any>;

/** The amount the sandbox's monitoring check raises an alert for. */
export const ALERT_AMOUNT = '25000.00';
let counter = 0;
/** A day apart per payment, so no velocity scenario fires. */
const timestampOf = (n: number) => new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString();
/** A payment of the seeded person, each a new ID: small (clear), or `amount` (25,000.00 raises the sandbox's alert). */
export function payment(amount = '12.00'): string {
	counter++;
	return JSON.stringify({
		id: `bench-gate-${randomUUID().slice(0, 8)}-${counter}`,
		personId: 'cust-1001',
		amount,
		timestamp: timestampOf(counter),
	});
}

async function post(
	agent: http.Agent,
	url: string,
	body: string,
): Promise<{ status: number; json: Json }> {
	// a payment with no answer within a minute counts as a wrong answer instead of holding the run
	const { status, text } = await rawPost(agent, url, body, { timeoutMs: 60_000 });
	try {
		return { status, json: JSON.parse(text) as Json };
	} catch {
		return { status, json: {} };
	}
}

/** CPU seconds per second `cpu` advances while nothing is sent (over `ms`). */
export async function idleCpu(cpu: () => number, ms = 5000): Promise<number> {
	const before = cpu();
	await new Promise((r) => setTimeout(r, ms));
	return (cpu() - before) / (ms / 1000);
}

/** Waits until each URL answers 200 to a payment: registered and warm (token stored, code loaded). */
export async function warm(urls: string[]): Promise<void> {
	for (const url of urls) {
		for (let i = 0; i < 150; i++) {
			const answer = await post(new http.Agent(), url, payment());
			if (answer.status === 200) break;
			await new Promise((r) => setTimeout(r, 200));
		}
	}
}

/** One clean payment through a gate after `warm`: a gate that does not answer clear fails the scenario at once. */
export async function probe(name: string, url: string, clear: Gate['clear']): Promise<void> {
	const answer = await post(new http.Agent(), url, payment());
	if (answer.status !== 200 || !clear(answer.json))
		throw new Error(
			`gate ${name} answered ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`,
		);
}

export interface Cell {
	p50: number;
	p99: number;
	perS: number;
	/** n8n's CPU (its process tree) per payment, ms; 0 for the raw clients. */
	cpuMs: number;
	wrong: number;
}

function summary(latencies: number[], count: number, seconds: number) {
	return {
		p50: percentile(latencies, 50),
		p99: percentile(latencies, 99),
		perS: +(count / seconds).toFixed(1),
	};
}

/**
 * `count` payments, `concurrency` at a time (closed loop) through one n8n gate (over `urls` in turn); every answer
 * must be clear. `cpu` reads the CPU seconds n8n has used so far; `idleCpuPerS` is what n8n uses idle (timers,
 * its expression isolate pool), taken off so `cpuMs` is the work per payment.
 */
export async function drive(
	cpu: () => number,
	urls: string[],
	clear: Gate['clear'],
	count: number,
	concurrency: number,
	idleCpuPerS = 0,
	body: () => string = payment,
): Promise<Cell> {
	const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
	const latencies: number[] = [];
	let wrong = 0;
	let next = 0;
	const cpuBefore = cpu();
	const started = Date.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) {
				next++;
				const t = Date.now();
				const answer = await post(agent, urls[next % urls.length], body());
				latencies.push(Date.now() - t);
				if (answer.status !== 200 || !clear(answer.json)) wrong++;
			}
		}),
	);
	const seconds = (Date.now() - started) / 1000;
	const cpuMs = ((cpu() - cpuBefore - idleCpuPerS * seconds) * 1000) / count;
	agent.destroy();
	return { ...summary(latencies, count, seconds), cpuMs: Math.round(cpuMs), wrong };
}

/** How a raw client sends a payment's requests. */
type RawMode = 'inRow' | 'sideBySide' | 'blocked';

/**
 * The Gate's requests from a keep-alive client on its own thread (the sandbox answers in this process): the store,
 * the monitoring check, the screening check, the person read and the payment's open-alerts lookup one after the other
 * (`inRow`), or in the Gate's order: the store, then the checks and the person read side by side, then the lookup
 * (`sideBySide`). `blocked`: a payment a check raises an alert for, as the Gate sends it (no lookup). Every payment
 * must be stored; a clean one's checks must find nothing and no alert of it be open, a blocked one's checks must
 * find something.
 */
export async function driveRaw(
	env: BenchEnv,
	count: number,
	concurrency: number,
	mode: RawMode,
	token: string,
): Promise<Cell> {
	const first = counter + 1;
	counter += count;
	const answer = await inWorkerAnswer<{ ms: number; latencies: number[]; wrong: number }>(
		`
const agent = new http.Agent({ keepAlive: true, maxSockets: d.concurrency * 3 });
const api = axios.create({ baseURL: d.base, httpAgent: agent, headers: { Authorization: 'Bearer ' + d.token } });
const latencies = [];
let wrong = 0;
let next = 0;
const started = Date.now();
async function one(n) {
	const id = d.prefix + n;
	const t = Date.now();
	const stored = await api.post('/api/v1/persons/cust-1001/transactions', {
		id,
		attributes: { amount: d.amount, type: 'payment', direction: 'O', timestamp: new Date(Date.UTC(2020, 0, 1) + n * 86400000).toISOString() },
	});
	const requests = [
		() => api.post('/api/v1/transactions/' + id + '/monitoring-checks'),
		() => api.post('/api/v1/transactions/' + id + '/screening-checks'),
		() => api.get('/api/v1/persons/cust-1001'),
	];
	const answers = [];
	if (d.mode === 'inRow') for (const request of requests) answers.push(await request());
	else answers.push(...(await Promise.all(requests.map((request) => request()))));
	const [m, s] = answers;
	const found = m.data.results.length > 0 || s.data.matches.length > 0;
	const open = d.mode === 'blocked' ? undefined : (await api.get('/api/v1/transactions/' + id + '/unresolved-alerts')).data.hasUnresolvedAlerts;
	latencies.push(Date.now() - t);
	if (stored.data.id !== id || (d.mode === 'blocked' ? !found : found || open !== false)) wrong++;
}
Promise.all(Array.from({ length: d.concurrency }, async () => { while (next < d.count) await one(d.first + next++); }))
	.then(() => parentPort.postMessage({ ms: Date.now() - started, latencies, wrong }))
	.catch((e) => parentPort.postMessage({ error: String(e && e.message) }));
`,
		{
			base: env.sb.baseUrl,
			token,
			prefix: `bench-gate-raw-${randomUUID().slice(0, 8)}-`,
			first,
			count,
			concurrency,
			mode,
			amount: mode === 'blocked' ? ALERT_AMOUNT : '12.00',
		},
	);
	return { ...summary(answer.latencies, count, answer.ms / 1000), cpuMs: 0, wrong: answer.wrong };
}
