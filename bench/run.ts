/**
 * Benchmarks in real n8n against the sandbox. Every timing is a ratio against a baseline measured in the
 * same run (absolute times are noise on these machines).
 *   npm run bench                       full size; writes bench/results/full.json
 *   npm run bench -- --quick            a tenth of the size; writes bench/results/quick.json
 *   npm run bench -- --only=upload,...  only these scenarios (create, returnAll, upload, webhook, gate, package); one
 *                                       scenario alone writes bench/results/<name>.quick.json (or <name>.full.json)
 *   npm run bench -- --queue [--quick]  n8n's queue mode (1 and 2 workers, 2 webhook processes) vs one process:
 *                                       bench/queue.ts; writes bench/results/queue(.quick).json
 *   npm run bench -- --queue --gate [--quick]  the payment gate in queue mode (1 and 2 workers, 8 and 16 at a time):
 *                                       bench/queue.ts; writes bench/results/queue-gate(.quick).json
 *   npm run bench -- --auth-path [--quick]  n8n's httpRequestWithAuthentication (shipped) vs the former token path,
 *                                       10,000 creates on n8n 1.123.81 and 2.41.1: bench/authPath.ts; bench/results/auth-path.json
 *   npm run bench -- --n8n-env=N8N_EXPRESSION_ENGINE=legacy   an n8n setting for this run (repeatable); results in
 *                                       bench/results/quick.N8N_EXPRESSION_ENGINE.json
 *   npm run bench -- --engine=legacy    the same as --n8n-env=N8N_EXPRESSION_ENGINE=legacy (n8n's values: vm, its
 *                                       default, and legacy)
 *   npm run bench -- --saving=off       n8n keeps no successful execution: --n8n-env=EXECUTIONS_DATA_SAVE_ON_SUCCESS=none
 *   npm run bench -- --settings-matrix  the chosen scenarios once per combination of engine (default, legacy) and
 *                                       execution saving (on, off), each in a fresh n8n; one file <name>.settings.json
 *   npm run bench -- --runs=3           scenarios that repeat their measurement (gate) do so 3 times, spread reported
 * With --only=gate alone the file is named gate.<size>….json.
 */
import axios from 'axios';
import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox } from '../test/sandbox';
import { N8nClient, sandboxCredentialData } from '../test/harness/client';
import { REPO_ROOT, startN8n } from '../test/harness/n8n';
import {
	ENGINE_LEGACY,
	SAVING_OFF,
	arg,
	n8nSettingsFromArgs,
	type BenchEnv,
	type Result,
} from './lib';
import { createTransactions } from './scenarios/create';
import { paymentGate } from './scenarios/gate';
import { returnAllPersons } from './scenarios/returnAll';
import { uploadCsv } from './scenarios/upload';
import { webhookIntake } from './scenarios/webhook';

const quick = process.argv.includes('--quick');
const only = process.argv
	.find((a) => a.startsWith('--only='))
	?.slice('--only='.length)
	.split(',');
const runs = Math.max(1, Number(arg('runs') ?? 1));
/** n8n settings for this run (`--n8n-env=KEY=VALUE`, `--engine=legacy`, `--saving=off`). */
const n8nEnv = n8nSettingsFromArgs();
/** `--settings-matrix`: each combination of expression engine and execution saving, in a fresh n8n. */
const SETTINGS: Array<[string, Record<string, string>]> = process.argv.includes('--settings-matrix')
	? [
			['engine default, saving on', {}],
			['engine default, saving off', SAVING_OFF],
			['engine legacy, saving on', ENGINE_LEGACY],
			['engine legacy, saving off', { ...ENGINE_LEGACY, ...SAVING_OFF }],
		].map(([label, env]) => [label as string, { ...(env as object), ...n8nEnv }])
	: [['', n8nEnv]];

/** 6. Package cost: packed size and how long n8n takes to start with the package. */
async function packageCost(env: BenchEnv): Promise<Result[]> {
	const pack = JSON.parse(
		execSync('npm pack --dry-run --json', {
			cwd: REPO_ROOT,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}),
	)[0];
	return [
		{
			name: 'package',
			figures: {
				packedKb: Math.round(pack.size / 1024),
				unpackedKb: Math.round(pack.unpackedSize / 1024),
				files: pack.entryCount,
				n8nStartMs: env.n8n.startMs ?? 'n/a',
			},
		},
	];
}

