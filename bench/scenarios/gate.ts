import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as os from 'node:os';

import { webhookNode, type CredentialRef } from '../../test/harness/client';
import {
	genericOAuth2Credential,
	inWorkerAnswer,
	percentile,
	rawToken,
	treeCpu,
	type BenchEnv,
	type Result,
} from '../lib';

/**
 * 7. Payment gate (issues 33 and 35): webhook → gate → answer, with the service's latency 0, 50 and 150 ms per
 *    request (the sandbox's latencyMs on every /api request), 1 and 8 payments at a time (closed loop). Compared in
 *    the same run, each measured `env.runs` times in turn:
 *    - `gate`: the Gate operation (store, then both checks side by side);
 *    - `threeNode`: today's three-node AML gate (Create → Run Monitoring Check → Run Screening Check);
 *    - `http`: the same gate built with n8n's HTTP Request nodes and n8n's generic OAuth2 credential (client
 *      credentials), as a team builds it without this package: store, monitoring check, screening check, an If on
 *      both result lists, a Set node with the decision;
 *    - `httpBare`: the three HTTP Request nodes alone (the node-for-node counterpart of `threeNode`: what the AML
 *      node itself adds to a gate);
 *    - `raw` / `rawSideBySide`: a keep-alive HTTP client on its own thread sending the same three requests one after
 *      the other / the two checks side by side (the bench's baseline: what the requests cost without n8n).
 *    For every n8n gate also n8n's CPU per payment (its process tree, /proc), the figure queue-mode sizing rests on.
 *    Goal: at 150 ms the Gate's p50 approaches store + the slower check (~300 ms plus n8n's own work), not the sum
 *    of three (~450 ms); the node adds no more than 5 % to a gate's p50 (`threeNode` vs `httpBare`).
 */
const LATENCIES = [0, 50, 150];
const CONCURRENCY = [1, 8];
/** The latency of the blocked-payment cell (a block's record is one round trip more than a clean answer). */
const BLOCKED_LATENCY_MS = 150;
const N8N_GATES = ['gate', 'threeNode', 'http', 'httpBare'] as const;
export type GateName = (typeof N8N_GATES)[number];

type Json = Record<string, any>;
export interface Gate {
	nodes: Json[];
	/** n8n's connections; a plain chain after the Webhook when absent. */
	connections?: Json;
	/** Whether an answer says the payment may pass. */
	clear(answer: Json): boolean;
}

const fields = {
	personId: { __rl: true, value: '={{ $json.body.personId }}', mode: 'id' },
	transactionId: '={{ $json.body.id }}',
	attributesMode: 'fields',
	amount: '={{ $json.body.amount }}',
	transactionType: 'payment',
	direction: 'O',
	timestamp: '={{ $json.body.timestamp }}',
	onExisting: 'skip',
};

function node(name: string, x: number, type: string, typeVersion: number, rest: Json): Json {
	return { id: randomUUID(), name, type, typeVersion, position: [x, 0], ...rest };
}

const aml = (env: BenchEnv, name: string, x: number, parameters: Json) =>
	node(name, x, 'n8n-nodes-aml.aml', 1, { parameters, credentials: env.credentials });

/** An HTTP Request node POSTing to the service with n8n's generic OAuth2 credential. */
function httpPost(
	env: BenchEnv,
	credential: CredentialRef,
	name: string,
	x: number,
	path: string,
	jsonBody?: string,
): Json {
	return node(name, x, 'n8n-nodes-base.httpRequest', 4.2, {
		parameters: {
			method: 'POST',
			url: `=${env.sb.baseUrl}${path}`,
			authentication: 'genericCredentialType',
			genericAuthType: 'oAuth2Api',
			...(jsonBody ? { sendBody: true, specifyBody: 'json', jsonBody } : {}),
			options: {},
		},
		credentials: { oAuth2Api: credential },
	});
}

const decisionNode = (name: string, decision: string) =>
	node(name, 1200, 'n8n-nodes-base.set', 3.4, {
		parameters: {
			mode: 'manual',
			assignments: {
				assignments: [{ id: randomUUID(), name: 'decision', value: decision, type: 'string' }],
			},
			includeOtherFields: false,
			options: {},
		},
	});

const isZero = (leftValue: string) => ({
	id: randomUUID(),
	leftValue,
	rightValue: 0,
	operator: { type: 'number', operation: 'equals' },
});

