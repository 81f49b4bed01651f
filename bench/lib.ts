import axios, { type AxiosInstance } from 'axios';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { Worker } from 'node:worker_threads';

import type { CredentialRef, N8nClient } from '../test/harness/client';
import type { N8nInstance } from '../test/harness/n8n';
import type { Sandbox } from '../test/sandbox';

/** What every scenario gets: one sandbox, one n8n with the package, the AML credential. */
export interface BenchEnv {
	quick: boolean;
	/** 1 for the full size, 0.1 with --quick. */
	scale: number;
	/** How often each scenario that repeats its measurement does so (`--runs=N`, 1 by default). */
	runs: number;
	sb: Sandbox;
	n8n: N8nInstance;
	client: N8nClient;
	control: AxiosInstance;
	credentials: { amlOAuth2Api: CredentialRef };
}

export type Result = {
	name: string;
	figures: Record<string, number | string>;
	ratio?: number;
	baseline?: string;
	goal?: string;
	met?: boolean;
};

export function rssOf(pid: number): number {
	try {
		const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
	} catch {
		return 0;
	}
}

/** Resident memory of a process sampled every 20 ms while `work` runs: idle (before) and peak. */
export async function peakDuring<T>(
	pid: number,
	work: () => Promise<T>,
): Promise<{ value: T; peak: number; idle: number }> {
	const idle = rssOf(pid);
	let peak = idle;
	const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
	try {
		const value = await work();
		peak = Math.max(peak, rssOf(pid));
		return { value, peak, idle };
	} finally {
		clearInterval(timer);
	}
}

/** Time n8n spent on the execution itself (workflow creation and the HTTP call around it excluded). */
export function executionMs(
	execution: { startedAt?: string; stoppedAt?: string } | undefined,
	fallback: number,
): number {
	const ms = Date.parse(execution?.stoppedAt ?? '') - Date.parse(execution?.startedAt ?? '');
	return Number.isFinite(ms) && ms > 0 ? ms : fallback;
}

export function percentile(values: number[], p: number): number {
	if (!values.length) return 0;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * One JSON POST over the raw keep-alive `agent`, as a payment system or the service sends it: the status and body
 * text, status 0 for a failed connection or an answer not complete within `timeoutMs`.
 */
export async function rawPost(
	agent: http.Agent,
	url: string,
	body: string,
	opts: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ status: number; text: string }> {
	const target = new URL(url);
	return await new Promise((resolve) => {
		const req = http.request(
			{
				host: target.hostname,
				port: target.port,
				path: target.pathname,
				method: 'POST',
				agent,
				headers: {
					...opts.headers,
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(body),
				},
			},
			(res) => {
				let text = '';
				res.on('data', (c) => (text += c));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
			},
		);
		if (opts.timeoutMs) req.setTimeout(opts.timeoutMs, () => req.destroy());
		req.on('error', () => resolve({ status: 0, text: '' }));
		req.end(body);
	});
}

export const mb = (bytes: number) => Math.round(bytes / 1e6);

/**
 * Runs a raw baseline client on a thread of its own and returns what it posts (`{ ms }` or `{ error }`), as n8n
 * runs in a process of its own: in the bench's main thread a client would share one event loop with the sandbox
 * answering it, and look slower than it is. `code` is CommonJS run in the worker with `d` = workerData and `axios`
 * loaded; it posts its answer with `parentPort.postMessage`.
 */
export async function inWorker(code: string, workerData: Record<string, unknown>): Promise<number> {
	return (await inWorkerAnswer<{ ms: number }>(code, workerData)).ms;
}

/** `inWorker`, returning the whole answer the worker posts (it must hold `ms`). */
export async function inWorkerAnswer<T extends { ms: number }>(
	code: string,
	workerData: Record<string, unknown>,
): Promise<T> {
	const prelude =
		"const { parentPort, workerData: d } = require('node:worker_threads'); const http = require('node:http'); const axios = require(d.axiosPath);";
	const worker = new Worker(`${prelude}\n${code}`, {
		eval: true,
		workerData: { axiosPath: require.resolve('axios'), ...workerData },
	});
	try {
		const answer = await new Promise<Partial<T> & { error?: string }>((resolve, reject) => {
			worker.once('message', resolve);
			worker.once('error', reject);
		});
		if (answer.error !== undefined || answer.ms === undefined)
			throw new Error(`raw client failed: ${answer.error}`);
		return answer as T;
	} finally {
		await worker.terminate();
	}
}

/**
 * n8n's generic OAuth2 credential (client credentials) for the sandbox, as a team without this package would set
 * it up for n8n's HTTP Request node.
 */
export async function genericOAuth2Credential(env: BenchEnv, name: string): Promise<CredentialRef> {
	const { sb } = env;
	return await env.client.createCredential(name, 'oAuth2Api', {
		grantType: 'clientCredentials',
		accessTokenUrl: sb.tokenUrl,
		clientId: sb.clientId,
		clientSecret: sb.clientSecret,
		scope: 'aml',
		authentication: 'header',
	});
}

const TICK = 100; // /proc's clock ticks per second on Linux
/**
 * CPU seconds (user + system) of `root` and every live process below it (PostgreSQL's backends and n8n's task
 * runners are children; PostgreSQL's backends leave their parent's process group, so the tree is followed by parent).
 */
export function treeCpu(root: number): number {
	const parent = new Map<number, number>();
	const ticks = new Map<number, number>();
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			// after the command: state(0) ppid(1) pgrp(2) … utime(11) stime(12)
			parent.set(Number(entry), Number(fields[1]));
			ticks.set(Number(entry), Number(fields[11]) + Number(fields[12]));
		} catch {
			/* gone */
		}
	}
	const inTree = (pid: number): boolean => {
		for (let p = pid, depth = 0; p > 1 && depth < 64; p = parent.get(p) ?? 0, depth++)
			if (p === root) return true;
		return false;
	};
	let sum = 0;
	for (const [pid, t] of ticks) if (inTree(pid)) sum += t;
	return sum / TICK;
}

