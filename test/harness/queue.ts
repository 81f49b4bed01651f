import axios from 'axios';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	REPO_ROOT,
	ensureN8nInstalled,
	freePort,
	killOnExit,
	n8nEnv,
	startN8n,
	waitFor,
	type N8nInstance,
} from './n8n';

/**
 * n8n's queue mode, started by the tests themselves: Debian's PostgreSQL and Redis (scripts/install-queue.sh
 * apt-get installs them when missing) on loopback ports with a throw-away data folder, one n8n main process,
 * `n8n worker` processes that run the executions and `n8n webhook` processes that take production webhooks. Every
 * n8n process has the package installed the way users install community nodes (the same user folder, so the same
 * `~/.n8n/nodes`), the same encryption key, and binary data in n8n's `database` mode, which every process reads.
 */

export interface Proc {
	name: string;
	pid: number;
	logFile: string;
	/** Resolves when the process has exited. */
	exited: Promise<void>;
	isRunning(): boolean;
	/** SIGTERM to its process group, SIGKILL after `graceMs`. */
	stop(graceMs?: number): Promise<void>;
	/** SIGKILL to its process group at once (a crash). */
	kill(): Promise<void>;
}

export interface N8nProc extends Proc {
	/** Its HTTP address: the webhook server of a webhook process, the health server of a worker. */
	url: string;
}

export interface QueueCluster {
	main: N8nInstance;
	workers: N8nProc[];
	webhooks: N8nProc[];
	postgres: Proc;
	redis: Proc;
	/** The environment every n8n process shares (database, Redis, encryption key, binary data mode). */
	env: Record<string, string>;
	userFolder: string;
	/** Starts one more worker (after a crash, say). */
	addWorker(): Promise<N8nProc>;
	stop(): Promise<void>;
}

export interface QueueOptions {
	workers?: number;
	webhooks?: number;
	/** Executions one worker runs at once (`n8n worker --concurrency`, n8n's default 10). */
	concurrency?: number;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
}

function installQueueDeps(): { pgBin: string; redis: string } {
	const out = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'install-queue.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const pgBin = /^AML_PG_BIN=(.+)$/m.exec(out)?.[1];
	const redis = /^AML_REDIS=(.+)$/m.exec(out)?.[1];
	if (!pgBin || !redis) throw new Error(`scripts/install-queue.sh printed no paths:\n${out}`);
	return { pgBin, redis };
}

/** Spawns a long-running process in its own process group, output to `logFile`. */
export function spawnProc(
	name: string,
	command: string,
	args: string[],
	opts: {
		env?: Record<string, string>;
		cwd?: string;
		logFile: string;
		uid?: number;
		gid?: number;
		stopSignal?: NodeJS.Signals;
	},
): Proc {
	const log = fs.openSync(opts.logFile, 'a');
	const child = spawn(command, args, {
		env: opts.env ?? (process.env as Record<string, string>),
		cwd: opts.cwd,
		stdio: ['ignore', log, log],
		detached: true,
		uid: opts.uid,
		gid: opts.gid,
	});
	fs.closeSync(log);
	const forget = killOnExit(child);
	let running = true;
	const exited = new Promise<void>((resolve) =>
		child.on('exit', () => {
			running = false;
			forget();
			resolve();
		}),
	);
	const signal = (sig: NodeJS.Signals) => {
		try {
			process.kill(-child.pid!, sig);
		} catch {
			/* gone */
		}
	};
	const proc: Proc = {
		name,
		pid: child.pid!,
		logFile: opts.logFile,
		exited,
		isRunning: () => running,
		async stop(graceMs = 20_000) {
			if (running) {
				signal(opts.stopSignal ?? 'SIGTERM');
				const killer = setTimeout(() => signal('SIGKILL'), graceMs);
				await exited;
				clearTimeout(killer);
			}
			signal('SIGKILL'); // what is left of its group (task runners)
		},
		async kill() {
			signal('SIGKILL');
			await exited;
		},
	};
	return proc;
}

