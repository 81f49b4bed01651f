import type { Config } from '@jest/types';
import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox } from '../sandbox';
import { N8nClient, sandboxCredentialData } from './client';
import { fileTag, tokenUrlOf } from './context';
import { REPO_ROOT, ensureN8nInstalled, startN8n } from './n8n';
import { startSlackStandIn } from './slack';

/**
 * jest global set-up of the e2e project: build, n8n installed (cached), sandbox in-process, real n8n with the
 * package linked, AML credential pointing at the sandbox. Connection facts go to a JSON file whose path is
 * AML_E2E_CONTEXT (read by test/harness/context.ts in the test workers).
 *
 *   AML_E2E_SKIP_BUILD=1  do not run `npm run build` (scripts/test.sh builds once before the suites)
 *   AML_KEEP_N8N=1        keep n8n's user folder (database, log) after the run
 *
 * n8n's requests to slack.com go to a Slack stand-in (test/harness/slack.ts, through HTTPS_PROXY), so the Slack nodes
 * of the example workflows post for real and the tests read what they posted.
 *
 * The faults project loads n8n with bursts of deliveries: its n8n runs with the README's setting for webhook
 * intake, N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true. With n8n's default (an expression isolate built for every
 * delivery) a burst of 200 deliveries in 2 s on 2 cores queues n8n's own SQLite writes past their 60 s lock
 * timeout: executions end in "Timeout waiting for lock SqliteWriteConnectionMutex" and n8n may stop starting
 * executions at all (README, troubleshooting). The e2e project keeps n8n's defaults.
 */
export default async function globalSetup(
	_global: Config.GlobalConfig,
	project: Config.ProjectConfig,
): Promise<void> {
	const started = Date.now();
	if (process.env.AML_E2E_SKIP_BUILD !== '1')
		execSync('npm run -s build', { cwd: REPO_ROOT, stdio: 'inherit' });
	if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'nodes', 'Aml', 'Aml.node.js')))
		throw new Error('dist/ is missing: run npm run build');
	ensureN8nInstalled();
	const sandbox = await startSandbox({ quiet: true, webhookRetryScale: 0.001 });
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-e2e-'));
	const slack = await startSlackStandIn(dir);
	let instance;
	try {
		instance = await startN8n({
			env: {
				...slack.env,
				...(project?.displayName?.name === 'faults'
					? { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' }
					: {}),
			},
		});
	} catch (error) {
		await sandbox.close();
		await slack.close();
		throw error;
	}
	const client = new N8nClient(instance.baseUrl, instance.apiKey);
	const credential = await client.createCredential(
		'AML sandbox',
		'amlOAuth2Api',
		sandboxCredentialData(sandbox),
	);
	// One credential per test file of the project, its token URL naming the file (`?c=<file>`): the sandbox logs which
	// credential sent each request, so a file counts only its own (test/harness/context.ts `requestsSince`). Each has
	// the shared one's name, which the browser check reads in the editor.
	const files: Record<string, { id: string; name: string }> = {};
	const folder = path.join(project.rootDir, 'test', project.displayName?.name ?? '');
	for (const name of fs.existsSync(folder) ? fs.readdirSync(folder) : []) {
		if (!name.endsWith('.test.ts')) continue;
		const tag = fileTag(name);
		files[tag] = await client.createCredential(
			'AML sandbox',
			'amlOAuth2Api',
			sandboxCredentialData({ ...sandbox, tokenUrl: tokenUrlOf(sandbox.tokenUrl, tag) }),
		);
	}
	const file = path.join(dir, 'context.json');
	fs.writeFileSync(
		file,
		JSON.stringify(
			{
				n8n: {
					baseUrl: instance.baseUrl,
					apiKey: instance.apiKey,
					logFile: instance.logFile,
					userFolder: instance.userFolder,
					owner: instance.owner,
				},
				sandbox: {
					baseUrl: sandbox.baseUrl,
					tokenUrl: sandbox.tokenUrl,
					controlUrl: sandbox.controlUrl,
					clientId: sandbox.clientId,
					clientSecret: sandbox.clientSecret,
				},
				credential,
				files,
				slack: { url: slack.url },
			},
			null,
			2,
		),
	);
	process.env.AML_E2E_CONTEXT = file;
	(globalThis as Record<string, unknown>).__AML_E2E__ = { sandbox, instance, dir, slack };
	console.log(
		`\n[e2e] sandbox ${sandbox.baseUrl}, n8n ${instance.baseUrl} (started in ${instance.startMs} ms), ready in ${Date.now() - started} ms; n8n log ${instance.logFile}`,
	);
}
