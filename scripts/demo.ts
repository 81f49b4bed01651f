/**
 * `npm run demo` (through scripts/demo.sh, which installs and builds first): the AML sandbox (its CLI), a real n8n
 * with this package installed as a community node, an owner login, an AML credential pointing at the sandbox
 * and the example workflows of examples/. Prints the editor URL and the login; Ctrl-C stops everything.
 *
 *   AML_DEMO_DIR           n8n user folder, kept between runs (default <repo>/.n8n-demo)
 *   AML_DEMO_PORT          n8n port (default 5678, a free one when taken)
 *   AML_DEMO_SANDBOX_PORT  sandbox port (default 0 = a free one)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as readline from 'node:readline';

import { N8nClient, sandboxCredentialData, type CredentialRef } from '../test/harness/client';
import { importExamples } from '../test/harness/examples';
import { DEFAULT_OWNER, REPO_ROOT, freePort, startN8n, type N8nInstance } from '../test/harness/n8n';
import { startQueueCluster, type QueueCluster } from '../test/harness/queue';

interface DemoState {
	apiKey?: string;
	credentialId?: string;
	/** Credentials the demo chooses in the examples, by type → id. */
	credentials?: Record<string, string>;
}

/**
 * `npm run dev` (`--dev`): what `n8n-node dev --external-n8n` does, on the n8n this project installs: TypeScript in
 * watch mode, the package linked into the user folder's `.n8n/custom`, n8n with N8N_DEV_RELOAD=true, which reloads
 * the nodes on every rebuild.
 */
const devMode = process.argv.includes('--dev');
const demoDir = path.resolve(process.env.AML_DEMO_DIR ?? path.join(REPO_ROOT, devMode ? '.n8n-dev' : '.n8n-demo'));
const stateFile = path.join(demoDir, 'demo-state.json');

