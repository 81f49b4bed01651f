import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { Api, fail, ok, type Reply, type Req } from './api';
import { customListRoutes } from './customLists';
import { seed } from './seed';
import { DEFAULT_CONFIG, State, type Json } from './state';
import { receiveUpload, uploadStatus } from './upload';
import { Webhooks } from './webhooks';

export const DEMO_CLIENT_ID = 'aml-demo-client';
export const DEMO_CLIENT_SECRET = 'aml-demo-secret';

export interface SandboxOptions {
	port?: number;
	seed?: boolean;
	tokenLifetimeSeconds?: number;
	quiet?: boolean;
	webhookRetryScale?: number;
	deletionDelayMs?: number;
}

export interface Sandbox {
	port: number;
	baseUrl: string;
	tokenUrl: string;
	controlUrl: string;
	clientId: string;
	clientSecret: string;
	close(): Promise<void>;
}

interface FaultRule {
	method?: string;
	path?: string;
	errorRate?: number;
	errorStatus?: number;
	rate429?: number;
	retryAfterRate?: number;
	latencyMs?: number;
	dropRate?: number;
	hangRate?: number;
	times?: number;
	when?: 'before' | 'after';
	re?: RegExp;
	hits?: number;
}

interface LogEntry {
	seq: number;
	method: string;
	path: string;
	query: string;
	status: number;
	ms: number;
	hasAuth: boolean;
}

type Route = { method: string; re: RegExp; keys: string[]; handler: (r: Req) => Reply | Promise<Reply> };

function compile(method: string, pattern: string, handler: Route['handler']): Route {
	const keys: string[] = [];
	const re = new RegExp(`^${pattern.replace(/:(\w+)/g, (_, k) => (keys.push(k), '([^/]+)'))}$`);
	return { method, re, keys, handler };
}

