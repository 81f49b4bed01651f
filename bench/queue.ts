/**
 * `npm run bench -- --queue [--quick]`: the package on n8n's queue mode against the regular single process, in one
 * run on one machine, as ratios.
 *   1. 20,000 person creates split over 20 executions of 1,000 (all started at once, as a busy installation would):
 *      the regular single process, queue mode with 1 worker, queue mode with 2 workers.
 *   2. Webhook intake: 1,000 AML Trigger deliveries (16 at a time) into one regular process vs 2 webhook processes.
 * For every phase it reads the CPU time each process tree used (/proc: n8n main, workers with their task runners,
 * webhook processes, PostgreSQL, Redis, this process = sandbox + load), so the report shows where the time goes and
 * projects what more cores would give: with one core per process, a phase cannot be faster than its busiest
 * process type allows. Writes bench/results/queue(.quick).json.
 */
import axios from 'axios';
import { createHmac, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	N8nClient,
	PERSON_CREATE_FROM_INPUT,
	amlTriggerWorkflow,
	sandboxCredentialData,
	type CredentialRef,
} from '../test/harness/client';
import { REPO_ROOT, pool, startN8n, type N8nInstance } from '../test/harness/n8n';
import { startQueueCluster, type QueueCluster } from '../test/harness/queue';
import { startSandbox, type Sandbox } from '../test/sandbox';
import { genericOAuth2Credential, n8nSettingsFromArgs, treeCpu, type BenchEnv } from './lib';
import { drive, warm } from './scenarios/gateClients';
import { gates, publish, type Gate, type GateName } from './scenarios/gateWorkflows';

const quick = process.argv.includes('--quick');
const scale = quick ? 0.1 : 1;
const EXECUTIONS = 20;
const ITEMS = Math.round(1000 * scale);
const DELIVERIES = Math.round(1000 * scale);

type Groups = Record<string, number[]>;
function cpuOf(groups: Groups): Record<string, number> {
	const out: Record<string, number> = {
		'sandbox+load': process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
	};
	for (const [name, pgids] of Object.entries(groups))
		out[name] = pgids.reduce((sum, p) => sum + treeCpu(p), 0);
	return out;
}

async function measure<T>(
	groups: Groups,
	run: () => Promise<T>,
): Promise<{ seconds: number; cpu: Record<string, number>; value: T }> {
	const before = cpuOf(groups);
	const started = Date.now();
	const value = await run();
	const seconds = (Date.now() - started) / 1000;
	const after = cpuOf(groups);
	const cpu = Object.fromEntries(
		Object.keys(after).map((k) => [k, Math.round((after[k] - (before[k] ?? 0)) * 100) / 100]),
	);
	return { seconds: Math.round(seconds * 100) / 100, cpu, value };
}

async function credentialFor(client: N8nClient, sb: Sandbox): Promise<CredentialRef> {
	return await client.createCredential('bench', 'amlOAuth2Api', sandboxCredentialData(sb));
}

/** 20 executions × ITEMS creates, all at once, through `client` (its webhook URLs). */
async function creates(client: N8nClient, credential: CredentialRef, label: string): Promise<void> {
	const webhookPath = `bench-${randomUUID()}`;
	const node = { parameters: PERSON_CREATE_FROM_INPUT };
	const workflow = await client.createWorkflow(
		client.runnerWorkflow(node, { credentials: { amlOAuth2Api: credential } }, webhookPath),
	);
	await client.activate(workflow.id);
	await client.callWebhook(webhookPath, { items: [{ id: `${label}-warm` }] });
	const answers = await Promise.all(
		Array.from({ length: EXECUTIONS }, (_, e) =>
			client.callWebhook(webhookPath, {
				items: Array.from({ length: ITEMS }, (_, i) => ({
					id: `${label}-${e}-${i}`,
					first_name: 'B',
				})),
			}),
		),
	);
	const bad = answers.filter((a) => a.status !== 200);
	if (bad.length) throw new Error(`${label}: ${bad.length} executions answered ${bad[0].status}`);
}

/** DELIVERIES distinct deliveries to an AML Trigger, 16 at a time, over `bases` in turn. */
async function intake(client: N8nClient, bases: string[], label: string): Promise<void> {
	const secret = randomUUID();
	const credential = await client.createCredential(`bench webhook ${label}`, 'amlWebhookApi', {
		method: 'hmac',
		hmacHeaderName: 'X-AML-Signature',
		hmacSecret: secret,
	});
	const webhookId = randomUUID();
	const workflow = await client.createWorkflow(
		amlTriggerWorkflow(
			`bench trigger ${label}`,
			webhookId,
			{ authentication: 'amlWebhookApi', events: ['*'] },
			credential,
		),
	);
	await client.activate(workflow.id);
	await pool(DELIVERIES, 16, async (n) => {
		const body = JSON.stringify({
			action: 'ALERT_CREATED',
			createdTime: new Date().toISOString(),
			metadata: {
				alertId: n,
				personId: `${label}-${n}`,
				transactionId: `t${n}`,
				entityType: 'TRANSACTION',
				scenarioType: 'OFFLINE',
				hits: [],
			},
		});
		const headers = {
			'Content-Type': 'application/json',
			'X-AML-Signature': createHmac('sha256', secret).update(body).digest('hex'),
		};
		for (let attempt = 0; attempt < 20; attempt++) {
			const r = await axios.post(`${bases[n % bases.length]}/webhook/${webhookId}/aml`, body, {
				headers,
				validateStatus: () => true,
				transformRequest: (d) => d,
			});
			if (r.status < 300) return;
			await new Promise((res) => setTimeout(res, 200));
		}
		throw new Error(`${label}: delivery ${n} never accepted`);
	});
}

