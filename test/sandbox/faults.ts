/**
 * Fault injection. Rules (`POST /_control/faults {seed?, rules}`) are tried in order; the first rule matching a
 * request (method, `path` regex) applies. A rule without `path` applies to /api paths only; with `path` it applies to
 * whatever the regex matches, /oauth/token included. One roll of a seeded PRNG picks the outcome: drop, hang, 5xx,
 * 429 (cumulative rates, in that order); `latencyMs` delays every matching request; `times` limits the rule to the
 * first N matching requests (with `timesPerToken`, of each bearer token); `when: 'after'` lets the request do its work (a write is stored) before the 5xx, drop
 * or hang replaces the answer. `answer` replaces the answer of every matching request with exactly that status, body
 * text, content type and headers (an odd answer: an empty 200, an HTML page, JSON without the expected field; at the
 * token endpoint a 429 with an OAuth body and Retry-After, or `invalid_client`). `trickleMs` sends the request's own
 * answer with its status and headers at once and its body in pieces spread evenly until `trickleMs` after them (one a
 * 100 ms, fewer for a shorter body): a service whose answer arrives slowly. `query` (a regex) narrows a rule to
 * requests whose query string matches it: a credential whose Access Token URL carries `?c=<name>` gets its own token
 * endpoint faults while other credentials' token requests pass.
 */
export interface FaultRule {
	method?: string;
	path?: string;
	query?: string;
	errorRate?: number;
	errorStatus?: number;
	rate429?: number;
	retryAfterRate?: number;
	latencyMs?: number;
	dropRate?: number;
	hangRate?: number;
	times?: number;
	/** `times` counts per Authorization header (each credential's token has its own count), not for all requests. */
	timesPerToken?: boolean;
	when?: 'before' | 'after';
	trickleMs?: number;
	answer?: { status: number; body: string; contentType?: string; headers?: Record<string, string> };
}

export type FaultAction =
	| { kind: 'drop' }
	| { kind: 'hang' }
	| { kind: 'error'; status: number }
	| { kind: '429'; retryAfter: boolean }
	| {
			kind: 'answer';
			status: number;
			body: string;
			contentType?: string;
			headers?: Record<string, string>;
	  };

export interface FaultDecision {
	latencyMs: number;
	trickleMs?: number;
	action?: FaultAction;
	when: 'before' | 'after';
}

interface CompiledRule extends FaultRule {
	re?: RegExp;
	queryRe?: RegExp;
	hits: number;
	hitsByToken?: Map<string, number>;
}

/** mulberry32: a small seeded PRNG so fault runs repeat. */
export function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export class Faults {
	private rules: CompiledRule[] = [];
	private random: () => number = Math.random;

	get active(): boolean {
		return this.rules.length > 0;
	}

	/** Replaces the rules; throws on a bad regex or value. */
	set(rules: FaultRule[], seed?: number): number {
		if (!Array.isArray(rules)) throw new Error('rules must be an array');
		this.rules = rules.map((r) => {
			for (const k of ['errorRate', 'rate429', 'retryAfterRate', 'dropRate', 'hangRate'] as const) {
				if (r[k] !== undefined && (typeof r[k] !== 'number' || r[k]! < 0 || r[k]! > 1))
					throw new Error(`${k} must be a number 0..1`);
			}
			if (r.errorStatus !== undefined && (r.errorStatus < 400 || r.errorStatus > 599))
				throw new Error('errorStatus must be 400..599');
			if (r.trickleMs !== undefined && !(typeof r.trickleMs === 'number' && r.trickleMs >= 100))
				throw new Error('trickleMs must be a number >= 100');
			return {
				...r,
				method: r.method?.toUpperCase(),
				re: r.path ? new RegExp(r.path) : undefined,
				queryRe: r.query !== undefined ? new RegExp(r.query) : undefined,
				hits: 0,
			};
		});
		this.random = seed !== undefined ? prng(Number(seed)) : Math.random;
		return this.rules.length;
	}

	clear(): void {
		this.rules = [];
		this.random = Math.random;
	}

	list(): FaultRule[] {
		return this.rules.map(({ re: _re, queryRe: _queryRe, hitsByToken: _byToken, ...r }) => r);
	}

	decide(method: string, path: string, search = '', authorization = ''): FaultDecision | undefined {
		for (const rule of this.rules) {
			if (rule.method && rule.method !== method) continue;
			if (rule.re ? !rule.re.test(path) : !path.startsWith('/api/')) continue;
			if (rule.queryRe && !rule.queryRe.test(search)) continue;
			if (rule.timesPerToken) {
				rule.hitsByToken ??= new Map();
				const hits = rule.hitsByToken.get(authorization) ?? 0;
				if (rule.times !== undefined && hits >= rule.times) continue;
				rule.hitsByToken.set(authorization, hits + 1);
			} else {
				if (rule.times !== undefined && rule.hits >= rule.times) continue;
				rule.hits++;
			}
			const roll = this.random();
			let edge = 0;
			let action: FaultAction | undefined;
			if (rule.answer) action = { kind: 'answer', ...rule.answer };
			else if (rule.dropRate && roll < (edge += rule.dropRate)) action = { kind: 'drop' };
			else if (rule.hangRate && roll < (edge += rule.hangRate)) action = { kind: 'hang' };
			else if (rule.errorRate && roll < (edge += rule.errorRate))
				action = { kind: 'error', status: rule.errorStatus ?? 500 };
			else if (rule.rate429 && roll < (edge += rule.rate429))
				action = { kind: '429', retryAfter: this.random() < (rule.retryAfterRate ?? 0) };
			return {
				latencyMs: rule.latencyMs ?? 0,
				...(rule.trickleMs !== undefined ? { trickleMs: rule.trickleMs } : {}),
				action,
				when: action?.kind === '429' ? 'before' : (rule.when ?? 'before'),
			};
		}
		return undefined;
	}
}