async function portFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** Starts the sandbox CLI and waits for its `AML sandbox: api=… token=… control=…` line. */
async function startSandboxCli(port: number): Promise<{ child: ChildProcess; baseUrl: string; tokenUrl: string; controlUrl: string; clientId: string; clientSecret: string }> {
	const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const child = spawn(tsx, [path.join(REPO_ROOT, 'test', 'sandbox', 'cli.ts'), '--port', String(port)], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
		detached: true,
	});
	return await new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('the sandbox did not start within 60 s')), 60_000);
		child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) during start`)));
		const lines = readline.createInterface({ input: child.stdout! });
		lines.on('line', (line) => {
			const m = /^AML sandbox: api=(\S+) token=(\S+) control=(\S+) client_id=(\S+) client_secret=(\S+)/.exec(line);
			if (m) {
				clearTimeout(timer);
				resolve({ child, baseUrl: m[1], tokenUrl: m[2], controlUrl: m[3], clientId: m[4], clientSecret: m[5] });
			} else {
				console.log(`[sandbox] ${line}`);
			}
		});
	});
}

function stopGroup(child: ChildProcess | undefined): void {
	if (!child?.pid || child.exitCode !== null) return;
	try {
		process.kill(-child.pid, 'SIGTERM');
	} catch {
		/* gone */
	}
}

async function main(): Promise<void> {
	fs.mkdirSync(demoDir, { recursive: true });
	const state: DemoState = fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : {};
	let sandbox: Awaited<ReturnType<typeof startSandboxCli>> | undefined;
	let n8n: N8nInstance | undefined;
	// `npm run demo -- --queue`: n8n's queue mode (PostgreSQL, Redis, main, 2 workers, 2 webhook processes), fresh each time
	const queueMode = process.argv.includes('--queue');
	let cluster: QueueCluster | undefined;
	let stopping = false;
	const shutdown = async (code: number) => {
		if (stopping) return;
		stopping = true;
		console.log('\nstopping n8n and the sandbox …');
		if (cluster) await cluster.stop().catch(() => undefined);
		else await n8n?.stop().catch(() => undefined);
		stopGroup(sandbox?.child);
		process.exit(code);
	};
	process.on('SIGINT', () => void shutdown(0));
	process.on('SIGTERM', () => void shutdown(0));
	process.on('SIGHUP', () => void shutdown(0));

	try {
		const sandboxPort = Number(process.env.AML_DEMO_SANDBOX_PORT ?? 0);
		sandbox = await startSandboxCli(sandboxPort);
		const sandboxChild = sandbox.child;
		process.on('exit', () => stopGroup(sandboxChild));
		console.log(`sandbox:  ${sandbox.baseUrl}  (token ${sandbox.tokenUrl}, control ${sandbox.controlUrl})`);

		const started = Date.now();
		if (queueMode) {
			console.log('starting n8n in queue mode (PostgreSQL, Redis, main, 2 workers, 2 webhook processes) …');
			cluster = await startQueueCluster({ workers: 2, webhooks: 2 });
			n8n = cluster.main;
			state.apiKey = undefined;
			state.credentialId = undefined;
		} else {
			const wanted = Number(process.env.AML_DEMO_PORT ?? 5678);
			const port = (await portFree(wanted)) ? wanted : await freePort();
			if (devMode) {
				// The package as a custom node package (`.n8n/custom/node_modules/<name>`), which n8n watches with
				// N8N_DEV_RELOAD. TypeScript compiles straight into it: n8n's watcher does not follow a symlink into the
				// repository, and linking the whole repository (as `n8n-node dev` does) makes n8n load files of its
				// devDependencies. Icons and codex files come from the build that ran before.
				const target = path.join(demoDir, '.n8n', 'custom', 'node_modules', 'n8n-nodes-aml');
				fs.rmSync(path.join(demoDir, '.n8n', 'custom'), { recursive: true, force: true });
				fs.mkdirSync(target, { recursive: true });
				fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(target, 'package.json'));
				fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
				const tsc = spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['--watch', '--preserveWatchOutput', '-p', 'tsconfig.json', '--outDir', path.join(target, 'dist')], {
					cwd: REPO_ROOT,
					stdio: ['ignore', 'inherit', 'inherit'],
					detached: true,
				});
				process.on('exit', () => stopGroup(tsc));
				console.log(`TypeScript in watch mode into ${target}; n8n reloads the nodes when they change`);
			}
			console.log(`starting n8n on port ${port} (user folder ${demoDir}) …`);
			// a persistent user folder keeps the owner: startN8n logs in when the set-up was done before
			n8n = await startN8n({
				userFolder: demoDir,
				port,
				owner: DEFAULT_OWNER,
				apiKey: state.apiKey,
				apiKeyLabel: 'demo',
				...(devMode ? { linkPackage: false, env: { N8N_DEV_RELOAD: 'true' } } : {}),
			});
		}
		console.log(`n8n ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
		state.apiKey = n8n.apiKey;
		const client = new N8nClient(n8n.baseUrl, n8n.apiKey);

		const data = sandboxCredentialData(sandbox);
		let credential: CredentialRef | undefined;
		if (state.credentialId) {
			credential = await client.updateCredential(state.credentialId, data, 'AML sandbox').catch(() => undefined);
		}
		if (!credential) credential = await client.createCredential('AML sandbox', 'amlOAuth2Api', data);
		state.credentialId = credential.id;
		if (!queueMode) fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));
		const test = await client.testCredential(credential.id).catch((e: Error) => ({ status: 'Error', message: e.message }));
		console.log(`credential "AML sandbox" (${credential.id}) → ${sandbox.baseUrl}: test ${test.status}${test.message ? ` (${test.message})` : ''}`);

		// The examples are imported as shipped; then the demo chooses credentials as a user would after import: the AML
		// credential, and stand-ins for the gate's header auth and the trigger's HMAC secret (printed below). Slack and
		// Jira credentials are left to choose in the editor.
		const gateKey = { name: 'X-Core-Banking-Key', value: 'aml-demo-gate-key' };
		const signing = { method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: 'aml-demo-signing-secret' };
		const extra: Record<string, CredentialRef> = {};
		for (const [type, name, data] of [
			['httpHeaderAuth', 'Core banking header auth (demo)', gateKey],
			['amlWebhookApi', 'AML webhook secret (demo)', signing],
		] as const) {
			const known = state.credentials?.[type];
			let ref = known ? await client.updateCredential(known, data, name).catch(() => undefined) : undefined;
			if (!ref) ref = await client.createCredential(name, type, data);
			extra[type] = ref;
			state.credentials = { ...(state.credentials ?? {}), [type]: ref.id };
		}
		fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));

		const imported = await importExamples(client, { sandboxUrl: sandbox.baseUrl, credentials: { amlOAuth2Api: credential, ...extra } });
		for (const w of imported) {
			console.log(`example ${w.updated ? 'updated' : 'imported'}: ${w.name}  ${n8n.baseUrl}/workflow/${w.id}${w.toChoose.length ? `  (choose in the editor: ${w.toChoose.join(', ')})` : ''}`);
		}
		console.log(`transaction gate: header ${gateKey.name}: ${gateKey.value}; AML Trigger HMAC secret: ${signing.hmacSecret} (header ${signing.hmacHeaderName})`);
		if (!imported.length) console.log('no example workflows in examples/');

		console.log('');
		console.log(`n8n editor:  ${n8n.baseUrl}`);
		console.log(`login:       ${n8n.owner.email}  /  ${n8n.owner.password}`);
		console.log(`n8n log:     ${n8n.logFile}`);
		if (cluster) {
			for (const w of cluster.webhooks) console.log(`webhook process: ${w.url}/webhook/…  (log ${w.logFile})`);
			for (const w of cluster.workers) console.log(`worker:          ${w.name}  (log ${w.logFile})`);
		}
		console.log('Ctrl-C stops n8n and the sandbox.');
		await new Promise(() => undefined);
	} catch (error) {
		console.error(`demo failed: ${(error as Error).message}`);
		await shutdown(1);
	}
}

void main();
