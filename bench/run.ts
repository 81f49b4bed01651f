/**
 * Benchmarks in real n8n against the sandbox. Every timing is a ratio against a baseline measured in the
 * same run (absolute times are noise on these machines).
 *   npm run bench                       full size; writes bench/results/full.json
 *   npm run bench -- --quick            a tenth of the size; writes bench/results/quick.json
 *   npm run bench -- --only=upload,...  only these scenarios (create, returnAll, upload, webhook, gate, package)
 *   npm run bench -- --queue [--quick]  n8n's queue mode (1 and 2 workers, 2 webhook processes) vs one process:
 *                                       bench/queue.ts; writes bench/results/queue(.quick).json
 *   npm run bench -- --auth-path [--quick]  n8n's httpRequestWithAuthentication (shipped) vs the former token path,
 *                                       10,000 creates on n8n 1.123.81 and 2.41.1: bench/authPath.ts; bench/results/auth-path.json
 *   npm run bench -- --n8n-env=N8N_EXPRESSION_ENGINE=legacy   an n8n setting for this run (repeatable); results in
 *                                       bench/results/quick.N8N_EXPRESSION_ENGINE.json
 */
import axios from 'axios';
import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox } from '../test/sandbox';
import { N8nClient, sandboxCredentialData } from '../test/harness/client';
import { REPO_ROOT, startN8n } from '../test/harness/n8n';
import type { BenchEnv, Result } from './lib';
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
/** n8n settings for this run (`--n8n-env=KEY=VALUE`), e.g. to compare n8n's expression engines. */
const n8nEnv = Object.fromEntries(
	process.argv
		.filter((a) => a.startsWith('--n8n-env='))
		.map((a) => {
			const [key, ...value] = a.slice('--n8n-env='.length).split('=');
			return [key, value.join('=')];
		}),
);

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
	execSync('npm run -s build', { cwd: REPO_ROOT, stdio: 'inherit' });
	const sb = await startSandbox({ quiet: true });
	const n8n = await startN8n({ env: n8nEnv });
	const client = new N8nClient(n8n.baseUrl, n8n.apiKey);
	const credential = await client.createCredential(
		'bench',
		'amlOAuth2Api',
		sandboxCredentialData(sb),
	);
	const env: BenchEnv = {
		quick,
		scale: quick ? 0.1 : 1,
		sb,
		n8n,
		client,
		control: axios.create({ baseURL: sb.controlUrl }),
		credentials: { amlOAuth2Api: credential },
	};
	const started = Date.now();
	// A run with n8n settings of its own is kept apart, named by the settings: bench/results/quick.N8N_EXPRESSION_ENGINE.json.
	const file = path.join(
		REPO_ROOT,
		'bench',
		'results',
		`${[quick ? 'quick' : 'full', ...Object.keys(n8nEnv)].join('.')}.json`,
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
					n8nEnv,
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
		for (const [name, run] of scenarios) {
			if (only && !only.includes(name)) continue;
			const t = Date.now();
			try {
				results.push(...(await run(env)));
			} catch (error) {
				results.push({ name, figures: { error: (error as Error).message } });
			}
			console.log(`-- ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
			save();
		}
	} finally {
		await n8n.stop();
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
