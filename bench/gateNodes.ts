/**
 * Where a payment's time goes, node by node: the three-node AML gate (Store, Monitoring, Screening) against three
 * HTTP Request nodes in a row making the store and the two checks, in one n8n 2.41.1 against the sandbox, one payment
 * at a time. Each AML check node also looks up the payment's open alerts after an empty answer (one request more per
 * check node than its HTTP Request counterpart).
 *   npx tsx bench/gateNodes.ts [--runs=6] [--payments=50] [--n8n-env=KEY=VALUE] [--credential='{"field":"value"}']
 * Prints each run's client p50 (the gates alternate which goes first), then from n8n's stored executions the median
 * of each node's `executionTime`, of when each node started and ended after the execution's start, and of the
 * execution's own length. With `--n8n-env="NODE_OPTIONS=--cpu-prof --cpu-prof-dir=DIR" --runs=1 --gap=6000` the CPU
 * profile shows the two gates apart (6 s idle between them): `node bench/cpuprofile.js FILE`.
 * `--credential` overrides fields of the AML credential (e.g. to compare its defaults with plain values).
 */
import axios from 'axios';

import { startSandbox } from '../test/sandbox';
import { N8nClient, sandboxCredentialData } from '../test/harness/client';
import { startN8n } from '../test/harness/n8n';
import {
	arg,
	genericOAuth2Credential,
	n8nSettingsFromArgs,
	percentile,
	type BenchEnv,
} from './lib';
import { drive, warm } from './scenarios/gateClients';
import { gates, httpThreeInRow, publish, type Gate } from './scenarios/gateWorkflows';

const GATES = ['threeNode', 'httpThree'] as const;
const runs = Number(arg('runs') ?? 6);
const payments = Number(arg('payments') ?? 50);
const gapMs = Number(arg('gap') ?? 0);

const median = (values: number[]) => percentile(values, 50);

async function main(): Promise<void> {
	const sb = await startSandbox({ quiet: true });
	const n8n = await startN8n({ env: n8nSettingsFromArgs() });
	try {
		const client = new N8nClient(n8n.baseUrl, n8n.apiKey);
		const overrides = arg('credential') ? JSON.parse(arg('credential') as string) : {};
		const credential = await client.createCredential(
			'bench gate nodes',
			'amlOAuth2Api',
			sandboxCredentialData(sb, overrides),
		);
		const control = axios.create({ baseURL: sb.controlUrl });
		await control.post('/config', { tokenLifetimeSeconds: 3600 });
		const env: BenchEnv = {
			quick: true,
			scale: 0.1,
			runs,
			sb,
			n8n,
			client,
			control,
			credentials: { amlOAuth2Api: credential },
		};
		const oauth2 = await genericOAuth2Credential(env, 'bench gate nodes oauth2');
		const all = { threeNode: gates(env, oauth2).threeNode, httpThree: httpThreeInRow(env, oauth2) };
		const published = {} as Record<(typeof GATES)[number], { id: string; url: string; gate: Gate }>;
		for (const name of GATES)
			published[name] = { ...(await publish(env, name, all[name])), gate: all[name] };
		await warm(GATES.map((name) => published[name].url));
		for (let run = 0; run < runs; run++)
			for (const name of run % 2 ? [...GATES].reverse() : GATES) {
				await new Promise((r) => setTimeout(r, gapMs));
				const cell = await drive(
					() => 0,
					[published[name].url],
					published[name].gate.clear,
					payments,
					1,
				);
				console.log(
					`run ${run} ${name}: p50 ${cell.p50} ms, p99 ${cell.p99} ms, wrong ${cell.wrong}`,
				);
			}
		for (const name of GATES) {
			const figures: Record<string, number[]> = {};
			const add = (key: string, value: number) => (figures[key] ??= []).push(value);
			const listed = await client.listExecutions(published[name].id, { limit: 100 });
			for (const { id } of listed) {
				const execution = await client.getExecution(id, true);
				const start = Date.parse(execution.startedAt);
				add('execution', Date.parse(execution.stoppedAt) - start);
				for (const [node, nodeRuns] of Object.entries<any>(execution.data.resultData.runData)) {
					add(`${node} executionTime`, nodeRuns[0].executionTime);
					add(`${node} starts at`, nodeRuns[0].startTime - start);
					add(`${node} ends at`, nodeRuns[0].startTime + nodeRuns[0].executionTime - start);
				}
			}
			console.log(`${name}, medians over the last ${listed.length} executions (ms):`);
			for (const [key, values] of Object.entries(figures))
				console.log(`  ${key}: ${median(values)}`);
		}
	} finally {
		await n8n.stop();
		await sb.close();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
