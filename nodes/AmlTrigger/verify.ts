import { createHash, createHmac, timingSafeEqual } from 'crypto';

export type VerificationMethod = 'header' | 'basicAuth' | 'hmac';

export interface VerificationSettings {
	method: VerificationMethod;
	headerName?: string;
	headerSecret?: string;
	user?: string;
	password?: string;
	hmacHeaderName?: string;
	hmacSecret?: string;
}

/** Constant-time comparison of two texts (a length mismatch is compared against itself, then fails). */
export function safeEqual(actual: string, expected: string): boolean {
	const a = Buffer.from(actual, 'utf8');
	const b = Buffer.from(expected, 'utf8');
	if (a.length !== b.length) {
		timingSafeEqual(b, b);
		return false;
	}
	return timingSafeEqual(a, b);
}

function header(headers: Record<string, unknown>, name: string): string {
	const value = headers[name.toLowerCase()];
	if (Array.isArray(value)) return String(value[0] ?? '');
	return typeof value === 'string' ? value : '';
}

/** HMAC-SHA256 hex of the raw body bytes, as the receiver recomputes it. */
export function hmacHex(secret: string, rawBody: Buffer): string {
	return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Whether a delivery passes the configured verification. Never re-serialises JSON: raw bytes only. */
export function verifyDelivery(settings: VerificationSettings, headers: Record<string, unknown>, rawBody: Buffer): boolean {
	switch (settings.method) {
		case 'header': {
			const expected = settings.headerSecret ?? '';
			return expected !== '' && safeEqual(header(headers, settings.headerName || 'X-AML-Secret'), expected);
		}
		case 'basicAuth': {
			const auth = header(headers, 'authorization');
			const match = /^Basic\s+(.+)$/i.exec(auth);
			if (!match || !settings.user) return false;
			const decoded = Buffer.from(match[1], 'base64').toString('utf8');
			return safeEqual(decoded, `${settings.user}:${settings.password ?? ''}`);
		}
		case 'hmac': {
			if (!settings.hmacSecret) return false;
			const sent = header(headers, settings.hmacHeaderName || 'X-AML-Signature').trim().replace(/^sha256=/i, '').toLowerCase();
			return safeEqual(sent, hmacHex(settings.hmacSecret, rawBody));
		}
		default:
			return false;
	}
}

/** Key under which an accepted delivery is remembered for deduplication. */
export function deliveryKey(rawBody: Buffer): string {
	return createHash('sha256').update(rawBody).digest('hex');
}

/** Remembers accepted deliveries for `windowMs`; returns true when the key was already seen. */
export function seenBefore(store: Record<string, number>, key: string, now: number, windowMs: number, maxEntries = 20_000): boolean {
	for (const [k, at] of Object.entries(store)) {
		if (now - at > windowMs) delete store[k];
	}
	if (store[key] !== undefined) return true;
	store[key] = now;
	const keys = Object.keys(store);
	if (keys.length > maxEntries) {
		keys
			.sort((x, y) => store[x] - store[y])
			.slice(0, keys.length - maxEntries)
			.forEach((k) => delete store[k]);
	}
	return false;
}

/** What is missing from a verification credential, or undefined when it is complete. */
export function missingSetting(settings: VerificationSettings): string | undefined {
	if (settings.method === 'header' && !settings.headerSecret) return 'Header Secret is empty';
	if (settings.method === 'basicAuth' && (!settings.user || !settings.password)) return 'User and Password are required';
	if (settings.method === 'hmac' && !settings.hmacSecret) return 'Signing Secret is empty';
	return undefined;
}
