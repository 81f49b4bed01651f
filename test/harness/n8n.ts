import axios, { type AxiosInstance } from 'axios';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Starts a real n8n (the version scripts/install-n8n.sh installs, on Node 24) with this package installed the
 * way users install community nodes, and prepares it for API use: owner account, API key.
 */

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-aml';
export const DEFAULT_OWNER = { email: 'owner@aml-demo.test', password: 'AmlDemo-Passw0rd' };

export interface N8nInstall {
	/** Node 24 binary. */
	node: string;
	/** n8n's entry script (run it with `node`). */
	n8n: string;
	version: string;
}

/** Runs scripts/install-n8n.sh (cached, quick when installed) and returns the Node 24 binary and the n8n entry script. */
export function ensureN8nInstalled(): N8nInstall {
	const out = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'install-n8n.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const vars: Record<string, string> = {};
	for (const line of out.split('\n')) {
		const at = line.indexOf('=');
		if (/^AML_[A-Z0-9_]+=/.test(line)) vars[line.slice(0, at)] = line.slice(at + 1);
	}
	if (!vars.AML_NODE24 || !vars.AML_N8N_BIN)
		throw new Error(`scripts/install-n8n.sh printed no paths:\n${out}`);
	return { node: vars.AML_NODE24, n8n: vars.AML_N8N_BIN, version: vars.AML_N8N_VERSION ?? '' };
}

/** A free TCP port on 127.0.0.1 (bind port 0, read it, close). */
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
	port: number;
	apiKey: string;
	owner: { email: string; password: string };
	userFolder: string;
	/** n8n's stdout and stderr. */
	logFile: string;
	/** Public API (`/api/v1`), authenticated with the API key; never throws on HTTP status. */
	api: AxiosInstance;
	/** Internal REST API (`/rest`), authenticated with the owner's session cookie; never throws on HTTP status. */
	rest: AxiosInstance;
	/** Milliseconds from spawn to ready (healthz + owner + API key). */
	startMs: number;
	pid: number;
	stop(): Promise<void>;
}

export interface StartOptions {
	/** n8n's user folder (N8N_USER_FOLDER); a fresh temp dir by default. Reusing one keeps workflows, owner, key. */
	userFolder?: string;
	port?: number;
	/** Extra environment for n8n (wins over the defaults). */
	env?: Record<string, string>;
	/** Install this package into the user folder the way users install community nodes (default true). */
	linkPackage?: boolean;
	/** 'copy' (default: package.json + dist/ copied) or 'symlink' (link to the repo). See linkPackage. */
	linkMode?: 'symlink' | 'copy';
	owner?: { email: string; password: string };
	/** An API key from an earlier start with the same user folder: reused when it still works, else a new one is made. */
	apiKey?: string;
	/** Label of a new API key (default `tests-<time>`). */
	apiKeyLabel?: string;
	/** Milliseconds to wait for n8n to be ready (default 180 s). */
	readyTimeoutMs?: number;
}

/** Files package.json lists under `n8n.nodes` / `n8n.credentials` that are missing below `root`. */
function missingEntryFiles(root: string): string[] {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const files: string[] = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
	return files.filter((f) => !fs.existsSync(path.join(root, f)));
}

/**
 * Installs the package as a community node: `<user folder>/.n8n/nodes/node_modules/n8n-nodes-aml`, plus
 * `<user folder>/.n8n/nodes/package.json` listing it, as `npm install n8n-nodes-aml` in `~/.n8n/nodes` leaves it.
 * n8n reads `package.json` → `n8n.nodes` / `n8n.credentials` (files under dist/).
 *
 * - 'copy' (default): package.json + dist/ copied, like the published package (`files: ["dist"]`). The copy
 *   resolves `n8n-workflow` through n8n's own NODE_PATH (n8n's copy, as in a real install without peer deps)
 *   and is immune to `npm run build` wiping dist/ while n8n runs.
 * - 'symlink': a link to the repo (n8n follows it; `n8n-workflow` then resolves to the repo's devDependency).
 */
export function linkPackage(userFolder: string, mode: 'symlink' | 'copy' = 'copy'): string {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.mkdirSync(path.dirname(target), { recursive: true });
	const version = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))
		.version as string;
	fs.writeFileSync(
		path.join(nodesDir, 'package.json'),
		JSON.stringify(
			{ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: version } },
			null,
			2,
		),
	);
	// dist/ may be rebuilt right now by someone else (rimraf dist && tsc): wait until it is complete
	const deadline = Date.now() + 120_000;
	for (;;) {
		const missing = missingEntryFiles(REPO_ROOT);
		if (!missing.length) break;
		if (Date.now() > deadline)
			throw new Error(`package not built, missing: ${missing.join(', ')} (run npm run build)`);
		execFileSync('sleep', ['1']);
	}
	fs.rmSync(target, { recursive: true, force: true });
	if (mode === 'symlink') {
		fs.symlinkSync(REPO_ROOT, target, 'dir');
		return target;
	}
	for (let attempt = 0; ; attempt++) {
		fs.rmSync(target, { recursive: true, force: true });
		fs.mkdirSync(target, { recursive: true });
		try {
			fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(target, 'package.json'));
			fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
			if (!missingEntryFiles(target).length) return target;
		} catch (error) {
			if (attempt >= 30) throw error;
		}
		if (attempt >= 30)
			throw new Error(`copying dist/ into ${target} kept failing (concurrent build?)`);
		execFileSync('sleep', ['1']);
	}
}