/** The gates, each after a Webhook that answers with the last node's item. */
export function gates(env: BenchEnv, oauth2: CredentialRef): Record<GateName, Gate> {
	const check = (operation: string) => ({
		resource: 'transaction',
		operation,
		transactionId: '={{ $json.transactionId ?? $json.id }}',
		routeOutputs: false,
	});
	const transaction = "{{ $('Payment').item.json.body.id }}";
	const httpChecks = [
		httpPost(
			env,
			oauth2,
			'Store',
			200,
			'/api/v1/persons/{{ $json.body.personId }}/transactions',
			"={{ JSON.stringify({ id: $json.body.id, attributes: { amount: $json.body.amount, type: 'payment', direction: 'O', timestamp: $json.body.timestamp } }) }}",
		),
		httpPost(
			env,
			oauth2,
			'Monitoring',
			400,
			`/api/v1/transactions/${transaction}/monitoring-checks`,
		),
		httpPost(env, oauth2, 'Screening', 600, `/api/v1/transactions/${transaction}/screening-checks`),
	];
	const decided = (a: Json) => a.decision === 'clear';
	return {
		gate: {
			nodes: [
				aml(env, 'AML Gate', 200, {
					resource: 'transaction',
					operation: 'gate',
					...fields,
					routeOutputs: false,
				}),
			],
			clear: decided,
		},
		threeNode: {
			nodes: [
				aml(env, 'Store', 200, { resource: 'transaction', operation: 'create', ...fields }),
				aml(env, 'Monitoring', 400, check('runMonitoringCheck')),
				aml(env, 'Screening', 600, check('runScreeningCheck')),
			],
			clear: decided,
		},
		http: {
			nodes: [
				...httpChecks,
				node('Clear?', 800, 'n8n-nodes-base.if', 2, {
					parameters: {
						conditions: {
							options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
							conditions: [
								isZero("={{ $('Monitoring').item.json.results.length }}"),
								isZero('={{ $json.matches.length }}'),
							],
							combinator: 'and',
						},
						options: {},
					},
				}),
				decisionNode('Clear', 'clear'),
				decisionNode('Block', 'block'),
			],
			connections: {
				Store: { main: [[{ node: 'Monitoring', type: 'main', index: 0 }]] },
				Monitoring: { main: [[{ node: 'Screening', type: 'main', index: 0 }]] },
				Screening: { main: [[{ node: 'Clear?', type: 'main', index: 0 }]] },
				'Clear?': {
					main: [
						[{ node: 'Clear', type: 'main', index: 0 }],
						[{ node: 'Block', type: 'main', index: 0 }],
					],
				},
			},
			clear: decided,
		},
		// the answer is the screening check's: clear when it found nothing (monitoring not judged here)
		httpBare: {
			nodes: httpChecks.map((n) => ({ ...n, id: randomUUID() })),
			clear: (a) => Array.isArray(a.matches) && a.matches.length === 0,
		},
	};
}

/** Publishes a gate behind a Webhook; `url` on `webhookBase` (n8n's own address, or a queue-mode webhook process). */
export async function publish(
	env: BenchEnv,
	name: string,
	gate: Gate,
	webhookBase = env.n8n.baseUrl,
): Promise<{ id: string; url: string; path: string }> {
	const path = `bench-gate-${randomUUID()}`;
	const nodes = [webhookNode(path, { name: 'Payment' }), ...gate.nodes];
	const connections: Json = {
		Payment: { main: [[{ node: gate.nodes[0].name, type: 'main', index: 0 }]] },
	};
	if (gate.connections) Object.assign(connections, gate.connections);
	else
		for (let i = 1; i < nodes.length - 1; i++)
			connections[nodes[i].name as string] = {
				main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]],
			};
	const wf = await env.client.createWorkflow({
		name: `bench gate ${name}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	});
	await env.client.activate(wf.id);
	return { id: wf.id, url: `${webhookBase}/webhook/${path}`, path };
}

let counter = 0;
/** A day apart per payment, so no velocity scenario fires. */
const timestampOf = (n: number) => new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString();
/** A payment of the seeded person, each a new ID: small (clear), or `amount` (25,000.00 raises the sandbox's alert). */
function payment(amount = '12.00'): string {
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
	const target = new URL(url);
	return await new Promise((resolve) => {
		const req = http.request(
			{
				host: target.hostname,
				port: target.port,
				path: target.pathname,
				method: 'POST',
				agent,
				headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
			},
			(res) => {
				let text = '';
				res.on('data', (c) => (text += c));
				res.on('end', () => {
					let json: Json = {};
					try {
						json = JSON.parse(text) as Json;
					} catch {
						json = {};
					}
					resolve({ status: res.statusCode ?? 0, json });
				});
			},
		);
		// a payment with no answer within a minute counts as a wrong answer instead of holding the run
		req.setTimeout(60_000, () => req.destroy());
		req.on('error', () => resolve({ status: 0, json: {} }));
		req.end(body);
	});
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

/**
 * The same three requests from a keep-alive client on its own thread (the sandbox answers in this process): one
 * after the other, or the two checks side by side. Every payment must be stored and both checks must find nothing.
 */
async function driveRaw(
	env: BenchEnv,
	count: number,
	concurrency: number,
	sideBySide: boolean,
	token: string,
): Promise<Cell> {
	const first = counter + 1;
	counter += count;
	const answer = await inWorkerAnswer<{ ms: number; latencies: number[]; wrong: number }>(
		`
const agent = new http.Agent({ keepAlive: true, maxSockets: d.concurrency * 2 });
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
		attributes: { amount: '12.00', type: 'payment', direction: 'O', timestamp: new Date(Date.UTC(2020, 0, 1) + n * 86400000).toISOString() },
	});
	const monitoring = () => api.post('/api/v1/transactions/' + id + '/monitoring-checks');
	const screening = () => api.post('/api/v1/transactions/' + id + '/screening-checks');
	const [m, s] = d.sideBySide ? await Promise.all([monitoring(), screening()]) : [await monitoring(), await screening()];
	latencies.push(Date.now() - t);
	if (stored.data.id !== id || m.data.results.length || s.data.matches.length) wrong++;
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
			sideBySide,
		},
	);
	return { ...summary(answer.latencies, count, answer.ms / 1000), cpuMs: 0, wrong: answer.wrong };
}

