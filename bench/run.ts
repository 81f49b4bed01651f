/**
 * Benchmarks in real n8n against the sandbox. Every timing is a ratio against a baseline measured in the
 * same run (absolute times are noise on these machines).
 *   npm run bench            full size
 *   npm run bench -- --quick a tenth of the size; writes bench/results/quick.json
 */
import axios from 'axios';
import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

import { startSandbox } from '../test/sandbox';
import { N8nClient } from '../test/harness/client';
import { REPO_ROOT, startN8n } from '../test/harness/n8n';

const quick = process.argv.includes('--quick');
const scale = quick ? 0.1 : 1;
const CONCURRENCY = 8;

type Result = { name: string; figures: Record<string, number | string>; ratio?: number; baseline?: string; goal?: string };

async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<void> {
	let next = 0;
	await Promise.all(Array.from({ length: concurrency }, async () => {
		while (next < count) await task(next++);
	}));
}

async function rssOf(pid: number): Promise<number> {
	try {
		const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
	} catch {
		return 0;
	}
}

async function peakDuring<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; peak: number; idle: number }> {
	const idle = await rssOf(pid);
	let peak = idle;
	const timer = setInterval(async () => (peak = Math.max(peak, await rssOf(pid))), 50);
	try {
		return { value: await work(), peak, idle };
	} finally {
		clearInterval(timer);
	}
}

/** Time n8n spent on the execution itself (workflow creation and the HTTP call around it excluded). */
function executionMs(execution: { startedAt?: string; stoppedAt?: string } | undefined, fallback: number): number {
	const ms = Date.parse(execution?.stoppedAt ?? '') - Date.parse(execution?.startedAt ?? '');
	return Number.isFinite(ms) && ms > 0 ? ms : fallback;
}

