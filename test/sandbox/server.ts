import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';

import { alertRoutes } from './alerts';
import { Auth, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, unauthorized } from './auth';
import type { Ctx } from './context';
import { controlRoutes } from './control';
import { customListRoutes } from './customLists';
import { Decisions } from './decisions';
import { Faults, type FaultAction } from './faults';
import { fail, type Handler, type Reply, type RouteDef } from './http';
import { Monitoring } from './monitoring';
import { personRoutes } from './persons';
import { Risk } from './risk';
import { Screening } from './screening';
import { seed } from './seed';
import { DEFAULT_CONFIG, Store, type Json } from './store';
import { transactionRoutes } from './transactions';
import { Uploads } from './upload';
import { Webhooks } from './webhooks';

export { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET };

export interface SandboxOptions {
	port?: number;
	/** Seed the demo data (default true). */
	seed?: boolean;
	/** Access token lifetime (default 3600). */
	tokenLifetimeSeconds?: number;
	/** No console output (the sandbox logs nothing per request anyway). */
	quiet?: boolean;
	/** Multiplies the spec's webhook retry intervals (default 1; tests use e.g. 0.001). */
	webhookRetryScale?: number;
	/** How long a person queued for deletion stays readable (default 2000). */
	deletionDelayMs?: number;
}

export interface Sandbox {
	port: number;
	/** http://127.0.0.1:PORT (API paths start with /api). */
	baseUrl: string;
	tokenUrl: string;
	controlUrl: string;
	clientId: string;
	clientSecret: string;
	close(): Promise<void>;
}

export interface LogEntry {
	seq: number;
	method: string;
	path: string;
	query: string;
	status: number;
	ms: number;
	hasAuth: boolean;
	/**
	 * The first characters of the bearer token an API request carried, or of the token a token request issued: which
	 * token request authorised which API request (a late token's requests are told apart from others).
	 */
	token?: string;
	/**
	 * Which credential sent it: the `c` query parameter of the token URL its bearer token was requested at (of the
	 * request itself for a token request). The service ignores the parameter; tests give each credential its own, so
	 * a test counts only its own requests (test/harness/context.ts `requestsSince`). Absent when unknown.
	 */
	credential?: string;
}

/** The request log: a ring buffer of the last `capacity` entries with consecutive sequence numbers. */
export class RequestLog {
	private ring: LogEntry[] = [];
	private start = 0;
	seq = 0;

	constructor(private capacity = 50_000) {}

	push(e: Omit<LogEntry, 'seq'>): void {
		const entry = e as LogEntry;
		entry.seq = ++this.seq;
		if (this.ring.length < this.capacity) this.ring.push(entry);
		else {
			this.ring[this.start] = entry;
			this.start = (this.start + 1) % this.capacity;
		}
	}

	since(seq: number): LogEntry[] {
		const n = this.ring.length;
		const oldest = this.seq - n + 1;
		const from = Math.max(0, (Number.isFinite(seq) ? seq : 0) + 1 - oldest);
		const out: LogEntry[] = [];
		for (let i = from; i < n; i++) out.push(this.ring[(this.start + i) % n]);
		return out;
	}

	clear(): void {
		this.ring = [];
		this.start = 0;
		this.seq = 0;
	}
}

interface Route {
	name: string;
	segments: string[];
	keys: Array<string | null>;
	handler: Handler;
}

/** A small router: routes per method, matched segment by segment (`:name` = parameter), first match wins. */
class Router {
	private byMethod = new Map<string, Route[]>();

	constructor(defs: RouteDef[]) {
		for (const [method, pattern, handler] of defs) {
			const segments = pattern.split('/');
			const route: Route = {
				name: `${method} ${pattern}`,
				segments,
				keys: segments.map((s) => (s.startsWith(':') ? s.slice(1) : null)),
				handler,
			};
			const list = this.byMethod.get(method) ?? [];
			list.push(route);
			this.byMethod.set(method, list);
		}
	}

	match(
		method: string,
		path: string,
	): { route: Route; params: Record<string, string> } | undefined {
		const list = this.byMethod.get(method);
		if (!list) return undefined;
		const parts = path.split('/');
		outer: for (const route of list) {
			if (route.segments.length !== parts.length) continue;
			for (let i = 0; i < parts.length; i++) {
				if (route.keys[i] === null ? route.segments[i] !== parts[i] : !parts[i]) continue outer;
			}
			const params: Record<string, string> = {};
			for (let i = 0; i < parts.length; i++) {
				const k = route.keys[i];
				if (k !== null) params[k] = safeDecode(parts[i]);
			}
			return { route, params };
		}
		return undefined;
	}
}

