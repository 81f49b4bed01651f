import { randomUUID } from 'node:crypto';
import * as http from 'node:http';

import { percentile, type BenchEnv, type Result } from '../lib';

/**
 * 7. Payment gate (issue 33): webhook → gate → answer, with the service's latency 0, 50 and 150 ms per request (the
 *    sandbox's latencyMs on every /api request). The Gate operation (store, then both checks side by side) against
 *    today's three-node gate (Create → Run Monitoring Check → Run Screening Check, one after the other); p50, p99 and
 *    payments per second, 1 and 8 payments at a time (closed loop). Goal: at 150 ms the Gate's p50 approaches store +
 *    the slower check (~300 ms plus n8n's own work), not the sum of three (~450 ms).
 */
const LATENCIES = [0, 50, 150];
const CONCURRENCY = [1, 8];

type Json = Record<string, unknown>;

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

function aml(env: BenchEnv, name: string, x: number, parameters: Json): Json {
	return {
		id: randomUUID(),
		name,
		type: 'n8n-nodes-aml.aml',
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials: env.credentials,
	};
}

/** The two gates, each a chain of nodes after a Webhook that answers with the last node's item. */
function gates(env: BenchEnv): Record<string, Json[]> {
	const check = (operation: string) => ({
		resource: 'transaction',
		operation,
		transactionId: '={{ $json.transactionId ?? $json.id }}',
		routeOutputs: false,
	});
	return {
		gate: [
			aml(env, 'AML Gate', 200, {
				resource: 'transaction',
				operation: 'gate',
				...fields,
				routeOutputs: false,
			}),
		],
		threeNodes: [
			aml(env, 'Store', 200, { resource: 'transaction', operation: 'create', ...fields }),
			aml(env, 'Monitoring', 400, check('runMonitoringCheck')),
			aml(env, 'Screening', 600, check('runScreeningCheck')),
		],
	};
}

async function publish(
	env: BenchEnv,
	name: string,
	chain: Json[],
): Promise<{ id: string; url: string }> {
	const path = `bench-gate-${randomUUID()}`;
	const webhook = {
		id: randomUUID(),
		name: 'Payment',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', options: {} },
	};
	const nodes = [webhook, ...chain];
	const connections: Json = {};
	for (let i = 0; i < nodes.length - 1; i++)
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
	return { id: wf.id, url: `${env.n8n.baseUrl}/webhook/${path}` };
}

let counter = 0;
/** A small payment of the seeded person, each a new ID, a day apart (no velocity scenario). */
function payment(): string {
	counter++;
	return JSON.stringify({
		id: `bench-gate-${randomUUID().slice(0, 8)}-${counter}`,
		personId: 'cust-1001',
		amount: '12.00',
		timestamp: new Date(Date.UTC(2020, 0, 1) + counter * 86_400_000).toISOString(),
	});
}

async function post(
	agent: http.Agent,
	url: string,
	body: string,
): Promise<{ status: number; decision?: string }> {
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
					let decision: string | undefined;
					try {
						decision = (JSON.parse(text) as { decision?: string }).decision;
					} catch {
						decision = undefined;
					}
					resolve({ status: res.statusCode ?? 0, decision });
				});
			},
		);
		req.on('error', () => resolve({ status: 0 }));
		req.end(body);
	});
}

/** `count` payments, `concurrency` at a time (closed loop): p50, p99 and payments per second; every answer must be clear. */
async function drive(url: string, count: number, concurrency: number) {
	const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
	const latencies: number[] = [];
	let wrong = 0;
	let next = 0;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) {
				next++;
				const t = Date.now();
				const answer = await post(agent, url, payment());
				latencies.push(Date.now() - t);
				if (answer.status !== 200 || answer.decision !== 'clear') wrong++;
			}
		}),
	);
	const seconds = (Date.now() - started) / 1000;
	agent.destroy();
	return {
		p50: percentile(latencies, 50),
		p99: percentile(latencies, 99),
		perS: +(count / seconds).toFixed(1),
		wrong,
	};
}

export async function paymentGate(env: BenchEnv): Promise<Result[]> {
	const count = Math.max(16, Math.round(160 * env.scale));
	const published: Record<string, { id: string; url: string }> = {};
	for (const [name, chain] of Object.entries(gates(env)))
		published[name] = await publish(env, name, chain);
	const results: Result[] = [];
	try {
		// registered and warm (token stored, code loaded)
		for (const { url } of Object.values(published)) {
			for (let i = 0; i < 50; i++) {
				const answer = await post(new http.Agent(), url, payment());
				if (answer.status === 200) break;
				await new Promise((r) => setTimeout(r, 200));
			}
		}
		for (const latencyMs of LATENCIES) {
			await env.control.post('/faults', { rules: latencyMs ? [{ latencyMs }] : [] });
			for (const concurrency of CONCURRENCY) {
				const gate = await drive(published.gate.url, count, concurrency);
				const three = await drive(published.threeNodes.url, count, concurrency);
				results.push({
					name: `payment gate, latency ${latencyMs} ms, ${concurrency} at a time`,
					figures: {
						payments: count,
						latencyMs,
						concurrency,
						gateP50Ms: gate.p50,
						gateP99Ms: gate.p99,
						gatePerS: gate.perS,
						gateWrong: gate.wrong,
						threeNodeP50Ms: three.p50,
						threeNodeP99Ms: three.p99,
						threeNodePerS: three.perS,
						threeNodeWrong: three.wrong,
					},
					ratio: +(gate.p50 / three.p50).toFixed(2),
					baseline:
						'Create → Run Monitoring Check → Run Screening Check, same instance and latency',
					goal:
						latencyMs === 150
							? 'Gate p50 <= store + slower check + n8n (about 2/3 of the three-node gate)'
							: 'reported',
					met:
						latencyMs === 150
							? gate.p50 / three.p50 <= 0.8 && gate.wrong === 0 && three.wrong === 0
							: undefined,
				});
			}
		}
	} finally {
		await env.control.delete('/faults').catch(() => undefined);
		for (const { id } of Object.values(published)) {
			await env.client.deactivate(id).catch(() => undefined);
			await env.client.deleteWorkflow(id).catch(() => undefined);
		}
	}
	return results;
}