export async function waitFor(
	check: () => Promise<boolean>,
	timeoutMs: number,
	what: string,
	intervalMs = 200,
): Promise<void> {
	const started = Date.now();
	let lastError: unknown;
	while (Date.now() - started < timeoutMs) {
		try {
			if (await check()) return;
		} catch (error) {
			if ((error as { fatal?: boolean }).fatal) throw error;
			lastError = error;
		}
		await new Promise((r) => setTimeout(r, intervalMs));
	}
	throw new Error(
		`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`,
	);
}

/** Runs `task(0 … count-1)` with at most `concurrency` running at once (load generators of the tests and benchmarks). */
export async function pool<T>(
	count: number,
	concurrency: number,
	task: (i: number) => Promise<T>,
): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) await task(next++);
		}),
	);
}

/** Whether this n8n (its entry script) has the backend module `name` (n8n 2.x added several). */
function hasModule(n8nBin: string, name: string): boolean {
	return fs.existsSync(path.resolve(path.dirname(n8nBin), '..', 'dist', 'modules', name));
}

/** The environment n8n runs with: isolated, local only, quiet, synchronous workflow activation. */
export function n8nEnv(opts: {
	node: string;
	n8n: string;
	userFolder: string;
	port: number;
	brokerPort: number;
	extra?: Record<string, string>;
}): Record<string, string> {
	// jest sets NODE_ENV=test and the caller may have N8N_* settings of its own: pass a clean environment.
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(
			([key, value]) =>
				value !== undefined &&
				!/^(NODE_ENV|NODE_OPTIONS|JEST_|N8N_|DB_|EXECUTIONS_|QUEUE_|OFFLOAD_|WEBHOOK_URL|GENERIC_TIMEZONE|npm_)/.test(
					key,
				),
		),
	) as Record<string, string>;
	const baseUrl = `http://127.0.0.1:${opts.port}`;
	return {
		...inherited,
		NODE_ENV: 'production',
		PATH: `${path.dirname(opts.node)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
		N8N_USER_FOLDER: opts.userFolder,
		N8N_PORT: String(opts.port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${baseUrl}/`,
		N8N_WEBHOOK_URL: `${baseUrl}/`,
		// The task runner broker defaults to 5679 for every instance: give each one its own port.
		N8N_RUNNERS_BROKER_PORT: String(opts.brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		// Since 2.x activation goes through an outbox polled every 15 s: activate synchronously instead, so a
		// webhook answers as soon as the activate call returns.
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		// Only where this n8n has the module (n8n refuses to start when told to disable a module it does not know).
		...(hasModule(opts.n8n, 'mcp-registry') ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		N8N_SECURE_COOKIE: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		// n8n 3.0 turns unverified community packages off by default; this package is unverified until n8n verifies it
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		EXECUTIONS_DATA_PRUNE: 'false',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		// n8n 2.x's default; n8n 1.x keeps binary data in memory by default ("default" mode: a 100 MB file from disk
		// added 12x its size to n8n's memory there), and the README tells 1.x users to set this for large files.
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		DB_SQLITE_POOL_SIZE: '4',
		// n8n pings its database every 2 s and answers every request 503 "Database is not ready!" while a ping
		// is late; on a loaded test machine a busy SQLite misses the default timeout.
		DB_PING_TIMEOUT_MS: '30000',
		...(opts.extra ?? {}),
	};
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills `child`'s process group when this process exits without having stopped it (crash, Ctrl-C). */
export function killOnExit(child: ChildProcess): () => void {
	installExitHook();
	running.add(child);
	return () => running.delete(child);
}

function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	// If the parent dies without stop() (crash, Ctrl-C), do not leave n8n behind.
	process.on('exit', () => {
		for (const child of running) {
			try {
				if (child.pid) process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}
	});
}

/** Logs in (or sets up the owner on a fresh instance) and returns a REST client carrying the session cookie. */
export async function ownerSession(
	baseUrl: string,
	owner: { email: string; password: string },
): Promise<AxiosInstance> {
	const rest = axios.create({
		baseURL: `${baseUrl}/rest`,
		validateStatus: () => true,
		timeout: 60_000,
	});
	const setup = await rest.post('/owner/setup', {
		email: owner.email,
		firstName: 'AML',
		lastName: 'Owner',
		password: owner.password,
	});
	let response = setup;
	if (setup.status !== 200) {
		response = await rest.post('/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
		if (response.status !== 200) {
			throw new Error(
				`n8n owner setup (${setup.status} ${JSON.stringify(setup.data)}) and login (${response.status} ${JSON.stringify(response.data)}) failed`,
			);
		}
	}
	const cookie = (response.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
	rest.defaults.headers.common.Cookie = cookie;
	return rest;
}

/** Logs in as an existing user; returns a REST client (`/rest`) carrying the session cookie. */
export async function login(
	baseUrl: string,
	user: { email: string; password: string },
): Promise<AxiosInstance> {
	const rest = axios.create({
		baseURL: `${baseUrl}/rest`,
		validateStatus: () => true,
		timeout: 60_000,
	});
	const response = await rest.post('/login', {
		emailOrLdapLoginId: user.email,
		password: user.password,
	});
	if (response.status !== 200)
		throw new Error(`n8n login failed: ${response.status} ${JSON.stringify(response.data)}`);
	rest.defaults.headers.common.Cookie = (response.headers['set-cookie'] ?? [])
		.map((c) => c.split(';')[0])
		.join('; ');
	return rest;
}

/** Creates an API key with every scope the owner may have, no expiry. */
export async function createApiKey(
	rest: AxiosInstance,
	label = `tests-${Date.now()}`,
): Promise<string> {
	const scopes = await rest.get('/api-keys/scopes');
	if (scopes.status !== 200)
		throw new Error(`GET /rest/api-keys/scopes: ${scopes.status} ${JSON.stringify(scopes.data)}`);
	const created = await rest.post('/api-keys', {
		label,
		scopes: scopes.data.data,
		expiresAt: null,
	});
	if (created.status !== 200)
		throw new Error(`POST /rest/api-keys: ${created.status} ${JSON.stringify(created.data)}`);
	return created.data.data.rawApiKey as string;
}

export async function startN8n(options: StartOptions = {}): Promise<N8nInstance> {
	const spawnedAt = Date.now();
	const { node, n8n } = ensureN8nInstalled();
	const userFolder = options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'aml-n8n-'));
	fs.mkdirSync(userFolder, { recursive: true });
	if (options.linkPackage !== false) linkPackage(userFolder, options.linkMode);
	const port = options.port ?? (await freePort());
	const brokerPort = await freePort();
	const logFile = path.join(userFolder, 'n8n.log');
	const log = fs.openSync(logFile, 'a');
	const env = n8nEnv({ node, n8n, userFolder, port, brokerPort, extra: options.env });
	const child: ChildProcess = spawn(node, [n8n, 'start'], {
		env,
		cwd: userFolder,
		stdio: ['ignore', log, log],
		detached: true,
	});
	const forget = killOnExit(child);
	const baseUrl = `http://127.0.0.1:${port}`;
	let exited = false;
	const exitPromise = new Promise<void>((resolve) =>
		child.on('exit', () => {
			exited = true;
			forget();
			resolve();
		}),
	);
	let logClosed = false;
	const stop = async () => {
		if (!exited && child.pid !== undefined) {
			try {
				process.kill(-child.pid, 'SIGTERM');
			} catch {
				/* already gone */
			}
			const killer = setTimeout(() => {
				try {
					process.kill(-child.pid!, 'SIGKILL');
				} catch {
					/* gone */
				}
			}, 20_000);
			await exitPromise;
			clearTimeout(killer);
		}
		// the task runner is in the same process group; make sure nothing of it is left
		try {
			if (child.pid) process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* gone */
		}
		if (!logClosed) {
			logClosed = true;
			fs.closeSync(log);
		}
	};
	try {
		await waitFor(
			async () => {
				if (exited)
					throw Object.assign(new Error(`n8n exited during start; see ${logFile}`), {
						fatal: true,
					});
				if (
					(
						await axios.get(`${baseUrl}/healthz/readiness`, {
							validateStatus: () => true,
							timeout: 5000,
						})
					).status !== 200
				)
					return false;
				// n8n 1.x reports ready before its REST routes are mounted (during database migrations).
				return (
					(
						await axios.get(`${baseUrl}/rest/settings`, {
							validateStatus: () => true,
							timeout: 5000,
						})
					).status === 200
				);
			},
			options.readyTimeoutMs ?? 180_000,
			`n8n readiness at ${baseUrl} (log: ${logFile})`,
		);
		const owner = options.owner ?? DEFAULT_OWNER;
		const rest = await ownerSession(baseUrl, owner);
		const apiFor = (key: string) =>
			axios.create({
				baseURL: `${baseUrl}/api/v1`,
				headers: { 'X-N8N-API-KEY': key },
				validateStatus: () => true,
				timeout: 60_000,
			});
		let apiKey = options.apiKey;
		if (
			!apiKey ||
			(await apiFor(apiKey).get('/workflows', { params: { limit: 1 } })).status !== 200
		)
			apiKey = await createApiKey(rest, options.apiKeyLabel);
		const api = apiFor(apiKey);
		return {
			baseUrl,
			port,
			apiKey,
			owner,
			userFolder,
			logFile,
			api,
			rest,
			startMs: Date.now() - spawnedAt,
			pid: child.pid!,
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
