import { createHmac, randomUUID } from 'node:crypto';
import * as http from 'node:http';

export interface WebhookTarget {
	id: string;
	url: string;
	events?: string[];
	verification?: {
		mode: 'none' | 'header' | 'basic' | 'hmac';
		headerName?: string;
		secret?: string;
		username?: string;
		password?: string;
	};
}

export interface DeliveryAttempt {
	eventId: string;
	action: string;
	url: string;
	attempt: number;
	status: number | null;
	error?: string;
	at: string;
	accepted: boolean;
}

/** The spec's schedule after the three quick retries: then every 8 h for 7 more days. */
const SCHEDULE_MIN = [2, 5, 10, 15, 30, 60, 120, 240];
const QUICK_RETRIES = 3;

export function retryDelayMs(retryIndex: number): number | undefined {
	if (retryIndex < SCHEDULE_MIN.length) return SCHEDULE_MIN[retryIndex] * 60_000;
	const extra = retryIndex - SCHEDULE_MIN.length;
	return extra < 21 ? 8 * 3600_000 : undefined;
}

interface Pending {
	eventId: string;
	action: string;
	target: WebhookTarget;
	body: Buffer;
	attempt: number;
	retryIndex: number;
	dueAt: number;
	timer?: NodeJS.Timeout;
	inFlight: boolean;
}

/** Metadata of the emitted events (README lists them per action). */

export class Webhooks {
	targets: WebhookTarget[] = [];
	log: DeliveryAttempt[] = [];
	private pending = new Set<Pending>();
	private timers = new Set<NodeJS.Timeout>();
	private agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

	constructor(private scale: () => number) {}

	reset(): void {
		this.targets = [];
		this.log = [];
		this.events = [];
		this.pending.clear();
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
	}

	/** Every emitted event (also without targets), newest last; capped. */
	events: Array<{ action: string; createdTime: string; metadata: Record<string, unknown> }> = [];

	remove(id: string): boolean {
		const before = this.targets.length;
		this.targets = this.targets.filter((t) => t.id !== id);
		for (const p of this.pending) {
			if (p.target.id === id) {
				if (p.timer) clearTimeout(p.timer);
				this.pending.delete(p);
			}
		}
		return this.targets.length < before;
	}

	pendingCount(): number {
		return this.pending.size;
	}

	close(): void {
		this.reset();
		this.agent.destroy();
	}

