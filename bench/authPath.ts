/**
 * `npm run bench -- --auth-path [--quick]`: the AML node's authentication, the shipped way against the way it was
 * before, on the oldest and the newest supported n8n (AML_BENCH_VERSIONS, default "1.123.81 2.41.1").
 *   helper: what the package does. Every request through n8n's `httpRequestWithAuthentication` (n8n reads and
 *           decrypts the credential and signs the request each time; it renews the token on a 401, or the node has it
 *           renewed through `refreshOAuth2Token` where n8n answers the 401).
 *   token:  the package up to commit 327fa15 (AML_TOKEN_PATH_COMMIT): a run read the token n8n stored with the
 *           credential once and sent every request through n8n's `httpRequest` with it. Built from that commit's
 *           sources into a temp folder (git archive + tsc; this repository's node_modules).
 * 10,000 transaction creates each (1,000 with --quick), 8 in parallel, against the sandbox; time from the execution's
 * start to its end. Writes bench/results/auth-path(.quick).json.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { N8nClient, sandboxCredentialData } from '../test/harness/client';
import { PACKAGE_NAME, REPO_ROOT, startN8n } from '../test/harness/n8n';
import { startSandbox } from '../test/sandbox';
import { executionMs } from './lib';

const quick = process.argv.includes('--quick');
const COUNT = quick ? 1_000 : 10_000;
const versions = (process.env.AML_BENCH_VERSIONS ?? '1.123.81 2.41.1').split(/\s+/).filter(Boolean);
const TOKEN_PATH_COMMIT = process.env.AML_TOKEN_PATH_COMMIT ?? '327fa15';

/** The package's dist as built at TOKEN_PATH_COMMIT (the token path), made once. */
let tokenPathDist: string | undefined;
function distOfTokenPath(): string {
	if (tokenPathDist) return tokenPathDist;
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-token-path-'));
	const archive = execFileSync(
		'git',
		['archive', TOKEN_PATH_COMMIT, 'nodes', 'credentials', 'tsconfig.json'],
		{ cwd: REPO_ROOT },
	);
	execFileSync('tar', ['-x', '-C', dir], { input: archive });
	fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
	execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], {
		cwd: dir,
		stdio: 'inherit',
	});
	for (const folder of ['nodes', 'credentials']) {
		fs.cpSync(path.join(dir, folder), path.join(dir, 'dist', folder), {
			recursive: true,
			filter: (src) => fs.statSync(src).isDirectory() || /\.(svg|json)$/.test(src),
		});
	}
	return (tokenPathDist = path.join(dir, 'dist'));
}

/** Installs the built package (or the token path's build) into a fresh n8n user folder, as users install it. */
function userFolderWith(mode: 'token' | 'helper'): string {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), `aml-auth-${mode}-`));
	const nodes = path.join(folder, '.n8n', 'nodes');
	const target = path.join(nodes, 'node_modules', PACKAGE_NAME);
	fs.mkdirSync(target, { recursive: true });
	fs.writeFileSync(
		path.join(nodes, 'package.json'),
		JSON.stringify({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE_NAME]: '*' },
		}),
	);
	fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(target, 'package.json'));
	fs.cpSync(
		mode === 'helper' ? path.join(REPO_ROOT, 'dist') : distOfTokenPath(),
		path.join(target, 'dist'),
		{ recursive: true },
	);
	return folder;
}

void (async () => {
	const rows: Array<Record<string, unknown>> = [];
	for (const version of versions) {
		process.env.AML_N8N_VERSION = version;
		for (const mode of ['helper', 'token'] as const) {
			const sb = await startSandbox({ quiet: true });
			const userFolder = userFolderWith(mode);
			const n8n = await startN8n({ userFolder, linkPackage: false });
			try {
				const client = new N8nClient(n8n.baseUrl, n8n.apiKey);
				const credential = await client.createCredential(
					'bench',
					'amlOAuth2Api',
					sandboxCredentialData(sb),
				);
				const node = {
					parameters: {
						resource: 'transaction',
						operation: 'create',
						personId: 'cust-1002',
						transactionId: '={{ $json.id }}',
						attributesMode: 'input',
						excludeInputFields: 'id',
						options: { parallelRequests: 8 },
					},
				};
				const opts = { credentials: { amlOAuth2Api: credential }, timeoutMs: 900_000 };
				await client.runNode(
					node,
					[
						{
							id: `warm-${mode}`,
							amount: '1.00',
							type: 'payment',
							direction: 'O',
							timestamp: '2026-11-22T10:00:00Z',
						},
					],
					opts,
				);
				const items = Array.from({ length: COUNT }, (_, i) => ({
					id: `${mode}-${i}`,
					amount: '10.00',
					type: 'payment',
					direction: 'O',
					timestamp: '2026-11-22T10:00:00Z',
				}));
				const started = Date.now();
				const run = await client.runNode(node, items, opts);
				const ms = executionMs(run.execution, Date.now() - started);
				const ok = (run.outputs[0] ?? []).length;
				rows.push({
					n8n: version,
					path: mode,
					items: COUNT,
					ok,
					status: run.status,
					ms,
					perSecond: Math.round((COUNT / ms) * 1000),
				});
				console.log(JSON.stringify(rows[rows.length - 1]));
			} finally {
				await n8n.stop();
				await sb.close();
				fs.rmSync(userFolder, { recursive: true, force: true });
			}
		}
	}
	if (tokenPathDist) fs.rmSync(path.dirname(tokenPathDist), { recursive: true, force: true });
	const ratios = versions.map((v) => {
		const token = rows.find((r) => r.n8n === v && r.path === 'token');
		const helper = rows.find((r) => r.n8n === v && r.path === 'helper');
		return {
			n8n: v,
			helperOverToken:
				token && helper
					? Math.round(((helper.ms as number) / (token.ms as number)) * 100) / 100
					: undefined,
		};
	});
	const file = path.join(REPO_ROOT, 'bench', 'results', `auth-path${quick ? '.quick' : ''}.json`);
	fs.writeFileSync(
		file,
		JSON.stringify(
			{
				date: new Date().toISOString(),
				cores: os.cpus().length,
				loadAverage: os.loadavg()[0],
				rows,
				ratios,
			},
			null,
			2,
		),
	);
	console.log('\n| n8n | path | items | ok | ms | per s |\n|---|---|---|---|---|---|');
	for (const r of rows)
		console.log(`| ${r.n8n} | ${r.path} | ${r.items} | ${r.ok} | ${r.ms} | ${r.perSecond} |`);
	console.log(JSON.stringify(ratios));
	console.log(`written to ${path.relative(REPO_ROOT, file)}`);
})().catch((error) => {
	console.error(error);
	process.exit(1);
});
