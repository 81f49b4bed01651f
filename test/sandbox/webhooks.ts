import { createHmac, randomUUID } from 'node:crypto';
import * as http from 'node:http';

export interface WebhookTarget {
	id: string;
	url: string;
	events?: string[];
	verification?: { mode: 'none' | 'header' | 'basic' | 'hmac'; headerName?: string; secret?: string; username?: string; password?: string };
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

function retryDelayMs(retryIndex: number): number | undefined {
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
}

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
		this.pending.clear();
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
	}

	close(): void {
		this.reset();
		this.agent.destroy();
	}

	add(target: Omit<WebhookTarget, 'id'>): WebhookTarget {
		const full = { ...target, id: randomUUID() };
		this.targets.push(full);
		return full;
	}

	emit(action: string, metadata: Record<string, unknown>): void {
		const payload = { action, createdTime: new Date().toISOString(), metadata };
		const body = Buffer.from(JSON.stringify(payload));
		for (const target of this.targets) {
			if (target.events && target.events.length && !target.events.includes(action) && !target.events.includes('*')) continue;
			const pending: Pending = { eventId: randomUUID(), action, target, body, attempt: 0, retryIndex: 0, dueAt: Date.now() };
			this.pending.add(pending);
			void this.deliver(pending, 0);
		}
	}

	/** Runs every due retry now (tests). */
	flush(): void {
		for (const p of this.pending) void this.deliver(p, 0);
	}

	private schedule(p: Pending, delayMs: number): void {
		p.dueAt = Date.now() + delayMs;
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			if (this.pending.has(p)) void this.deliver(p, 0);
		}, Math.max(0, Math.round(delayMs)));
		timer.unref();
		this.timers.add(timer);
	}

	private async deliver(p: Pending, quick: number): Promise<void> {
		p.attempt++;
		const result = await this.send(p);
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
		const transient = result.status === null || result.status >= 500;
		if (transient && quick < QUICK_RETRIES) {
			await new Promise((r) => setTimeout(r, 1000 * scale).unref());
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
		const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(p.body.length) };
		const v = p.target.verification;
		if (v?.mode === 'header') headers[(v.headerName ?? 'X-AML-Secret').toLowerCase()] = v.secret ?? '';
		if (v?.mode === 'basic') headers.authorization = `Basic ${Buffer.from(`${v.username}:${v.password}`).toString('base64')}`;
		if (v?.mode === 'hmac') headers[(v.headerName ?? 'X-AML-Signature').toLowerCase()] = createHmac('sha256', v.secret ?? '').update(p.body).digest('hex');
		return new Promise((resolve) => {
			let done = false;
			const finish = (r: { status: number | null; error?: string }) => {
				if (!done) {
					done = true;
					resolve(r);
				}
			};
			const req = http.request(p.target.url, { method: 'POST', headers, agent: this.agent }, (res) => {
				res.resume();
				res.on('end', () => finish({ status: res.statusCode ?? null }));
				res.on('error', (e) => finish({ status: null, error: e.message }));
			});
			// Spec: 1 s connect, 9 s read timeouts.
			const connectTimer = setTimeout(() => req.destroy(new Error('connect timeout')), 1000);
			req.on('socket', (socket) => {
				if (!socket.connecting) clearTimeout(connectTimer);
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