async function createsAndIntake(): Promise<void> {
	const sb = await startSandbox({ quiet: true });
	const results: Record<string, unknown> = {};
	let single: N8nInstance | undefined;
	let cluster: QueueCluster | undefined;
	try {
		// 1. the regular single process
		single = await startN8n();
		const sc = new N8nClient(single.baseUrl, single.apiKey);
		const scCred = await credentialFor(sc, sb);
		const singleGroups: Groups = { n8n: [single.pid] };
		results.createsSingle = await measure(singleGroups, () =>
			creates(sc, scCred, `s-${Date.now()}`),
		);
		results.intakeSingle = await measure(singleGroups, () =>
			intake(sc, [single!.baseUrl], `s-${Date.now()}`),
		);
		await single.stop();
		single = undefined;

		// 2. queue mode: one worker, then two
		cluster = await startQueueCluster({ workers: 1, webhooks: 2 });
		const qc = new N8nClient(cluster.main.baseUrl, cluster.main.apiKey);
		qc.webhookBaseUrls = cluster.webhooks.map((w) => w.url);
		const qCred = await credentialFor(qc, sb);
		const groups = (): Groups => ({
			main: [cluster!.main.pid],
			workers: cluster!.workers.map((w) => w.pid),
			webhooks: cluster!.webhooks.map((w) => w.pid),
			postgres: [cluster!.postgres.pid],
			redis: [cluster!.redis.pid],
		});
		results.createsQueue1 = await measure(groups(), () => creates(qc, qCred, `q1-${Date.now()}`));
		await cluster.addWorker();
		results.createsQueue2 = await measure(groups(), () => creates(qc, qCred, `q2-${Date.now()}`));
		results.intakeQueue = await measure(groups(), () =>
			intake(
				qc,
				cluster!.webhooks.map((w) => w.url),
				`q-${Date.now()}`,
			),
		);
	} finally {
		await single?.stop();
		await cluster?.stop();
		await sb.close();
	}

	const r = results as Record<string, M>;
	const items = EXECUTIONS * ITEMS;
	const perSecond = (m: M, n: number) => Math.round(n / m.seconds);
	const report = {
		date: new Date().toISOString(),
		quick,
		cores: os.cpus().length,
		creates: {
			items,
			single: { perSecond: perSecond(r.createsSingle, items), ...r.createsSingle },
			queue1Worker: {
				perSecond: perSecond(r.createsQueue1, items),
				ratioToSingle: Math.round((r.createsSingle.seconds / r.createsQueue1.seconds) * 100) / 100,
				...r.createsQueue1,
				projectionOneCoreEach: project(r.createsQueue1, items),
			},
			queue2Workers: {
				perSecond: perSecond(r.createsQueue2, items),
				ratioToSingle: Math.round((r.createsSingle.seconds / r.createsQueue2.seconds) * 100) / 100,
				ratioTo1Worker: Math.round((r.createsQueue1.seconds / r.createsQueue2.seconds) * 100) / 100,
				...r.createsQueue2,
				projectionOneCoreEach: project(r.createsQueue2, items),
			},
		},
		intake: {
			deliveries: DELIVERIES,
			single: { perSecond: perSecond(r.intakeSingle, DELIVERIES), ...r.intakeSingle },
			twoWebhookProcesses: {
				perSecond: perSecond(r.intakeQueue, DELIVERIES),
				ratioToSingle: Math.round((r.intakeSingle.seconds / r.intakeQueue.seconds) * 100) / 100,
				...r.intakeQueue,
				projectionOneCoreEach: project(r.intakeQueue, DELIVERIES),
			},
		},
	};
	const file = path.join(REPO_ROOT, 'bench', 'results', `queue${quick ? '.quick' : ''}.json`);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, JSON.stringify(report, null, 2));
	console.log(JSON.stringify(report, null, 2));
	console.log(`\nwritten to ${path.relative(REPO_ROOT, file)}`);
}

/**
 * `--queue --gate`: the payment gate (bench/scenarios/gate.ts) in queue mode, 1 and then 2 workers, 2 webhook
 * processes taking the payments in turn, no added service latency: payments per second, p50, p99 at 8 and 16 at a
 * time for the Gate operation and the HTTP Request node gate, and the CPU each process type used per payment
 * (with the projection to a core per process, as for the creates). Writes bench/results/queue-gate(.quick).json.
 */