/** The middle value; for an even count the mean of the two middle ones. */
function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length / 2;
	return sorted.length % 2
		? sorted[Math.floor(mid)]
		: +((sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
}
const spread = (values: number[]) =>
	values.length > 1 ? `${Math.min(...values)}–${Math.max(...values)}` : String(values[0]);
const ratio = (a: number, b: number) => +(a / b).toFixed(2);

export async function paymentGate(env: BenchEnv): Promise<Result[]> {
	const count = Math.max(16, Math.round(160 * env.scale));
	await env.control.post('/config', { tokenLifetimeSeconds: 3600 });
	// one token for the raw client (the token endpoint grants 5 a minute)
	const token = await rawToken(env);
	const oauth2 = await genericOAuth2Credential(
		env,
		`bench gate oauth2 ${randomUUID().slice(0, 8)}`,
	);
	const published = {} as Record<GateName, { id: string; url: string; clear: Gate['clear'] }>;
	for (const [name, gate] of Object.entries(gates(env, oauth2)) as Array<[GateName, Gate]>)
		published[name] = { ...(await publish(env, name, gate)), clear: gate.clear };
	const results: Result[] = [];
	/** Every measured cell: `${latency}/${concurrency}` → client → one Cell per run. */
	const cells = new Map<string, Record<string, Cell[]>>();
	const n8nCpu = () => treeCpu(env.n8n.pid);
	let idle = 0;
	const loads = new Map<string, number[]>();
	const blocked: Cell[] = [];
	try {
		await warm(Object.values(published).map((p) => p.url));
		idle = await idleCpu(n8nCpu);
		const clients = [...N8N_GATES, 'raw', 'rawSideBySide'] as const;
		for (let run = 0; run < env.runs; run++) {
			for (const latencyMs of LATENCIES) {
				await env.control.post('/faults', { rules: latencyMs ? [{ latencyMs }] : [] });
				for (const concurrency of CONCURRENCY) {
					const key = `${latencyMs}/${concurrency}`;
					const cell = cells.get(key) ?? {};
					cells.set(key, cell);
					loads.set(key, [...(loads.get(key) ?? []), +os.loadavg()[0].toFixed(1)]);
					// each run starts with another client, so none is always measured first
					for (let i = 0; i < clients.length; i++) {
						const name = clients[(i + run) % clients.length];
						const measured =
							name === 'raw' || name === 'rawSideBySide'
								? await driveRaw(env, count, concurrency, name === 'rawSideBySide', token)
								: await drive(
										n8nCpu,
										[published[name].url],
										published[name].clear,
										count,
										concurrency,
										idle,
									);
						(cell[name] ??= []).push(measured);
					}
				}
			}
		}
		// blocked payments apart: a block writes its record before it is answered
		await env.control.post('/faults', { rules: [{ latencyMs: BLOCKED_LATENCY_MS }] });
		for (let run = 0; run < env.runs; run++)
			blocked.push(
				await drive(
					n8nCpu,
					[published.gate.url],
					(a) => a.decision === 'block',
					count,
					1,
					idle,
					() => payment('25000.00'),
				),
			);
	} finally {
		await env.control.delete('/faults').catch(() => undefined);
		for (const { id } of Object.values(published)) {
			await env.client.deactivate(id).catch(() => undefined);
			await env.client.deleteWorkflow(id).catch(() => undefined);
		}
		await env.client.deleteCredential(oauth2.id).catch(() => undefined);
	}

	const overhead: number[] = [];
	const cpuOverhead: number[] = [];
	for (const [key, cell] of cells) {
		const [latencyMs, concurrency] = key.split('/').map(Number);
		const figures: Record<string, number | string> = {
			payments: count,
			runs: env.runs,
			n8nIdleCpuPct: Math.round(idle * 100),
			latencyMs,
			concurrency,
			load1: spread(loads.get(key) ?? []),
		};
		for (const [name, runs] of Object.entries(cell)) {
			figures[`${name}P50Ms`] = median(runs.map((r) => r.p50));
			figures[`${name}P99Ms`] = median(runs.map((r) => r.p99));
			figures[`${name}PerS`] = median(runs.map((r) => r.perS));
			if (!name.startsWith('raw')) figures[`${name}CpuMs`] = median(runs.map((r) => r.cpuMs));
			figures[`${name}Wrong`] = runs.reduce((s, r) => s + r.wrong, 0);
		}
		/** Per run, the p50 of `a` over the p50 of `b`: median and spread. */
		const p50Ratio = (a: string, b: string) => {
			const values = cell[a].map((r, i) => ratio(r.p50, cell[b][i].p50));
			return { median: median(values), spread: spread(values), values };
		};
		const node = p50Ratio('threeNode', 'httpBare');
		if (latencyMs === 0 && concurrency === 1) overhead.push(...node.values);
		cpuOverhead.push(...cell.threeNode.map((r, i) => ratio(r.cpuMs, cell.httpBare[i].cpuMs)));
		Object.assign(figures, {
			gateVsThreeNodeP50: p50Ratio('gate', 'threeNode').spread,
			threeNodeVsHttpBareP50: node.spread,
			gateVsHttpP50: p50Ratio('gate', 'http').spread,
			httpVsRawP50: p50Ratio('http', 'raw').spread,
			gateVsRawSideBySideP50: p50Ratio('gate', 'rawSideBySide').spread,
		});
		const gate = median(cell.gate.map((r) => r.p50));
		const three = median(cell.threeNode.map((r) => r.p50));
		const wrong = Object.values(cell).some((runs) => runs.some((r) => r.wrong));
		results.push({
			name: `payment gate, latency ${latencyMs} ms, ${concurrency} at a time`,
			figures,
			ratio: ratio(gate, three),
			baseline:
				'Create → Run Monitoring Check → Run Screening Check, same instance and latency (p50 medians over the runs)',
			goal:
				latencyMs === 150
					? 'Gate p50 <= store + slower check + n8n (about 2/3 of the three-node gate); every answer clear'
					: 'reported; every answer clear',
			met: latencyMs === 150 ? gate / three <= 0.8 && !wrong : wrong ? false : undefined,
		});
	}
	const clean = cells.get(`${BLOCKED_LATENCY_MS}/1`)?.gate ?? [];
	const blockedP50 = median(blocked.map((r) => r.p50));
	const cleanP50 = median(clean.map((r) => r.p50));
	results.push({
		name: `payment gate, blocked payments (an amount that raises an alert), latency ${BLOCKED_LATENCY_MS} ms, 1 at a time`,
		figures: {
			payments: count,
			runs: blocked.length,
			gateBlockedP50Ms: blockedP50,
			gateBlockedP99Ms: median(blocked.map((r) => r.p99)),
			gateBlockedCpuMs: median(blocked.map((r) => r.cpuMs)),
			gateCleanP50Ms: cleanP50,
			gateBlockedWrong: blocked.reduce((sum, r) => sum + r.wrong, 0),
		},
		ratio: ratio(blockedP50, cleanP50),
		baseline: 'the Gate with clean payments, same latency, 1 at a time',
		goal: 'reported (a block writes its record before the answer: one round trip more); every answer block',
		met: blocked.some((r) => r.wrong) ? false : undefined,
	});
	results.push({
		name: 'payment gate, what the AML node adds (three-node AML gate vs three HTTP Request nodes, latency 0, 1 at a time)',
		figures: {
			runs: overhead.length,
			p50RatioMedian: median(overhead),
			p50RatioSpread: spread(overhead),
			// n8n's CPU per payment, three-node AML gate / three HTTP Request nodes, every cell and run
			cpuRatioMedian: median(cpuOverhead),
			cpuRatioSpread: spread(cpuOverhead),
		},
		ratio: median(overhead),
		baseline:
			'the same three requests through n8n HTTP Request nodes with the generic OAuth2 credential',
		goal: 'node adds <= 5 % to a gate p50 (ratio <= 1.05)',
		met: median(overhead) <= 1.05,
	});
	return results;
}
