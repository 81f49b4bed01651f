import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

import { AML_TRIGGER_VERSION } from '../../test/harness/client';
import { countExecutions, percentile, rawPost, treeCpu, type BenchEnv, type Result } from '../lib';

interface Intake {
	sent: number;
	ok: number;
	/** Deliveries offered per second of the time until the last answer. */
	throughput: number;
	/** Seconds from the first delivery to the last answer. */
	seconds: number;
	latencies: number[];
	executions: number;
	/** n8n's CPU (its process tree) per delivery, until every execution had started and the count stood still. */
	cpuMs: number;
}

/** Offers `count` deliveries at `rate` per second (open loop), each a distinct event; waits for every execution. */
async function offer(
	env: BenchEnv,
	url: string,
	workflowId: string,
	count: number,
	rate: number,
	body: (i: number) => string,
	headers: Record<string, string> = {},
): Promise<Intake> {
	const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
	const latencies: number[] = [];
	let ok = 0;
	const post = async (payload: string) => (await rawPost(agent, url, payload, { headers })).status;
	await new Promise((r) => setTimeout(r, 2000));
	const before = (await countExecutions(env, workflowId)).total;
	const cpuBefore = treeCpu(env.n8n.pid);
	const started = Date.now();
	let lastDone = started;
	await Promise.all(
		Array.from({ length: count }, async (_, i) => {
			const due = started + (i * 1000) / rate;
			const wait = due - Date.now();
			if (wait > 0) await new Promise((r) => setTimeout(r, wait));
			const t = Date.now();
			const status = await post(body(i));
			latencies.push(Date.now() - t);
			lastDone = Math.max(lastDone, Date.now());
			if (status >= 200 && status < 300) ok++;
		}),
	);
	agent.destroy();
	// Every accepted delivery must become one execution.
	// Wait until every accepted one has its execution, or the count has stopped growing for 15 s.
	let executions = 0;
	let still = 0;
	while (executions < ok && still < 15) {
		await new Promise((r) => setTimeout(r, 1000));
		const now = (await countExecutions(env, workflowId)).total - before;
		still = now === executions ? still + 1 : 0;
		executions = now;
	}
	const seconds = (lastDone - started) / 1000;
	// The CPU is read once every accepted delivery has its execution; where executions stopped coming, it includes up
	// to 15 s of n8n idling (about 1 % of a core: the gate scenario's n8nIdleCpuPct).
	return {
		sent: count,
		ok,
		throughput: +(count / seconds).toFixed(1),
		seconds,
		latencies,
		executions,
		cpuMs: +(((treeCpu(env.n8n.pid) - cpuBefore) * 1000) / count).toFixed(1),
	};
}

/** Two measurements of the same node as one: deliveries over the summed time, latencies and CPU pooled. */
function pooled(a: Intake, b: Intake): Intake & { p50: number; p99: number } {
	const latencies = [...a.latencies, ...b.latencies];
	return {
		sent: a.sent + b.sent,
		ok: a.ok + b.ok,
		seconds: a.seconds + b.seconds,
		throughput: +((a.sent + b.sent) / (a.seconds + b.seconds)).toFixed(1),
		latencies,
		executions: a.executions + b.executions,
		cpuMs: +((a.cpuMs * a.sent + b.cpuMs * b.sent) / (a.sent + b.sent)).toFixed(1),
		p50: percentile(latencies, 50),
		p99: percentile(latencies, 99),
	};
}

/** A published workflow with one trigger node; its production webhook URL. */
async function publish(
	env: BenchEnv,
	node: Record<string, unknown>,
	suffix: string,
): Promise<{ id: string; url: string }> {
	const webhookId = randomUUID();
	const wf = await env.client.createWorkflow({
		name: `bench intake ${node.type as string}`,
		nodes: [{ id: randomUUID(), name: 'Trigger', position: [0, 0], webhookId, ...node }],
		connections: {},
	});
	await env.client.activate(wf.id);
	const url = `${env.n8n.baseUrl}/webhook/${webhookId}/${suffix}`;
	// Registered once a POST no longer answers 404 (the probe `{}` may start one Webhook node execution: offer() counts from after it).
	for (let i = 0; i < 100; i++) {
		const { status } = await rawPost(new http.Agent(), url, '{}');
		if (status !== 404 && status !== 0) break;
		await new Promise((r) => setTimeout(r, 200));
	}
	return { id: wf.id, url };
}