async function gatePhase(): Promise<void> {
	const settings = n8nSettingsFromArgs();
	const sb = await startSandbox({ quiet: true });
	const count = quick ? 48 : 240;
	const rows: Record<string, unknown>[] = [];
	const file = path.join(
		REPO_ROOT,
		'bench',
		'results',
		`${['queue-gate', ...(quick ? ['quick'] : []), ...Object.keys(settings)].join('.')}.json`,
	);
	// written after every row, so a run that breaks keeps what it measured
	const save = () =>
		fs.writeFileSync(
			file,
			JSON.stringify(
				{ date: new Date().toISOString(), quick, n8nEnv: settings, cores: os.cpus().length, rows },
				null,
				2,
			),
		);
	let cluster: QueueCluster | undefined;
	try {
		cluster = await startQueueCluster({ workers: 1, webhooks: 2, env: settings });
		const c = cluster;
		const client = new N8nClient(c.main.baseUrl, c.main.apiKey);
		const env: BenchEnv = {
			quick,
			scale,
			runs: 1,
			sb,
			n8n: c.main,
			client,
			control: axios.create({ baseURL: sb.controlUrl }),
			credentials: { amlOAuth2Api: await credentialFor(client, sb) },
		};
		await env.control.post('/config', { tokenLifetimeSeconds: 3600 });
		const oauth2 = await genericOAuth2Credential(env, 'bench gate oauth2');
		const all = gates(env, oauth2);
		const published: Array<[GateName, string[], Gate['clear']]> = [];
		for (const name of ['gate', 'http'] as const) {
			const p = await publish(env, name, all[name], c.webhooks[0].url);
			published.push([name, c.webhooks.map((w) => `${w.url}/webhook/${p.path}`), all[name].clear]);
		}
		await warm(published.flatMap(([, urls]) => urls));
		const groups = (): Groups => ({
			main: [c.main.pid],
			workers: c.workers.map((w) => w.pid),
			webhooks: c.webhooks.map((w) => w.pid),
			postgres: [c.postgres.pid],
			redis: [c.redis.pid],
		});
		for (const workers of [1, 2]) {
			if (workers === 2) {
				await c.addWorker();
				await warm(published.flatMap(([, urls]) => urls));
			}
			// what each process type uses idle (timers, pools, PostgreSQL, Redis), taken off the work per payment
			const idle = await measure(groups(), () => new Promise((r) => setTimeout(r, 5000)));
			for (const concurrency of [8, 16])
				for (const [name, urls, clear] of published) {
					const load1 = +os.loadavg()[0].toFixed(1);
					const raw = await measure(groups(), () =>
						drive(() => 0, urls, clear, count, concurrency),
					);
					const m = {
						...raw,
						cpu: Object.fromEntries(
							Object.entries(raw.cpu).map(([k, v]) => [
								k,
								k === 'sandbox+load'
									? v
									: Math.max(0, v - (idle.cpu[k] / idle.seconds) * raw.seconds),
							]),
						),
					};
					const { p50, p99, perS, wrong } = m.value;
					rows.push({
						gate: name,
						workers,
						concurrency,
						payments: count,
						load1,
						p50,
						p99,
						perS,
						wrong,
						cpuMsPerPayment: Object.fromEntries(
							Object.entries(m.cpu).map(([k, v]) => [k, Math.round((v * 1000) / count)]),
						),
						projectionOneCoreEach: project(m, count),
					});
					console.log(JSON.stringify(rows[rows.length - 1]));
					save();
				}
		}
	} finally {
		await cluster?.stop();
		await sb.close();
	}
	console.log(`\nwritten to ${path.relative(REPO_ROOT, file)}`);
}

type M = { seconds: number; cpu: Record<string, number> };
/**
 * Items per second with `k` workers if every process had a core of its own: each process type's CPU per item,
 * measured here, divided over its processes (the workers' over k, the webhook processes' over 2); the busiest type
 * bounds the rate. PostgreSQL, Redis, main and the service (here the sandbox, in this process) stay single.
 */
function project(m: M, n: number) {
	return Object.fromEntries(
		[1, 2, 4, 8].map((k) => {
			// the CPU a type used per item, spread over its processes: k workers, 2 webhook processes, one of the rest
			const perItem = Object.entries(m.cpu).map(
				([type, cpu]) =>
					[type, cpu / n / (type === 'workers' ? k : type === 'webhooks' ? 2 : 1)] as const,
			);
			const [busiest, seconds] = [...perItem].sort((a, b) => b[1] - a[1])[0];
			return [`${k} worker${k > 1 ? 's' : ''}`, `${Math.round(1 / seconds)}/s (bound: ${busiest})`];
		}),
	);
}

(process.argv.includes('--gate') ? gatePhase() : createsAndIntake()).catch((error) => {
	console.error(error);
	process.exit(1);
});
