import axios, { type AxiosInstance } from 'axios';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Runs scripts/install-n8n.sh (cached) and returns the Node 24 binary and the n8n entry script. */
export function ensureN8nInstalled(): { node: string; n8n: string } {
	const out = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'install-n8n.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const vars = Object.fromEntries(
		out
			.split('\n')
			.filter((line) => line.includes('='))
			.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
	);
	return { node: vars.AML_NODE24, n8n: vars.AML_N8N_BIN };
}

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

export interface N8nInstance {
	baseUrl: string;
	apiKey: string;
	owner: { email: string; password: string };
	userFolder: string;
	logFile: string;
	api: AxiosInstance;
	rest: AxiosInstance;
	stop(): Promise<void>;
}

export interface StartOptions {
	userFolder?: string;
	port?: number;
	env?: Record<string, string>;
	/** Link this package into the user folder the way users install community nodes. */
	linkPackage?: boolean;
	owner?: { email: string; password: string };
}

/** Installs the package as a community node: `<user folder>/.n8n/nodes/node_modules/n8n-nodes-aml`. */
export function linkPackage(userFolder: string): void {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', 'n8n-nodes-aml');
	fs.mkdirSync(path.dirname(target), { recursive: true });
	if (!fs.existsSync(path.join(nodesDir, 'package.json'))) {
		fs.writeFileSync(
			path.join(nodesDir, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { 'n8n-nodes-aml': `file:${REPO_ROOT}` } }, null, 2),
		);
	}
	fs.rmSync(target, { recursive: true, force: true });
	fs.symlinkSync(REPO_ROOT, target, 'dir');
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
	const started = Date.now();
	while (Date.now() - started < timeoutMs) {
		if (await check().catch(() => false)) return;
		await new Promise((r) => setTimeout(r, 250));
	}
	throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export async function startN8n(options: StartOptions = {}): Promise<N8nInstance> {
	const { node, n8n } = ensureN8nInstalled();
	const userFolder = options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'aml-n8n-'));
	fs.mkdirSync(userFolder, { recursive: true });
	if (options.linkPackage !== false) linkPackage(userFolder);
	const port = options.port ?? (await freePort());
	const brokerPort = await freePort();
	const logFile = path.join(userFolder, 'n8n.log');
	const log = fs.openSync(logFile, 'a');
	// jest sets NODE_ENV=test, which changes how n8n starts: pass a clean environment.
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([key]) => !/^(NODE_ENV|JEST_|N8N_|DB_|EXECUTIONS_|WEBHOOK_URL)/.test(key)),
	) as Record<string, string>;
	const env: Record<string, string> = {
		...inherited,
		NODE_ENV: 'production',
		PATH: `${path.dirname(node)}:${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		DB_SQLITE_POOL_SIZE: '4',
		...(options.env ?? {}),
	};
	const child: ChildProcess = spawn(node, [n8n, 'start'], {
		env,
		stdio: ['ignore', log, log],
		detached: true,
	});
	const baseUrl = `http://127.0.0.1:${port}`;
	let exited = false;
	child.on('exit', () => (exited = true));
	const stop = async () => {
		if (exited || child.pid === undefined) return;
		try {
			process.kill(-child.pid, 'SIGTERM');
		} catch {
			/* already gone */
		}
		const started = Date.now();
		while (!exited && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 100));
		if (!exited) {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}
		fs.closeSync(log);
	};
	try {
		await waitFor(
			async () => {
				if (exited) throw new Error(`n8n exited during start; see ${logFile}`);
				return (await axios.get(`${baseUrl}/healthz/readiness`, { validateStatus: () => true })).status === 200;
			},
			120_000,
			'n8n readiness',
		);
		const owner = options.owner ?? { email: 'owner@aml-demo.test', password: 'AmlDemo-Passw0rd' };
		const rest = axios.create({ baseURL: `${baseUrl}/rest`, validateStatus: () => true });
		let cookie = '';
		const setup = await rest.post('/owner/setup', { email: owner.email, firstName: 'AML', lastName: 'Owner', password: owner.password });
		if (setup.status === 200) {
			cookie = String(setup.headers['set-cookie']?.[0] ?? '').split(';')[0];
		} else {
			const login = await rest.post('/login', { emailOrLdapLoginId: owner.email, password: owner.password });
			if (login.status !== 200) throw new Error(`n8n owner setup/login failed: ${setup.status} ${JSON.stringify(login.data)}`);
			cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0];
		}
		rest.defaults.headers.common.Cookie = cookie;
		const scopes = (await rest.get('/api-keys/scopes')).data.data;
		const created = await rest.post('/api-keys', { label: `tests-${Date.now()}`, scopes, expiresAt: null });
		if (created.status !== 200) throw new Error(`API key creation failed: ${JSON.stringify(created.data)}`);
		const apiKey = created.data.data.rawApiKey as string;
		const api = axios.create({ baseURL: `${baseUrl}/api/v1`, headers: { 'X-N8N-API-KEY': apiKey }, validateStatus: () => true });
		return { baseUrl, apiKey, owner, userFolder, logFile, api, rest, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}
