import { randomUUID } from 'node:crypto';
import * as os from 'node:os';

import { genericOAuth2Credential, rawToken, treeCpu, type BenchEnv, type Result } from '../lib';
import {
	ALERT_AMOUNT,
	drive,
	driveRaw,
	idleCpu,
	payment,
	probe,
	warm,
	type Cell,
} from './gateClients';
import { gates, N8N_GATES, publish, type Gate, type GateName } from './gateWorkflows';

/**
 * 7. Payment gate (issues 33, 35 and 65): webhook → gate → answer, with the service's latency 0, 50 and 150 ms per
 *    request (the sandbox's latencyMs on every /api request), 1 and 8 payments at a time (closed loop). Compared in
 *    the same run, each measured `env.runs` times in turn (the workflows: `gateWorkflows.ts`):
 *    - `gate`: the Gate operation (a clean payment: the store, then both checks side by side with the person read,
 *      then the payment's open-alerts lookup);
 *    - `threeNode`: the three-node AML gate (Create → Run Monitoring Check → Run Screening Check; each check looks
 *      up the payment's open alerts after an empty answer: five requests in a row);
 *    - `http`: the Gate's requests in its order built with n8n's HTTP Request nodes and n8n's generic OAuth2
 *      credential (client credentials), as a team builds it without this package, with an If on the checks' lists,
 *      the person's status and the lookup, and a Set node with the decision;
 *    - `httpBare`: the same HTTP Request nodes alone (store, checks and lookup: the Gate's "below HTTP Request nodes");
 *    - `raw` / `rawSideBySide`: a keep-alive HTTP client on its own thread sending the same five requests one after
 *      the other / in the Gate's order (store; both checks and the person read side by side; the lookup): what the
 *      requests cost without n8n, `rawSideBySide` the issue's "the same requests sent directly in that order".
 *    For every n8n gate also n8n's CPU per payment (its process tree, /proc), the figure queue-mode sizing rests on.
 *    Goal at 150 ms, one at a time: the Gate's p50 at most 1.15 × `rawSideBySide` and below `httpBare`.
 *    Blocked payments apart (an amount a check raises an alert for): the Gate answers after the checks (no lookup,
 *    its record after the answer), against `rawBlocked`, the store then both checks and the person read side by side.
 */