/**
 * 5. Webhook intake: the AML Trigger vs n8n's own Webhook node on the same instance, the same offered
 *    rate, distinct events; throughput, p50/p99 response time, executions started (zero lost). The anchor is the
 *    Webhook node with Header Auth, which does the trigger's verification work (a credential read and a compare); the
 *    Webhook node without authentication is measured too.
 */
/**
 * Fills the AML Trigger's record in n8n's deduplication store (SQLite, n8n's own table) with `keys` random keys, as
 * n8n keeps them (the MD5 of each key, base64): the record at its bound, read and written whole by every delivery's
 * check. False where the sqlite3 command (Debian's `sqlite3`) or the database is missing.
 */
function fillTriggerRecord(env: BenchEnv, workflowId: string, keys: number): boolean {
	const db = path.join(env.n8n.userFolder, '.n8n', 'database.sqlite');
	if (!fs.existsSync(db)) return false;
	const value = JSON.stringify({
		mode: 'entries',
		data: Array.from({ length: keys }, () => randomBytes(16).toString('base64')),
	});
	const sql = `UPDATE processed_data SET value = '${value}' WHERE workflowId = '${workflowId}' AND context LIKE 'n:%';
SELECT changes();`;
	try {
		const out = execFileSync('sqlite3', ['-cmd', '.timeout 10000', db], { input: sql }).toString();
		return out.trim() === '1';
	} catch {
		return false;
	}
}

