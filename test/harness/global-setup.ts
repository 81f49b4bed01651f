import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox } from '../sandbox';
import { N8nClient } from './client';
import { REPO_ROOT, startN8n } from './n8n';

/** jest global set-up of the e2e project: build, sandbox, real n8n with the package, AML credential. */
export default async function globalSetup(): Promise<void> {
	const started = Date.now();
	if (process.env.AML_E2E_SKIP_BUILD !== '1') execSync('npm run -s build', { cwd: REPO_ROOT, stdio: 'inherit' });
	const sandbox = await startSandbox({ quiet: true, webhookRetryScale: 0.001 });
	const instance = await startN8n();
	const client = new N8nClient(instance.baseUrl, instance.apiKey);
	const credential = await client.createCredential('AML sandbox', 'amlOAuth2Api', {
		baseUrl: sandbox.baseUrl,
		apiPathPrefix: '/api',
		accessTokenUrl: sandbox.tokenUrl,
		clientId: sandbox.clientId,
		clientSecret: sandbox.clientSecret,
		scope: 'aml',
	});
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-e2e-'));
	const file = path.join(dir, 'context.json');
	fs.writeFileSync(
		file,
		JSON.stringify({
			n8n: { baseUrl: instance.baseUrl, apiKey: instance.apiKey, logFile: instance.logFile, userFolder: instance.userFolder },
			sandbox: { baseUrl: sandbox.baseUrl, tokenUrl: sandbox.tokenUrl, controlUrl: sandbox.controlUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
			credential,
		}),
	);
	process.env.AML_E2E_CONTEXT = file;
	(globalThis as Record<string, unknown>).__AML_E2E__ = { sandbox, instance, dir };
	console.log(`\n[e2e] sandbox ${sandbox.baseUrl}, n8n ${instance.baseUrl} ready in ${Date.now() - started} ms`);
}
