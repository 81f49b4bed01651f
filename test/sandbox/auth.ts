import { randomBytes } from 'node:crypto';

import { fail, ok, type Reply } from './http';

export const DEMO_CLIENT_ID = 'aml-demo-client';
export const DEMO_CLIENT_SECRET = 'aml-demo-secret';

export interface TokenStats {
	tokenRequests: number;
	tokenRequests429: number;
	tokensIssued: number;
}

/**
 * OAuth 2.0 client credentials: `POST /oauth/token` with HTTP Basic and `grant_type=client_credentials`
 * (`scope=aml` optional). Rate limit per client IP (default 5 per 60 s) → 429 with Retry-After. Opaque random tokens.
 */
export class Auth {
	private tokens = new Map<string, number>();
	private windows = new Map<string, number[]>();
	/**
	 * Every access token issued since the sandbox started, in order; kept across reset and expiry (not counted in
	 * `tokens`), so that a test can search outputs and logs for any token a run ever held. Capped at 100,000.
	 */
	readonly issued: string[] = [];

	reset(): void {
		this.tokens.clear();
		this.windows.clear();
	}

	/** Forgets the requests counted against the limit (a new limit starts with an empty window). */
	clearLimitWindows(): void {
		this.windows.clear();
	}

	expireAll(): void {
		this.tokens.clear();
	}

	/** True when the Authorization header carries a known, unexpired bearer token. */
	verify(header: string | undefined): boolean {
		if (!header || header.length < 8 || !/^bearer /i.test(header)) return false;
		const token = header.slice(7).trim();
		const expiry = this.tokens.get(token);
		if (expiry === undefined) return false;
		if (expiry <= Date.now()) {
			this.tokens.delete(token);
			return false;
		}
		return true;
	}

	issue(
		ip: string,
		authorization: string | undefined,
		rawBody: string,
		limit: { max: number; windowSeconds: number },
		lifetimeSeconds: number,
		stats: TokenStats,
	): Reply {
		stats.tokenRequests++;
		const nowMs = Date.now();
		const windowMs = limit.windowSeconds * 1000;
		const recent = (this.windows.get(ip) ?? []).filter((t) => nowMs - t < windowMs);
		if (recent.length >= limit.max) {
			this.windows.set(ip, recent);
			stats.tokenRequests429++;
			const retry = Math.max(1, Math.ceil((recent[0] + windowMs - nowMs) / 1000));
			return {
				status: 429,
				body: {
					error: 'too_many_requests',
					error_description: `token endpoint rate limit: ${limit.max} requests per ${limit.windowSeconds} s`,
				},
				headers: { 'retry-after': String(retry) },
			};
		}
		recent.push(nowMs);
		this.windows.set(ip, recent);
		const basic = /^Basic\s+(.+)$/i.exec(authorization ?? '')?.[1];
		if (!basic)
			return {
				status: 401,
				body: {
					error: 'invalid_client',
					error_description: 'HTTP Basic client authentication is required',
				},
				headers: { 'www-authenticate': 'Basic realm="oauth"' },
			};
		const decoded = Buffer.from(basic, 'base64').toString('utf8');
		const colon = decoded.indexOf(':');
		const id = safeDecode(decoded.slice(0, colon < 0 ? undefined : colon));
		const secret = colon < 0 ? '' : safeDecode(decoded.slice(colon + 1));
		const form = new URLSearchParams(rawBody);
		if (form.get('grant_type') !== 'client_credentials')
			return {
				status: 400,
				body: {
					error: 'unsupported_grant_type',
					error_description: 'grant_type must be client_credentials',
				},
			};
		const scope = form.get('scope');
		if (scope !== null && scope.split(/\s+/).some((s) => s && s !== 'aml'))
			return {
				status: 400,
				body: { error: 'invalid_scope', error_description: 'the only scope is aml' },
			};
		if (id !== DEMO_CLIENT_ID || secret !== DEMO_CLIENT_SECRET)
			return {
				status: 401,
				body: { error: 'invalid_client', error_description: 'Bad client credentials' },
			};
		const token = randomBytes(24).toString('base64url');
		this.tokens.set(token, nowMs + lifetimeSeconds * 1000);
		if (this.issued.length < 100_000) this.issued.push(token);
		if (this.tokens.size > 100_000) this.prune(nowMs);
		stats.tokensIssued++;
		return ok({
			access_token: token,
			expires_in: lifetimeSeconds,
			token_type: 'Bearer',
			scope: 'aml',
		});
	}

	private prune(nowMs: number): void {
		for (const [t, exp] of this.tokens) if (exp <= nowMs) this.tokens.delete(t);
	}
}

function safeDecode(s: string): string {
	try {
		return decodeURIComponent(s.replace(/\+/g, ' '));
	} catch {
		return s;
	}
}

export const unauthorized = (): Reply =>
	fail(401, 'Full authentication is required to access this resource');