/** Seeded PRNG (mulberry32) so fault runs repeat. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export class SandboxServer {
	state = new State();
	hooks = new Webhooks(() => this.state.config.webhookRetryScale);
	api = new Api(this.state, this.hooks);
	private routes: Route[] = [];
	private tokens = new Map<string, number>();
	private tokenRequests: number[] = [];
	private stats = { tokenRequests: 0, tokenRequests429: 0, tokensIssued: 0, requests: 0, byRoute: {} as Record<string, number>, status: {} as Record<string, number> };
	private log: LogEntry[] = [];
	private seq = 0;
	private faults: FaultRule[] = [];
	private random: () => number = Math.random;
	private sockets = new Set<import('node:net').Socket>();
	slack: Json[] = [];
	server: http.Server;

	constructor(private options: SandboxOptions = {}) {
		this.reset(options.seed !== false);
		this.routes = [...this.api.routes(), ...customListRoutes(this.state, this.hooks)].map(([m, p, h]) => compile(m, p, h));
		this.server = http.createServer((req, res) => void this.handle(req, res));
		this.server.keepAliveTimeout = 30_000;
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	reset(withSeed = true): void {
		const s = this.state;
		s.config = {
			...DEFAULT_CONFIG,
			tokenLifetimeSeconds: this.options.tokenLifetimeSeconds ?? DEFAULT_CONFIG.tokenLifetimeSeconds,
			webhookRetryScale: this.options.webhookRetryScale ?? 1,
			deletionDelayMs: this.options.deletionDelayMs ?? DEFAULT_CONFIG.deletionDelayMs,
		};
		s.persons.clear();
		s.transactions.clear();
		s.transactionsByPerson.clear();
		s.notes = [];
		s.alerts.clear();
		s.screeningAlerts.clear();
		s.manualAlerts.clear();
		s.customLists.clear();
		s.uploads.clear();
		s.scenarios = [];
		s.screeningList = [];
		s.listGroups = [];
		s.seq = { alert: 1000, screening: 300, manual: 500, note: 1, upload: 0, status: 1 };
		this.hooks.reset();
		this.tokens.clear();
		this.tokenRequests = [];
		this.stats = { tokenRequests: 0, tokenRequests429: 0, tokensIssued: 0, requests: 0, byRoute: {}, status: {} };
		this.log = [];
		this.faults = [];
		this.slack = [];
		if (withSeed) seed(s);
	}

	async listen(port = 0): Promise<AddressInfo> {
		await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
		return this.server.address() as AddressInfo;
	}

	async close(): Promise<void> {
		this.hooks.close();
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			for (const socket of this.sockets) socket.destroy();
		});
	}

	private send(res: http.ServerResponse, reply: Reply): void {
		const headers: Record<string, string> = { ...(reply.headers ?? {}) };
		let payload = '';
		if (reply.body !== undefined) {
			payload = reply.text ? String(reply.body) : JSON.stringify(reply.body);
			headers['content-type'] = reply.text ? 'text/plain; charset=utf-8' : 'application/json';
		}
		headers['content-length'] = String(Buffer.byteLength(payload));
		res.writeHead(reply.status, headers);
		res.end(payload);
	}

	private record(req: http.IncomingMessage, path: string, query: string, status: number, started: number, route: string): void {
		this.stats.requests++;
		this.stats.status[status] = (this.stats.status[status] ?? 0) + 1;
		this.stats.byRoute[route] = (this.stats.byRoute[route] ?? 0) + 1;
		this.log.push({ seq: ++this.seq, method: req.method ?? '', path, query, status, ms: Date.now() - started, hasAuth: !!req.headers.authorization });
		if (this.log.length > 60_000) this.log.splice(0, 10_000);
	}

	private async body(req: http.IncomingMessage): Promise<string> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		return Buffer.concat(chunks).toString('utf8');
	}

	private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const started = Date.now();
		const url = new URL(req.url ?? '/', 'http://sandbox');
		const path = decodeURI(url.pathname);
		try {
			if (path.startsWith('/_control')) return this.send(res, await this.control(req, path, url.searchParams));
			if (path.startsWith('/files/')) return this.send(res, exampleFile(path.slice('/files/'.length)));
			if (path === '/_demo/slack' && req.method === 'POST') {
				// A stand-in for a Slack incoming webhook, so the examples can post somewhere local.
				this.slack.push({ at: new Date().toISOString(), body: JSON.parse((await this.body(req)) || '{}') });
				return this.send(res, { status: 200, body: 'ok', text: true });
			}
			const method = req.method ?? 'GET';
			let routeName = `${method} ${path}`;
			// Fault injection.
			const fault = this.matchFault(method, path);
			if (fault?.latencyMs) await new Promise((r) => setTimeout(r, fault.latencyMs));
			if (fault && (fault.when ?? 'before') === 'before') {
				const injected = this.inject(fault, req, res);
				if (injected !== undefined) {
					this.record(req, path, url.search, injected, started, `${routeName} (fault)`);
					return;
				}
			}
			if (path === '/oauth/token' && method === 'POST') {
				const reply = await this.token(req);
				this.record(req, path, url.search, reply.status, started, 'POST /oauth/token');
				return this.send(res, reply);
			}
			if (!path.startsWith('/api/')) return this.send(res, fail(404, 'no such path'));
			const auth = String(req.headers.authorization ?? '');
			const token = /^Bearer (.+)$/.exec(auth)?.[1];
			const expiry = token ? this.tokens.get(token) : undefined;
			if (!expiry || expiry < Date.now()) {
				await this.drain(req);
				this.record(req, path, url.search, 401, started, `${method} (unauthenticated)`);
				return this.send(res, fail(401, 'Full authentication is required to access this resource'));
			}
			let reply: Reply;
			if (method === 'POST' && path === '/api/v1/data-upload') {
				routeName = 'POST /api/v1/data-upload';
				reply = await receiveUpload(this.state, req, url.searchParams.get('type'));
			} else if (method === 'GET' && /^\/api\/v1\/data-upload\/[^/]+\/status$/.test(path)) {
				routeName = 'GET /api/v1/data-upload/:uploadId/status';
				reply = uploadStatus(this.state, path.split('/')[4]);
			} else {
				const raw = await this.body(req);
				let body: unknown;
				if (raw) {
					try {
						body = JSON.parse(raw);
					} catch {
						this.record(req, path, url.search, 400, started, routeName);
						return this.send(res, fail(400, 'malformed JSON body'));
					}
				}
				const route = this.routes.find((r) => r.method === method && r.re.test(path));
				if (!route) {
					reply = fail(404, `No route ${method} ${path}`);
				} else {
					routeName = `${method} ${route.re.source}`;
					const match = route.re.exec(path) as RegExpExecArray;
					const params = Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(match[i + 1])]));
					routeName = `${method} ${route.re.source.replace(/\(\[\^\/\]\+\)/g, ':param').replace(/[\^$\\]/g, '')}`;
					reply = await route.handler({ params, query: url.searchParams, body });
				}
			}
			if (fault && fault.when === "after" && this.inject(fault, req, res) !== undefined) {
				this.record(req, path, url.search, 599, started, `${routeName} (fault after)`);
				return;
			}
			this.record(req, path, url.search, reply.status, started, routeName);
			this.send(res, reply);
		} catch (error) {
			this.send(res, fail(500, `sandbox error: ${(error as Error).message}`));
		}
	}

	private async drain(req: http.IncomingMessage): Promise<void> {
		for await (const _ of req) void _;
	}

	private matchFault(method: string, path: string): FaultRule | undefined {
		for (const rule of this.faults) {
			if (rule.method && rule.method !== method) continue;
			if (rule.re && !rule.re.test(path)) continue;
			if (rule.times !== undefined) {
				if ((rule.hits ?? 0) >= rule.times) continue;
			}
			rule.hits = (rule.hits ?? 0) + 1;
			return rule;
		}
		return undefined;
	}

	/** Applies the fault's dice; returns the status it answered (0 for a dropped/hung request) or undefined. */
	private inject(rule: FaultRule, req: http.IncomingMessage, res: http.ServerResponse): number | undefined {
		const roll = this.random();
		let edge = 0;
		if (rule.dropRate && roll < (edge += rule.dropRate)) {
			req.socket.destroy();
			return 0;
		}
		if (rule.hangRate && roll < (edge += rule.hangRate)) {
			req.resume();
			return 0;
		}
		if (rule.errorRate && roll < (edge += rule.errorRate)) {
			req.resume();
			this.send(res, { status: rule.errorStatus ?? 500, body: { status: rule.errorStatus ?? 500, error: 'Internal Server Error', message: 'injected fault' } });
			return rule.errorStatus ?? 500;
		}
		if (rule.rate429 && roll < (edge += rule.rate429)) {
			req.resume();
			const withRetryAfter = this.random() < (rule.retryAfterRate ?? 0);
			this.send(res, { status: 429, body: { status: 429, error: 'Too Many Requests', message: 'rate limit exceeded' }, headers: withRetryAfter ? { 'retry-after': '1' } : {} });
			return 429;
		}
		return undefined;
	}

	private async token(req: http.IncomingMessage): Promise<Reply> {
		this.stats.tokenRequests++;
		const raw = await this.body(req);
		const windowMs = this.state.config.tokenRateLimit.windowSeconds * 1000;
		const nowMs = Date.now();
		this.tokenRequests = this.tokenRequests.filter((t) => nowMs - t < windowMs);
		if (this.tokenRequests.length >= this.state.config.tokenRateLimit.max) {
			this.stats.tokenRequests429++;
			const retry = Math.ceil((this.tokenRequests[0] + windowMs - nowMs) / 1000);
			return { status: 429, body: { error: 'too_many_requests', error_description: 'token endpoint rate limit' }, headers: { 'retry-after': String(Math.max(1, retry)) } };
		}
		this.tokenRequests.push(nowMs);
		const basic = /^Basic (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
		const [id, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
		const form = new URLSearchParams(raw);
		if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
		if (decodeURIComponent(id ?? '') !== DEMO_CLIENT_ID || decodeURIComponent(secret ?? '') !== DEMO_CLIENT_SECRET) {
			return { status: 401, body: { error: 'invalid_client', error_description: 'Bad client credentials' } };
		}
		const token = randomBytes(24).toString('base64url');
		const lifetime = this.state.config.tokenLifetimeSeconds;
		this.tokens.set(token, nowMs + lifetime * 1000);
		this.stats.tokensIssued++;
		return ok({ access_token: token, expires_in: lifetime, token_type: 'Bearer', scope: 'aml' });
	}

	private async control(req: http.IncomingMessage, path: string, query: URLSearchParams): Promise<Reply> {
		const method = req.method ?? 'GET';
		const raw = method === 'GET' ? '' : await this.body(req);
		const body = (raw ? JSON.parse(raw) : {}) as Json;
		const s = this.state;
		const route = `${method} ${path.replace(/^\/_control/, '')}`;
		const seg = path.split('/').slice(2);
		if (route === 'POST /reset') {
			this.reset(body.seed !== false);
			return ok({ reset: true });
		}
		if (route === 'GET /stats') return ok(this.stats);
		if (route === 'GET /requests') {
			const since = Number(query.get('since') ?? 0);
			return ok(this.log.filter((e) => e.seq > since));
		}
		if (route === 'GET /config') return ok(s.config);
		if (route === 'POST /config') {
			Object.assign(s.config, body);
			return ok(s.config);
		}
		if (route === 'POST /tokens/expire') {
			this.tokens.clear();
			return ok({ expired: true });
		}
		if (route === 'POST /faults') {
			this.random = body.seed !== undefined ? prng(Number(body.seed)) : Math.random;
			this.faults = ((body.rules as FaultRule[]) ?? []).map((r) => ({ ...r, re: r.path ? new RegExp(r.path) : undefined, hits: 0 }));
			return ok({ rules: this.faults.length });
		}
		if (route === 'DELETE /faults') {
			this.faults = [];
			return ok({ rules: 0 });
		}
		if (route === 'GET /persons') {
			return ok([...s.persons.values()].map((p) => ({ ...p, queuedForDeletion: p.deleteAt !== undefined })));
		}
		if (method === 'GET' && seg[0] === 'persons' && seg[1]) {
			const p = s.persons.get(decodeURIComponent(seg[1]));
			return p ? ok({ ...p, queuedForDeletion: p.deleteAt !== undefined }) : fail(404, 'no such person');
		}
		if (route === 'GET /transactions') {
			const personId = query.get('personId');
			return ok([...s.transactions.values()].filter((t) => !personId || t.personId === personId));
		}
		if (route === 'GET /custom-lists') return ok([...s.customLists.values()].map((l) => ({ id: l.id, name: l.name, goodlist: l.goodlist, fields: l.fields, records: l.records.size })));
		if (route === 'POST /custom-lists') {
			const id = String(body.id ?? randomUUIDv4());
			s.customLists.set(id, { id, name: String(body.name ?? 'List'), fields: (body.fields as Array<{ id: string; name: string }>) ?? [], goodlist: !!body.goodlist, records: new Map() });
			return ok({ id });
		}
		if (method === 'GET' && seg[0] === 'custom-lists' && seg[2] === 'records') {
			const l = s.customLists.get(seg[1]);
			return l ? ok([...l.records.values()]) : fail(404, 'no such list');
		}
		if (route === 'GET /alerts') return ok([...s.alerts.values()]);
		if (route === 'GET /screening-alerts') return ok([...s.screeningAlerts.values()]);
		if (route === 'GET /manual-alerts') return ok([...s.manualAlerts.values()]);
		if (route === 'GET /notes') {
			const personId = query.get('personId');
			return ok(s.notes.filter((n) => !personId || n.personId === personId));
		}
		if (route === 'GET /uploads') return ok([...s.uploads.values()]);
		if (route === 'GET /slack') return ok(this.slack);
		if (route === 'POST /scenarios') {
			s.scenarios = body.scenarios as never;
			return ok({ scenarios: s.scenarios.length });
		}
		if (route === 'GET /scenarios') return ok(s.scenarios);
		if (route === 'POST /screening-list') {
			if (body.replace) s.screeningList = [];
			s.screeningList.push(...((body.records as never[]) ?? []));
			return ok({ records: s.screeningList.length });
		}
		if (route === 'POST /webhooks') return ok(this.hooks.add(body as never));
		if (route === 'GET /webhooks') return ok(this.hooks.targets);
		if (method === 'DELETE' && seg[0] === 'webhooks' && seg[1]) {
			this.hooks.targets = this.hooks.targets.filter((t) => t.id !== seg[1]);
			return ok({ deleted: true });
		}
		if (route === 'GET /webhooks/deliveries') return ok(this.hooks.log);
		if (route === 'POST /webhooks/emit') {
			this.hooks.emit(String(body.action), (body.metadata as Json) ?? {});
			return ok({ emitted: true });
		}
		if (route === 'POST /webhooks/flush') {
			this.hooks.flush();
			return ok({ flushed: true });
		}
		return fail(404, `no control route ${route}`);
	}
}

/** Example source files (e.g. the blocklist CSV of the scheduled-sync example), served without auth. */
function exampleFile(name: string): Reply {
	if (!/^[\w.-]+$/.test(name)) return fail(404, 'no such file');
	const file = path.join(__dirname, 'files', name);
	if (!fs.existsSync(file)) return fail(404, 'no such file');
	return { status: 200, body: fs.readFileSync(file, 'utf8'), text: true, headers: { 'content-type': 'text/csv' } };
}

function randomUUIDv4(): string {
	const b = randomBytes(16);
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	const h = b.toString('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