/** An OAuth2 token straight from the sandbox (raw baselines). */
export async function rawToken(env: BenchEnv): Promise<string> {
	const { sb } = env;
	return (
		await axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
			auth: { username: sb.clientId, password: sb.clientSecret },
		})
	).data.access_token as string;
}

/** Counts a workflow's executions through n8n's public API (all pages). */
export async function countExecutions(
	env: BenchEnv,
	workflowId: string,
): Promise<{ total: number; success: number }> {
	const api = axios.create({
		baseURL: `${env.n8n.baseUrl}/api/v1`,
		headers: { 'X-N8N-API-KEY': env.n8n.apiKey },
	});
	let cursor: string | undefined;
	let total = 0;
	let success = 0;
	do {
		const page = (await api.get('/executions', { params: { workflowId, limit: 250, cursor } }))
			.data as { data: Array<{ status: string }>; nextCursor?: string | null };
		total += page.data.length;
		success += page.data.filter((e) => e.status === 'success').length;
		cursor = page.nextCursor ?? undefined;
	} while (cursor);
	return { total, success };
}

/** The value of `--name=value` on the command line. */
export const arg = (name: string) =>
	process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
/** n8n's expression engine setting (its source: `N8N_EXPRESSION_ENGINE`, `vm` by default, or `legacy`). */
export const ENGINE_LEGACY = { N8N_EXPRESSION_ENGINE: 'legacy' };
/** n8n keeps no successful execution (`EXECUTIONS_DATA_SAVE_ON_SUCCESS`: `all` by default, or `none`). */
export const SAVING_OFF = { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none' };

/** n8n settings from the command line: `--engine=legacy`, `--saving=off`, `--n8n-env=KEY=VALUE` (repeatable). */
export function n8nSettingsFromArgs(): Record<string, string> {
	const engine = arg('engine');
	return {
		...(engine && engine !== 'vm' ? { N8N_EXPRESSION_ENGINE: engine } : {}),
		...(arg('saving') === 'off' ? SAVING_OFF : {}),
		...Object.fromEntries(
			process.argv
				.filter((a) => a.startsWith('--n8n-env='))
				.map((a) => {
					const [key, ...value] = a.slice('--n8n-env='.length).split('=');
					return [key, value.join('=')];
				}),
		),
	};
}