const LATENCIES = [0, 50, 150];
const CONCURRENCY = [1, 8];
/** The latency of the blocked-payment cell. */
const BLOCKED_LATENCY_MS = 150;

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
	const rawBlocked: Cell[] = [];
	const blockedLoad: number[] = [];
	try {
		await warm(Object.values(published).map((p) => p.url));
		for (const [name, { url, clear }] of Object.entries(published)) await probe(name, url, clear);
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
					console.log(
						`gate: run ${run + 1}/${env.runs}, latency ${latencyMs} ms, ${concurrency} at a time`,
					);
					// each run starts with another client, so none is always measured first
					for (let i = 0; i < clients.length; i++) {
						const name = clients[(i + run) % clients.length];
						const measured =
							name === 'raw' || name === 'rawSideBySide'
								? await driveRaw(
										env,
										count,
										concurrency,
										name === 'raw' ? 'inRow' : 'sideBySide',
										token,
									)
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
		// blocked payments apart: the checks raise an alert, so the Gate answers without the lookup
		await env.control.post('/faults', { rules: [{ latencyMs: BLOCKED_LATENCY_MS }] });
		blockedLoad.push(+os.loadavg()[0].toFixed(1));
		for (let run = 0; run < env.runs; run++) {
			const gate = () =>
				drive(
					n8nCpu,
					[published.gate.url],
					(a) => a.decision === 'block',
					count,
					1,
					idle,
					() => payment(ALERT_AMOUNT),
				);
			const raw = () => driveRaw(env, count, 1, 'blocked', token);
			// each run starts with the other
			if (run % 2) rawBlocked.push(await raw());
			blocked.push(await gate());
			if (!(run % 2)) rawBlocked.push(await raw());
		}
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
			gateVsRawSideBySideP50: p50Ratio('gate', 'rawSideBySide').spread,
			gateVsHttpBareP50: p50Ratio('gate', 'httpBare').spread,
			gateVsHttpP50: p50Ratio('gate', 'http').spread,
			gateVsThreeNodeP50: p50Ratio('gate', 'threeNode').spread,
			threeNodeVsHttpBareP50: node.spread,
			httpVsRawSideBySideP50: p50Ratio('http', 'rawSideBySide').spread,
		});
		const p50 = (name: string) => median(cell[name].map((r) => r.p50));
		const gate = p50('gate');
		const wrong = Object.values(cell).some((runs) => runs.some((r) => r.wrong));
		const judged = latencyMs === 150 && concurrency === 1;
		results.push({
			name: `payment gate, latency ${latencyMs} ms, ${concurrency} at a time`,
			figures,
			ratio: ratio(gate, p50('rawSideBySide')),
			baseline:
				"the Gate's requests sent directly in its order: store; both checks and the person read side by side; the payment's open-alerts lookup (raw keep-alive client, p50 medians over the runs)",
			goal: judged
				? 'Gate p50 <= 1.15 × that, and below the HTTP Request nodes making the same requests (httpBare); every answer clear'
				: 'reported; every answer clear',
			met: judged
				? gate <= 1.15 * p50('rawSideBySide') && gate < p50('httpBare') && !wrong
				: wrong
					? false
					: undefined,
		});
	}
	const clean = cells.get(`${BLOCKED_LATENCY_MS}/1`)?.gate ?? [];
	const blockedP50 = median(blocked.map((r) => r.p50));
	const rawBlockedP50 = median(rawBlocked.map((r) => r.p50));
	const blockedWrong = [...blocked, ...rawBlocked].reduce((sum, r) => sum + r.wrong, 0);
	results.push({
		name: `payment gate, blocked payments (an amount the monitoring check raises an alert for), latency ${BLOCKED_LATENCY_MS} ms, 1 at a time`,
		figures: {
			payments: count,
			runs: blocked.length,
			load1: spread(blockedLoad),
			gateBlockedP50Ms: blockedP50,
			gateBlockedP99Ms: median(blocked.map((r) => r.p99)),
			gateBlockedCpuMs: median(blocked.map((r) => r.cpuMs)),
			rawBlockedP50Ms: rawBlockedP50,
			rawBlockedP99Ms: median(rawBlocked.map((r) => r.p99)),
			gateCleanP50Ms: median(clean.map((r) => r.p50)),
			gateBlockedVsCleanP50: ratio(blockedP50, median(clean.map((r) => r.p50))),
			gateBlockedVsRawBlockedP50: spread(blocked.map((r, i) => ratio(r.p50, rawBlocked[i].p50))),
			wrong: blockedWrong,
		},
		ratio: ratio(blockedP50, rawBlockedP50),
		baseline:
			'the requests the Gate makes for it sent directly in its order: store; both checks and the person read side by side (no lookup: a check raised an alert)',
		goal: 'reported (its record follows the answer); every answer block',
		met: blockedWrong ? false : undefined,
	});
	results.push({
		name: 'payment gate, three-node AML gate vs the HTTP Request nodes (latency 0, 1 at a time)',
		figures: {
			runs: overhead.length,
			p50RatioMedian: median(overhead),
			p50RatioSpread: spread(overhead),
			// n8n's CPU per payment, three-node AML gate / HTTP Request nodes, every cell and run
			cpuRatioMedian: median(cpuOverhead),
			cpuRatioSpread: spread(cpuOverhead),
		},
		ratio: median(overhead),
		baseline:
			"httpBare: the Gate's requests through n8n HTTP Request nodes (five nodes: store, Set, Split Out, checks and person read as three items, lookup); the three-node gate sends five requests in a row from three nodes, so this is not what the AML node adds node for node (bench/gateNodes.ts measures that)",
		goal: 'reported',
	});
	return results;
}