/** Resolves when `port` on 127.0.0.1 accepts a connection and `probe` (optional) answers true. */
async function tcpReady(port: number, proc: Proc, what: string, timeoutMs = 60_000): Promise<void> {
	await waitFor(
		async () => {
			if (!proc.isRunning())
				throw Object.assign(new Error(`${what} exited during start; see ${proc.logFile}`), {
					fatal: true,
				});
			return await new Promise<boolean>((resolve) => {
				const socket = net.connect(port, '127.0.0.1', () => {
					socket.end();
					resolve(true);
				});
				socket.on('error', () => resolve(false));
			});
		},
		timeoutMs,
		what,
	);
}

/** PostgreSQL in a temp folder on a free loopback port, trust authentication, as user `postgres` when run as root. */
export async function startPostgres(
	pgBin: string,
	dir: string,
): Promise<{ proc: Proc; port: number }> {
	const asRoot = process.getuid?.() === 0;
	const uid = asRoot
		? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
		: undefined;
	const gid = asRoot
		? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
		: undefined;
	const data = path.join(dir, 'pgdata');
	fs.mkdirSync(data, { recursive: true });
	if (asRoot) {
		// the user postgres must reach its folder (mkdtemp makes the parent 0700)
		fs.chmodSync(path.dirname(dir), 0o755);
		fs.chownSync(dir, uid!, gid!);
		fs.chownSync(data, uid!, gid!);
	}
	execFileSync(
		path.join(pgBin, 'initdb'),
		['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
		{ stdio: ['ignore', 'ignore', 'pipe'], uid, gid, cwd: dir },
	);
	const port = await freePort();
	const logFile = path.join(dir, 'postgres.log');
	fs.writeFileSync(logFile, '');
	if (asRoot) fs.chownSync(logFile, uid!, gid!);
	const proc = spawnProc(
		'postgres',
		path.join(pgBin, 'postgres'),
		[
			'-D',
			data,
			'-p',
			String(port),
			'-k',
			dir,
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			'fsync=off',
			'-c',
			'max_connections=200',
		],
		{
			logFile,
			uid,
			gid,
			cwd: dir,
			// SIGINT: PostgreSQL's fast shutdown (SIGTERM waits for every client to leave)
			stopSignal: 'SIGINT',
		},
	);
	await tcpReady(port, proc, `PostgreSQL on ${port} (log ${logFile})`);
	// accepting connections is not yet "ready": wait until a query runs
	await waitFor(
		async () => {
			try {
				execFileSync(
					path.join(pgBin, 'psql'),
					[
						'-h',
						'127.0.0.1',
						'-p',
						String(port),
						'-U',
						'postgres',
						'-d',
						'postgres',
						'-c',
						'select 1',
					],
					{ stdio: 'ignore' },
				);
				return true;
			} catch {
				return false;
			}
		},
		30_000,
		'PostgreSQL to answer a query',
	);
	return { proc, port };
}

/** Redis on a free loopback port, nothing persisted. */
export async function startRedis(
	redisBin: string,
	dir: string,
): Promise<{ proc: Proc; port: number }> {
	const port = await freePort();
	const logFile = path.join(dir, 'redis.log');
	const proc = spawnProc(
		'redis',
		redisBin,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
		],
		{ logFile, cwd: dir },
	);
	await tcpReady(port, proc, `Redis on ${port} (log ${logFile})`);
	return { proc, port };
}