void (async () => {
	const results: Result[] = [];
	execSync('npm run -s build', { cwd: REPO_ROOT, stdio: 'inherit' });
	const sb = await startSandbox({ quiet: true });
	const n8n = await startN8n();
	const client = new N8nClient(n8n.baseUrl, n8n.apiKey);
	const control = axios.create({ baseURL: sb.controlUrl });
	const credential = await client.createCredential('bench', 'amlOAuth2Api', {
		baseUrl: sb.baseUrl, apiPathPrefix: '/api', accessTokenUrl: sb.tokenUrl, clientId: sb.clientId, clientSecret: sb.clientSecret, scope: 'aml',
	});
	const credentials = { amlOAuth2Api: credential };
	const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
	const token = async () => (await axios.post(sb.tokenUrl, 'grant_type=client_credentials', { auth: { username: sb.clientId, password: sb.clientSecret } })).data.access_token as string;

	try {
		// 1. Create transactions: AML node vs a raw keep-alive client at the same concurrency.
		const count = Math.round(10_000 * scale);
		await control.post('/reset', {});
		const bearer = await token();
		const raw = axios.create({ baseURL: `${sb.baseUrl}/api`, httpAgent: agent, headers: { Authorization: `Bearer ${bearer}` } });
		let started = Date.now();
		await pool(count, CONCURRENCY, (i) => raw.post('/v1/persons/cust-1002/transactions', { id: `raw-${i}`, attributes: { amount: '10.00', type: 'payment', direction: 'O', timestamp: '2026-11-22T10:00:00Z' } }));
		const rawMs = Date.now() - started;
		await control.post('/reset', {});
		await control.post('/config', { tokenLifetimeSeconds: Math.max(2, Math.round(rawMs / 3000)) });
		const items = Array.from({ length: count }, (_, i) => ({ id: `node-${i}` }));
		const node = {
			parameters: {
				resource: 'transaction', operation: 'create', personId: 'cust-1002', transactionId: '={{ $json.id }}', attributesMode: 'fields',
				amount: '10.00', transactionType: 'payment', direction: 'O', timestamp: '2026-11-22T10:00:00Z', options: { parallelRequests: CONCURRENCY },
			},
			credentials,
		};
		started = Date.now();
		const measured = await peakDuring(n8n.pid, () => client.runNode(node, items, { credentials }));
		const nodeMs = executionMs(measured.value.execution, Date.now() - started);
		const stats = (await control.get('/stats')).data;
		const stored = (await control.get('/transactions', { params: { personId: 'cust-1002' } })).data.filter((t: { id: string }) => t.id.startsWith('node-')).length;
		results.push({
			name: 'create transactions',
			figures: { items: count, rawMs, nodeMs, stored, failures: count - stored, peakRssMb: Math.round(measured.peak / 1e6), status: measured.value.status },
			ratio: +(nodeMs / rawMs).toFixed(2), baseline: 'raw keep-alive client, same concurrency', goal: '<= 1.25',
		});
		const lifetimes = Math.ceil(nodeMs / 1000 / Math.max(2, Math.round(rawMs / 3000)));
		results.push({ name: 'token economy', figures: { tokenRequests: stats.tokenRequests, tokenLifetimes: lifetimes, token429: stats.tokenRequests429 }, goal: 'tokenRequests <= lifetimes + 1, 0 × 429' });

		// 3. Return All persons: node vs a raw sequential client.
		await control.post('/reset', {});
		await control.post('/config', { tokenLifetimeSeconds: 3600 });
		const persons = Math.round(10_000 * scale);
		const csv = `id,type,first_name\n${Array.from({ length: persons }, (_, i) => `bp-${i},INDIVIDUAL,P${i}`).join('\n')}\n`;
		const form = new FormData();
		form.append('file', new Blob([csv]), 'persons.csv');
		const bearer2 = await token();
		const up = await axios.post(`${sb.baseUrl}/api/v1/data-upload?type=PERSON`, form, { headers: { Authorization: `Bearer ${bearer2}` } });
		for (let i = 0; i < 200; i++) {
			const s = (await axios.get(`${sb.baseUrl}/api/v1/data-upload/${up.data.id}/status`, { headers: { Authorization: `Bearer ${bearer2}` } })).data;
			if (s.status !== 'PROCESSING') break;
			await new Promise((r) => setTimeout(r, 100));
		}
		const search = (page: number) => ({ page, size: 50, filters: [{ attribute: 'id', operator: 'STARTS_WITH', query: 'bp-' }], logicalOperator: 'AND', category: 'CUSTOMER' });
		started = Date.now();
		let total = Infinity;
		for (let page = 0; page * 50 < total; page++) {
			total = (await axios.post(`${sb.baseUrl}/api/v2/persons/search`, search(page), { httpAgent: agent, headers: { Authorization: `Bearer ${bearer2}` } })).data.total;
		}
		const rawSeqMs = Date.now() - started;
		started = Date.now();
		const all = await peakDuring(n8n.pid, () =>
			client.runNode({ parameters: { resource: 'person', operation: 'search', category: 'CUSTOMER', logicalOperator: 'AND', filters: { filter: [{ attribute: 'id', operator: 'STARTS_WITH', query: 'bp-' }] }, returnAll: true, options: { parallelRequests: CONCURRENCY } }, credentials }, [{}], { credentials }),
		);
		const allMs = executionMs(all.value.execution, Date.now() - started);
		results.push({
			name: 'return all persons',
			figures: { persons, pages: Math.ceil(persons / 50), rawSequentialMs: rawSeqMs, nodeMs: allMs, returned: all.value.outputs[0]?.length ?? 0, peakRssMb: Math.round(all.peak / 1e6) },
			ratio: +(allMs / rawSeqMs).toFixed(2), baseline: 'raw sequential client', goal: '<= 0.5',
		});

		// 6. Package cost.
		const pack = JSON.parse(execSync('npm pack --dry-run --json', { cwd: REPO_ROOT, encoding: 'utf8' }))[0];
		results.push({ name: 'package', figures: { packedBytes: pack.size, unpackedBytes: pack.unpackedSize, files: pack.entryCount, n8nStartMs: n8n.startMs ?? 'n/a' } });
	} finally {
		await n8n.stop();
		await sb.close();
		agent.destroy();
	}

	const file = path.join(REPO_ROOT, 'bench', 'results', quick ? 'quick.json' : 'full.json');
	fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), quick, results }, null, 2));
	console.log('\n| scenario | figures | ratio | goal |\n|---|---|---|---|');
	for (const r of results) console.log(`| ${r.name} | ${Object.entries(r.figures).map(([k, v]) => `${k}=${v}`).join(', ')} | ${r.ratio ?? ''} | ${r.goal ?? ''} |`);
	console.log(`\nwritten to ${path.relative(REPO_ROOT, file)}`);
})().catch((error) => {
	console.error(error);
	process.exit(1);
});