	add(target: Omit<WebhookTarget, 'id'>): WebhookTarget {
		if (typeof target.url !== 'string' || !/^https?:\/\//.test(target.url))
			throw new Error('url must be an http(s) URL');
		const mode = target.verification?.mode ?? 'none';
		if (!['none', 'header', 'basic', 'hmac'].includes(mode))
			throw new Error('verification.mode must be none, header, basic or hmac');
		const full = { ...target, id: randomUUID() };
		this.targets.push(full);
		return full;
	}

	emit(action: string, metadata: Record<string, unknown>): void {
		const payload = { action, createdTime: new Date().toISOString(), metadata };
		this.events.push(payload);
		if (this.events.length > 20_000) this.events.splice(0, 5_000);
		const body = Buffer.from(JSON.stringify(payload));
		for (const target of this.targets) {
			if (
				target.events &&
				target.events.length &&
				!target.events.includes(action) &&
				!target.events.includes('*')
			)
				continue;
			const pending: Pending = {
				eventId: randomUUID(),
				action,
				target,
				body,
				attempt: 0,
				retryIndex: 0,
				dueAt: Date.now(),
				inFlight: false,
			};
			this.pending.add(pending);
			void this.deliver(pending, 0);
		}
	}

	/** Runs every waiting retry now, whatever its due time (tests); returns how many were started. */
	flush(): number {
		let n = 0;
		for (const p of this.pending) {
			if (p.inFlight) continue;
			if (p.timer) {
				clearTimeout(p.timer);
				this.timers.delete(p.timer);
				p.timer = undefined;
			}
			n++;
			void this.deliver(p, 0);
		}
		return n;
	}

	private schedule(p: Pending, delayMs: number): void {
		p.dueAt = Date.now() + delayMs;
		const timer = setTimeout(
			() => {
				this.timers.delete(timer);
				p.timer = undefined;
				if (this.pending.has(p)) void this.deliver(p, 0);
			},
			Math.max(0, Math.round(delayMs)),
		);
		timer.unref();
		p.timer = timer;
		this.timers.add(timer);
	}

	private async deliver(p: Pending, quick: number): Promise<void> {
		p.attempt++;
		p.inFlight = true;
		const result = await this.send(p);
		p.inFlight = false;
		if (!this.pending.has(p)) return;
		this.log.push({
			eventId: p.eventId,
			action: p.action,
			url: p.target.url,
			attempt: p.attempt,
			status: result.status,
			error: result.error,
			at: new Date().toISOString(),
			accepted: result.status !== null && result.status >= 200 && result.status < 300,
		});
		if (this.log.length > 100_000) this.log.splice(0, this.log.length - 100_000);
		if (result.status !== null && result.status >= 200 && result.status < 300) {
			this.pending.delete(p);
			return;
		}
		const scale = this.scale();
		// Transient: no answer (connect/read timeout, reset), 5xx, 408, 429.
		const transient =
			result.status === null ||
			result.status >= 500 ||
			result.status === 408 ||
			result.status === 429;
		if (transient && quick < QUICK_RETRIES) {
			p.inFlight = true;
			await new Promise<void>((r) => {
				const t = setTimeout(() => {
					this.timers.delete(t);
					r();
				}, 1000 * scale);
				t.unref();
				this.timers.add(t);
			});
			p.inFlight = false;
			if (this.pending.has(p)) return this.deliver(p, quick + 1);
			return;
		}
		const delay = retryDelayMs(p.retryIndex++);
		if (delay === undefined) {
			this.pending.delete(p);
			return;
		}
		this.schedule(p, delay * scale);
	}

	private send(p: Pending): Promise<{ status: number | null; error?: string }> {
		const headers: Record<string, string> = {
			'content-type': 'application/json',
			'content-length': String(p.body.length),
		};
		const v = p.target.verification;
		if (v?.mode === 'header')
			headers[(v.headerName ?? 'X-AML-Secret').toLowerCase()] = v.secret ?? '';
		if (v?.mode === 'basic')
			headers.authorization = `Basic ${Buffer.from(`${v.username}:${v.password}`).toString('base64')}`;
		if (v?.mode === 'hmac')
			headers[(v.headerName ?? 'X-AML-Signature').toLowerCase()] = createHmac(
				'sha256',
				v.secret ?? '',
			)
				.update(p.body)
				.digest('hex');
		return new Promise((resolve) => {
			let done = false;
			const finish = (r: { status: number | null; error?: string }) => {
				if (!done) {
					done = true;
					resolve(r);
				}
			};
			const req = http.request(
				p.target.url,
				{ method: 'POST', headers, agent: this.agent },
				(res) => {
					res.resume();
					res.on('end', () => finish({ status: res.statusCode ?? null }));
					res.on('error', (e) => finish({ status: null, error: e.message }));
				},
			);
			// Spec: 1 s connect, 9 s read timeouts. The connect timeout runs from the moment the request has a socket
			// that is connecting: time spent waiting for a free socket of the agent (maxSockets) is not connect time.
			let connectTimer: NodeJS.Timeout | undefined;
			req.on('socket', (socket) => {
				if (!socket.connecting) return;
				connectTimer = setTimeout(() => req.destroy(new Error('connect timeout')), 1000);
				socket.once('connect', () => clearTimeout(connectTimer));
			});
			req.setTimeout(9000, () => req.destroy(new Error('read timeout')));
			req.on('error', (e) => {
				clearTimeout(connectTimer);
				finish({ status: null, error: e.message });
			});
			req.on('close', () => clearTimeout(connectTimer));
			req.end(p.body);
		});
	}
}