/** Starts PostgreSQL, Redis, the n8n main process, the workers and the webhook processes. */
export async function startQueueCluster(options: QueueOptions = {}): Promise<QueueCluster> {
	const { node, n8n } = ensureN8nInstalled();
	const { pgBin, redis: redisBin } = installQueueDeps();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-queue-'));
	const userFolder = path.join(dir, 'n8n');
	fs.mkdirSync(userFolder);
	const started: Proc[] = [];
	const t0 = Date.now();
	const phase = (what: string) =>
		console.log(`[queue] ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	// Stops what started, the later first; the workers and webhook processes together. A webhook process runs no
	// execution but, told to stop, waits for executions it enqueued and never heard finish ("Waiting for 54 active
	// executions to finish..." after the suite): 5 s of grace for it, not the 15 s a worker may need.
	const stopAll = async () => {
		const stopOne = async (p: Proc) => {
			const at = Date.now();
			await p.stop(p.name.startsWith('webhook-') ? 5_000 : 15_000).catch(() => undefined);
			console.log(`[queue] ${p.name} stopped in ${((Date.now() - at) / 1000).toFixed(1)} s`);
		};
		const base = ['postgres', 'redis', 'main'];
		await Promise.all(started.filter((p) => !base.includes(p.name)).map(stopOne));
		for (const name of [...base].reverse())
			for (const p of started.filter((q) => q.name === name)) await stopOne(p);
	};
	try {
		const pg = await startPostgres(pgBin, path.join(dir, 'pg'));
		started.push(pg.proc);
		const redis = await startRedis(redisBin, dir);
		started.push(redis.proc);
		phase('PostgreSQL and Redis ready');
		const env: Record<string, string> = {
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(pg.port),
			DB_POSTGRESDB_DATABASE: 'postgres',
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: '',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			// binary data every process can read (CSV uploads run on workers)
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			// manual executions (the editor's "Execute workflow") run on workers too, as n8n recommends for queue mode
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			...(options.env ?? {}),
		};
		const main = await startN8n({ userFolder, env });
		started.push({
			name: 'main',
			pid: main.pid,
			logFile: main.logFile,
			exited: Promise.resolve(),
			isRunning: () => true,
			stop: () => main.stop(),
			kill: () => main.stop(),
		});
		phase('main ready');
		let workerCount = 0;
		const startProcess = async (kind: 'worker' | 'webhook', index: number): Promise<N8nProc> => {
			const port = await freePort();
			const extra: Record<string, string> = { ...env };
			const args = [n8n, kind];
			if (kind === 'worker') {
				args.push(`--concurrency=${options.concurrency ?? 10}`);
				Object.assign(extra, {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(port),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				});
			}
			const procEnv = n8nEnv({ node, n8n, userFolder, port, brokerPort: await freePort(), extra });
			const logFile = path.join(userFolder, `${kind}-${index}.log`);
			const proc = spawnProc(`${kind}-${index}`, node, args, {
				env: procEnv,
				cwd: userFolder,
				logFile,
			});
			started.push(proc);
			const url = `http://127.0.0.1:${port}`;
			await waitFor(
				async () => {
					if (!proc.isRunning())
						throw Object.assign(
							new Error(`n8n ${kind} ${index} exited during start; see ${logFile}`),
							{ fatal: true },
						);
					return (
						(await axios.get(`${url}/healthz`, { validateStatus: () => true, timeout: 5000 }))
							.status === 200
					);
				},
				180_000,
				`n8n ${kind} ${index} at ${url} (log ${logFile})`,
			);
			phase(`${kind} ${index} healthz`);
			if (kind === 'worker') {
				// the worker's health server answers before it has loaded the community nodes: wait for "ready"
				await waitFor(
					async () =>
						/n8n worker is now ready|Worker started/i.test(fs.readFileSync(logFile, 'utf8')),
					120_000,
					`worker ${index} ready (log ${logFile})`,
				);
			}
			phase(`${kind} ${index} ready`);
			return { ...proc, url };
		};
		const workers: N8nProc[] = [];
		const webhooks: N8nProc[] = [];
		const w = options.workers ?? 2;
		const h = options.webhooks ?? 2;
		const workerStarts = Array.from({ length: w }, () => startProcess('worker', ++workerCount));
		const webhookStarts = Array.from({ length: h }, (_, i) => startProcess('webhook', i + 1));
		workers.push(...(await Promise.all(workerStarts)));
		webhooks.push(...(await Promise.all(webhookStarts)));
		return {
			main,
			workers,
			webhooks,
			postgres: pg.proc,
			redis: redis.proc,
			env,
			userFolder,
			async addWorker() {
				const worker = await startProcess('worker', ++workerCount);
				workers.push(worker);
				return worker;
			},
			async stop() {
				const stopping = Date.now();
				await stopAll();
				console.log(`[queue] stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
				if (process.env.AML_KEEP_N8N !== '1') fs.rmSync(dir, { recursive: true, force: true });
				else console.log(`[queue] kept ${dir}`);
			},
		};
	} catch (error) {
		await stopAll();
		throw error;
	}
}