export async function webhookIntake(env: BenchEnv): Promise<Result[]> {
	const rate = 20;
	const count = Math.round(2_000 * env.scale);
	const event = (i: number) =>
		JSON.stringify({
			action: 'ALERT_CREATED',
			createdTime: new Date().toISOString(),
			metadata: {
				alertId: 500_000 + i,
				personId: 'cust-1001',
				transactionId: `t-${i}`,
				entityType: 'TRANSACTION',
				scenarioType: 'OFFLINE',
				hits: [],
			},
		});
	const webhookNode = await publish(
		env,
		{
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			parameters: { httpMethod: 'POST', path: randomUUID(), options: {} },
		},
		'',
	);
	// The Webhook node's URL is /webhook/<path>; read it back from the node.
	const urlOf = async (id: string) => {
		const wf = await env.client.getWorkflow(id);
		const hookPath = (wf.nodes as Array<{ parameters: { path: string } }>)[0].parameters.path;
		return `${env.n8n.baseUrl}/webhook/${hookPath}`;
	};
	const webhookUrl = await urlOf(webhookNode.id);
	const headerValue = randomUUID();
	const headerCredential = await env.client.createCredential(
		'bench webhook header auth',
		'httpHeaderAuth',
		{ name: 'X-Bench-Key', value: headerValue },
	);
	const headerNode = await publish(
		env,
		{
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			parameters: {
				httpMethod: 'POST',
				path: randomUUID(),
				authentication: 'headerAuth',
				options: {},
			},
			credentials: { httpHeaderAuth: headerCredential },
		},
		'',
	);
	const headerUrl = await urlOf(headerNode.id);
	// The AML Trigger checks every delivery against its AML Webhook API credential (verification is on by default);
	// the credential's default method, a secret header, as the e2e suite sets it up.
	const secret = randomUUID();
	const credential = await env.client.createCredential('bench webhook intake', 'amlWebhookApi', {
		method: 'header',
		headerName: 'X-AML-Secret',
		headerSecret: secret,
	});
	const trigger = await publish(
		env,
		{
			type: 'n8n-nodes-aml.amlTrigger',
			typeVersion: AML_TRIGGER_VERSION,
			parameters: { authentication: 'amlWebhookApi', events: ['*'] },
			credentials: { amlWebhookApi: credential },
		},
		'aml',
	);
	try {
		const open = await offer(env, webhookUrl, webhookNode.id, count, rate, event);
		// The pair compared is measured in both orders (Header Auth, AML, AML, Header Auth) and pooled, so that what
		// builds up in n8n over a run (its database, its heap) weighs on both alike.
		const header = (from: number) =>
			offer(env, headerUrl, headerNode.id, count, rate, (i) => event(from * count + i), {
				'x-bench-key': headerValue,
			});
		const amlTrigger = (from: number) =>
			offer(env, trigger.url, trigger.id, count, rate, (i) => event(from * count + i), {
				'x-aml-secret': secret,
			});
		const base1 = await header(1);
		const aml1 = await amlTrigger(2);
		const aml2 = await amlTrigger(3);
		const base2 = await header(4);
		const base = pooled(base1, base2);
		const aml = pooled(aml1, aml2);
		// The trigger's record at its bound (10,000 keys, read and written whole by each delivery's check): the
		// same offer again. Not part of the ratio.
		const filled = fillTriggerRecord(env, trigger.id, 10_000);
		const full = filled ? await amlTrigger(5) : undefined;
		const openP = { p50: percentile(open.latencies, 50), p99: percentile(open.latencies, 99) };
		// Nothing accepted is a broken set-up (credential, URL), not a throughput figure.
		if (aml.ok === 0 || base.ok === 0 || open.ok === 0)
			throw new Error(
				`no delivery accepted (AML Trigger ${aml.ok}, Webhook node with Header Auth ${base.ok}, without ${open.ok} of ${count})`,
			);
		return [
			{
				name: 'webhook intake',
				figures: {
					offeredPerS: rate,
					deliveries: count,
					amlPerS: aml.throughput,
					amlPerSEachOrder: `${aml1.throughput} / ${aml2.throughput}`,
					amlOk: aml.ok,
					amlP50Ms: aml.p50,
					amlP99Ms: aml.p99,
					amlExecutions: aml.executions,
					amlLost: aml.sent - Math.min(aml.ok, aml.executions),
					amlCpuMsPerDelivery: aml.cpuMs,
					amlFullRecordPerS: full ? full.throughput : 'n/a (no sqlite3)',
					amlFullRecordP99Ms: full ? percentile(full.latencies, 99) : 'n/a',
					amlFullRecordLost: full ? full.sent - Math.min(full.ok, full.executions) : 'n/a',
					amlFullRecordCpuMsPerDelivery: full ? full.cpuMs : 'n/a',
					headerAuthWebhookPerS: base.throughput,
					headerAuthWebhookPerSEachOrder: `${base1.throughput} / ${base2.throughput}`,
					headerAuthWebhookOk: base.ok,
					headerAuthWebhookP50Ms: base.p50,
					headerAuthWebhookP99Ms: base.p99,
					headerAuthWebhookExecutions: base.executions,
					headerAuthWebhookCpuMsPerDelivery: base.cpuMs,
					webhookPerS: open.throughput,
					webhookOk: open.ok,
					webhookP50Ms: openP.p50,
					webhookP99Ms: openP.p99,
					webhookExecutions: open.executions,
					webhookCpuMsPerDelivery: open.cpuMs,
				},
				ratio: +(aml.throughput / base.throughput).toFixed(2),
				baseline: "n8n's Webhook node with Header Auth, same instance, same offered rate",
				goal: '>= 0.9, zero lost',
				met:
					aml.throughput / base.throughput >= 0.9 &&
					aml.ok === aml.sent &&
					aml.executions === aml.sent,
			},
		];
	} finally {
		for (const id of [webhookNode.id, headerNode.id, trigger.id]) {
			await env.client.deactivate(id).catch(() => undefined);
			await env.client.deleteWorkflow(id).catch(() => undefined);
		}
		await env.client.deleteCredential(credential.id).catch(() => undefined);
		await env.client.deleteCredential(headerCredential.id).catch(() => undefined);
	}
}