const scenarios: Array<[string, (env: BenchEnv) => Promise<Result[]>]> = [
	['create', createTransactions],
	['returnAll', returnAllPersons],
	['upload', uploadCsv],
	['webhook', webhookIntake],
	['gate', paymentGate],
	['package', packageCost],
];

async function main(): Promise<void> {
	const results: Result[] = [];
	/** Scenarios that threw: the run still writes what the others measured, then exits non-zero. */
	const failed: string[] = [];
	execSync('npm run -s build', { cwd: REPO_ROOT, stdio: 'inherit' });
	const sb = await startSandbox({ quiet: true });
	const started = Date.now();
	const matrix = SETTINGS.length > 1;
	// A run of one scenario, or with n8n settings of its own, is kept apart, named by them: bench/results/gate.quick.json,
	// webhook.quick.json, quick.N8N_EXPRESSION_ENGINE.json.
	const file = path.join(
		REPO_ROOT,
		'bench',
		'results',
		`${[
			...(only?.length === 1 ? [only[0]] : []),
			quick ? 'quick' : 'full',
			...(matrix ? ['settings'] : Object.keys(n8nEnv)),
		].join('.')}.json`,
	);
	// Written after every scenario, so a long run that breaks keeps what it measured.
	const save = () => {
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(
			file,
			JSON.stringify(
				{
					date: new Date().toISOString(),
					quick,
					runs,
					n8nEnv: matrix ? Object.fromEntries(SETTINGS) : n8nEnv,
					seconds: Math.round((Date.now() - started) / 1000),
					cores: os.cpus().length,
					loadAverage: os.loadavg()[0],
					results,
				},
				null,
				2,
			),
		);
	};
	try {
		for (const [label, settings] of SETTINGS) {
			const n8n = await startN8n({ env: settings });
			try {
				const client = new N8nClient(n8n.baseUrl, n8n.apiKey);
				const credential = await client.createCredential(
					'bench',
					'amlOAuth2Api',
					sandboxCredentialData(sb),
				);
				const env: BenchEnv = {
					quick,
					scale: quick ? 0.1 : 1,
					runs,
					sb,
					n8n,
					client,
					control: axios.create({ baseURL: sb.controlUrl }),
					credentials: { amlOAuth2Api: credential },
				};
				for (const [name, run] of scenarios) {
					if (only && !only.includes(name)) continue;
					const t = Date.now();
					const measured: Result[] = [];
					try {
						measured.push(...(await run(env)));
					} catch (error) {
						measured.push({ name, figures: { error: (error as Error).message } });
						failed.push(`${label ? `${label}: ` : ''}${name}: ${(error as Error).message}`);
					}
					results.push(...measured.map((r) => (label ? { ...r, name: `${label}: ${r.name}` } : r)));
					console.log(
						`-- ${label ? `${label}: ` : ''}${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`,
					);
					save();
				}
			} finally {
				await n8n.stop();
			}
		}
	} finally {
		await sb.close();
	}

	console.log('\n| scenario | figures | ratio | goal | met |\n|---|---|---|---|---|');
	for (const r of results) {
		console.log(
			`| ${r.name} | ${Object.entries(r.figures)
				.map(([k, v]) => `${k}=${v}`)
				.join(
					', ',
				)} | ${r.ratio ?? ''} | ${r.goal ?? ''} | ${r.met === undefined ? '' : r.met ? 'yes' : 'no'} |`,
		);
	}
	console.log(`\nwritten to ${path.relative(REPO_ROOT, file)}`);
	if (failed.length) {
		console.error(
			`\n${failed.length} scenario(s) failed:\n${failed.map((f) => `  ${f}`).join('\n')}`,
		);
		process.exitCode = 1;
	}
}

// `--queue`: n8n's queue mode against the regular single process (bench/queue.ts runs on import)
if (process.argv.includes('--queue')) void import('./queue');
// `--auth-path`: n8n's httpRequestWithAuthentication (shipped) vs the former token path, on the oldest and newest n8n (bench/authPath.ts)
else if (process.argv.includes('--auth-path')) void import('./authPath');
else
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