function safeDecode(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}

function emptyStats() {
	return {
		tokenRequests: 0,
		tokenRequests429: 0,
		tokensIssued: 0,
		requests: 0,
		byRoute: {} as Record<string, number>,
		status: {} as Record<string, number>,
	};
}

const UPLOAD_ROUTE = 'POST /api/v1/data-upload';
const MAX_JSON_BYTES = 10 * 1024 * 1024;

export class SandboxServer {
	store = new Store();
	hooks = new Webhooks(() => this.store.config.webhookRetryScale);
	auth = new Auth();
	faults = new Faults();
	requestLog = new RequestLog();
	/** The credential (token URL `c` parameter) each issued token was requested with, kept across reset and expiry. */
	private tokenCredential = new Map<string, string>();
	stats = emptyStats();
	slack: Json[] = [];
	ctx: Ctx;
	uploads: Uploads;
	server: http.Server;
	private api: Router;
	private control: Router;
	private sockets = new Set<Socket>();

	constructor(private options: SandboxOptions = {}) {
		const get = () => this.ctx;
		this.ctx = {
			store: this.store,
			hooks: this.hooks,
			risk: new Risk(get),
			monitoring: new Monitoring(get),
			screening: new Screening(get),
			decisions: new Decisions(get),
		};
		this.uploads = new Uploads(get);
		this.api = new Router([
			...personRoutes(get),
			...transactionRoutes(get),
			...alertRoutes(get),
			...this.ctx.screening.routes(),
			...customListRoutes(get),
			['POST', '/api/v1/data-upload', () => fail(500, 'streamed route')],
			[
				'GET',
				'/api/v1/data-upload/:uploadId/status',
				({ params }) => this.uploads.status(params.uploadId),
			],
		]);
		this.control = new Router(controlRoutes(this));
		this.reset(options.seed !== false);
		this.server = http.createServer((req, res) => void this.handle(req, res));
		this.server.keepAliveTimeout = 30_000;
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	/** Clears everything (data, faults, webhooks, logs, stats, tokens, rate-limit counters) and restores the default config. */
	reset(withSeed = true): void {
		this.store.clear();
		this.store.config = {
			...structuredClone(DEFAULT_CONFIG),
			tokenLifetimeSeconds:
				this.options.tokenLifetimeSeconds ?? DEFAULT_CONFIG.tokenLifetimeSeconds,
			webhookRetryScale: this.options.webhookRetryScale ?? DEFAULT_CONFIG.webhookRetryScale,
			deletionDelayMs: this.options.deletionDelayMs ?? DEFAULT_CONFIG.deletionDelayMs,
		};
		this.hooks.reset();
		this.auth.reset();
		this.faults.clear();
		this.requestLog.clear();
		this.stats = emptyStats();
		this.slack = [];
		this.uploads.reset();
		if (withSeed) {
			seed(this.store);
			this.ctx.risk.rescoreAll();
			this.hooks.events = [];
		}
	}

	async listen(port = 0): Promise<AddressInfo> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, '127.0.0.1', () => {
				this.server.off('error', reject);
				resolve();
			});
		});
		return this.server.address() as AddressInfo;
	}

	async close(): Promise<void> {
		this.hooks.close();
		this.uploads.close();
		this.ctx.risk.close();
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			for (const socket of this.sockets) socket.destroy();
		});
	}

	private send(res: http.ServerResponse, reply: Reply): void {
		if (res.writableEnded || res.destroyed) return;
		const headers: Record<string, string> = reply.headers ? { ...reply.headers } : {};
		let payload = '';
		if (reply.body !== undefined) {
			payload = reply.text ? String(reply.body) : JSON.stringify(reply.body);
			headers['content-type'] = reply.text ? 'text/plain; charset=utf-8' : 'application/json';
		}
		headers['content-length'] = String(Buffer.byteLength(payload));
		res.writeHead(reply.status, headers);
		res.end(payload);
	}

	/** Sends `reply`'s status and headers at once, then its body in pieces spread evenly over `ms` (one a 100 ms). */
	private trickle(res: http.ServerResponse, reply: Reply, ms: number): void {
		const payload =
			reply.body === undefined ? '' : reply.text ? String(reply.body) : JSON.stringify(reply.body);
		const bytes = Buffer.from(payload);
		res.writeHead(reply.status, {
			...(reply.headers ?? {}),
			'content-type': reply.text ? 'text/plain; charset=utf-8' : 'application/json',
			'content-length': String(bytes.length),
		});
		res.flushHeaders();
		const pieces = Math.max(1, Math.min(Math.floor(ms / 100), bytes.length));
		const size = Math.ceil(bytes.length / pieces);
		let piece = 0;
		const timer = setInterval(() => {
			if (res.destroyed) return clearInterval(timer);
			piece++;
			if (piece < pieces) {
				res.write(bytes.subarray((piece - 1) * size, piece * size));
				return;
			}
			clearInterval(timer);
			res.end(bytes.subarray((piece - 1) * size));
		}, ms / pieces);
	}

	private record(
		req: http.IncomingMessage,
		path: string,
		query: string,
		status: number | string,
		started: number,
		route: string,
		issued?: string,
	): void {
		const s = this.stats;
		const bearer = /^bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
		let credential: string | undefined;
		if (issued !== undefined || path === '/oauth/token') {
			credential = new URLSearchParams(query).get('c') ?? undefined;
			if (issued && credential !== undefined) {
				if (this.tokenCredential.size >= 200_000) this.tokenCredential.clear();
				this.tokenCredential.set(issued, credential);
			}
		} else if (bearer) credential = this.tokenCredential.get(bearer.trim());
		s.requests++;
		s.status[status] = (s.status[status] ?? 0) + 1;
		s.byRoute[route] = (s.byRoute[route] ?? 0) + 1;
		this.requestLog.push({
			method: req.method ?? '',
			path,
			query,
			status: typeof status === 'number' ? status : 0,
			ms: Date.now() - started,
			hasAuth: req.headers.authorization !== undefined,
			token: tokenTag(issued ?? bearer),
			...(credential !== undefined ? { credential } : {}),
		});
	}

	private async body(req: http.IncomingMessage): Promise<string> {
		if (
			req.headers['content-length'] === undefined &&
			req.headers['transfer-encoding'] === undefined
		)
			return '';
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of req) {
			size += (chunk as Buffer).length;
			if (size > MAX_JSON_BYTES) throw new Error('body too large');
			chunks.push(chunk as Buffer);
		}
		return Buffer.concat(chunks).toString('utf8');
	}

	/** Applies a fault action; returns the status to log (0 for a dropped or hanging request). */
	private applyFault(
		action: FaultAction,
		req: http.IncomingMessage,
		res: http.ServerResponse,
	): number | string {
		if (action.kind === 'drop') {
			req.socket.destroy();
			return 'dropped';
		}
		if (action.kind === 'hang') {
			req.resume();
			return 'hung';
		}
		req.resume();
		if (action.kind === 'error') {
			this.send(res, fail(action.status, 'injected fault'));
			return action.status;
		}
		if (action.kind === 'answer') {
			const headers: Record<string, string> = {
				...(action.headers ?? {}),
				'content-length': String(Buffer.byteLength(action.body)),
			};
			if (action.contentType) headers['content-type'] = action.contentType;
			res.writeHead(action.status, headers);
			res.end(action.body);
			return action.status;
		}
		this.send(res, {
			...fail(429, 'rate limit exceeded (injected)'),
			headers: action.retryAfter ? { 'retry-after': '1' } : {},
		});
		return 429;
	}

	private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const started = Date.now();
		const rawUrl = req.url ?? '/';
		const q = rawUrl.indexOf('?');
		const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
		const search = q < 0 ? '' : rawUrl.slice(q + 1);
		const path = rawPath.includes('%') ? safeDecodeUri(rawPath) : rawPath;
		const method = req.method ?? 'GET';
		try {
			if (rawPath.startsWith('/_control'))
				return this.send(res, await this.handleControl(req, method, rawPath, search));
			if (rawPath.startsWith('/files/'))
				return this.send(res, exampleFile(rawPath.slice('/files/'.length)));
			if (rawPath === '/_demo/slack' && method === 'POST') {
				// A stand-in for a Slack incoming webhook, so the examples can post somewhere local.
				const text = await this.body(req);
				let parsed: unknown = text;
				try {
					parsed = JSON.parse(text || '{}');
				} catch {
					/* keep the text */
				}
				this.slack.push({ at: new Date().toISOString(), body: parsed as Json });
				return this.send(res, { status: 200, body: 'ok', text: true });
			}
			const isToken = rawPath === '/oauth/token';
			if (!isToken && !rawPath.startsWith('/api/'))
				return this.send(res, fail(404, `No such path ${path}`));
			const match = isToken ? undefined : this.api.match(method, rawPath);
			const routeName = isToken
				? `${method} /oauth/token`
				: match
					? match.route.name
					: `${method} (no route)`;

			const fault = this.faults.active
				? this.faults.decide(method, path, search, req.headers.authorization ?? '')
				: undefined;
			if (fault?.latencyMs) await new Promise((r) => setTimeout(r, fault.latencyMs));
			if (fault?.action && fault.when === 'before') {
				// an answering fault answers as a service does, after reading the request (a large upload is not cut off)
				if (fault.action.kind !== 'drop' && fault.action.kind !== 'hang')
					for await (const _chunk of req) void _chunk;
				return this.record(
					req,
					path,
					search,
					this.applyFault(fault.action, req, res),
					started,
					routeName,
				);
			}

			let reply: Reply;
			if (isToken) {
				reply =
					method === 'POST'
						? this.auth.issue(
								req.socket.remoteAddress ?? 'unknown',
								req.headers.authorization,
								await this.body(req),
								this.store.config.tokenRateLimit,
								this.store.config.tokenLifetimeSeconds,
								this.stats,
							)
						: fail(405, 'use POST');
			} else if (!this.auth.verify(req.headers.authorization)) {
				req.resume();
				reply = unauthorized();
			} else if (!match) {
				req.resume();
				reply = fail(404, `No operation ${method} ${path}`);
			} else if (match.route.name === UPLOAD_ROUTE) {
				reply = await this.uploads.receive(req, new URLSearchParams(search).get('type'));
			} else {
				let raw: string;
				try {
					raw = await this.body(req);
				} catch {
					reply = fail(413, 'request body too large');
					raw = '';
				}
				let body: unknown;
				let bad = false;
				if (raw) {
					try {
						body = JSON.parse(raw);
					} catch {
						bad = true;
					}
				}
				reply = bad
					? fail(400, 'malformed JSON body')
					: await match.route.handler({
							params: match.params,
							query: new URLSearchParams(search),
							body,
						});
			}
			const issued = isToken ? (reply.body as { access_token?: string })?.access_token : undefined;
			if (fault?.action && fault.when === 'after')
				return this.record(
					req,
					path,
					search,
					this.applyFault(fault.action, req, res),
					started,
					routeName,
					issued,
				);
			this.record(req, path, search, reply.status, started, routeName, issued);
			if (fault?.trickleMs) return this.trickle(res, reply, fault.trickleMs);
			this.send(res, reply);
		} catch (error) {
			this.send(res, fail(500, `sandbox error: ${(error as Error).message}`));
		}
	}

	private async handleControl(
		req: http.IncomingMessage,
		method: string,
		rawPath: string,
		search: string,
	): Promise<Reply> {
		const match = this.control.match(method, rawPath);
		if (!match) {
			req.resume();
			return fail(404, `No control route ${method} ${rawPath}`);
		}
		const raw = await this.body(req);
		let body: unknown;
		try {
			body = raw ? JSON.parse(raw) : undefined;
		} catch {
			return fail(400, 'malformed JSON body');
		}
		return await match.route.handler({
			params: match.params,
			query: new URLSearchParams(search),
			body,
		});
	}
}

function safeDecodeUri(s: string): string {
	try {
		return decodeURI(s);
	} catch {
		return s;
	}
}

/** Example source files (e.g. the blocklist CSV of the scheduled-sync example), served without auth. */
function exampleFile(name: string): Reply {
	if (!/^[\w.-]+$/.test(name)) return fail(404, 'no such file');
	const file = path.join(__dirname, 'files', name);
	if (!fs.existsSync(file)) return fail(404, 'no such file');
	return {
		status: 200,
		body: fs.readFileSync(file, 'utf8'),
		text: true,
		headers: { 'content-type': 'text/csv' },
	};
}

/** A token's log tag: enough of it to tell tokens apart, not enough to use one. */
function tokenTag(token: string | undefined): string | undefined {
	return token ? token.slice(0, 6) : undefined;
}
