import { createHash, createHmac, timingSafeEqual } from 'crypto';

/** Verification methods of the AML Webhook credential (the service publishes no signature scheme: these match what an account can be set up to send). */
export type VerificationMethod = 'header' | 'basicAuth' | 'hmac';

/** The AML Webhook credential's data. */
export interface VerificationSettings {
	method: VerificationMethod;
	headerName?: string;
	headerSecret?: string;
	user?: string;
	password?: string;
	hmacHeaderName?: string;
	hmacSecret?: string;
}

export const DEFAULT_SECRET_HEADER = 'X-AML-Secret';
export const DEFAULT_SIGNATURE_HEADER = 'X-AML-Signature';

export type Headers = Record<string, string | string[] | undefined>;

const sha256 = (value: Buffer | string): Buffer => createHash('sha256').update(value).digest();

/**
 * Constant-time comparison of two texts. Both sides are hashed to 32 bytes first, so timingSafeEqual always
 * compares equal-length buffers and neither the content nor the length of the secret leaks through timing.
 */
export function safeEqual(actual: string, expected: string): boolean {
	return timingSafeEqual(sha256(actual), sha256(expected));
}

/** A request header by name (case-insensitive); repeated headers give their first value. */
export function headerValue(headers: Headers, name: string): string {
	const wanted = name.trim().toLowerCase();
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== wanted) continue;
		if (Array.isArray(value)) return String(value[0] ?? '');
		return typeof value === 'string' ? value : '';
	}
	return '';
}

/** HMAC-SHA256 of the raw body bytes, hex (what the service is expected to send). */
export function hmacHex(secret: string, rawBody: Buffer): string {
	return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** The 32 signature bytes of a header value `<64 hex>` or `sha256=<64 hex>` (any case), or undefined. */
export function signatureBytes(value: string): Buffer | undefined {
	const hex = value.trim().replace(/^sha256=/i, '');
	return /^[0-9a-f]{64}$/i.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/** Credentials of any kind a caller or a proxy in between may send, whatever the verification method (lower case). */
export const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

/**
 * The output fields the trigger declares credential-equivalent to n8n (`sensitiveOutputFields`, dot paths in an
 * item's json): the headers of CREDENTIAL_HEADERS and the default verification headers under Include Headers. A
 * header name set in the credential cannot be declared (the declaration is fixed); the trigger replaces its value
 * itself, as it does every one of these (`secretHeaderNames`).
 */
export const SENSITIVE_OUTPUT_FIELDS = [
	...CREDENTIAL_HEADERS,
	DEFAULT_SECRET_HEADER.toLowerCase(),
	DEFAULT_SIGNATURE_HEADER.toLowerCase(),
].map((name) => `headers.${name}`);

/** Names of the headers that carry a secret under these settings (lower case), to keep them out of the output. */
export function secretHeaderNames(settings?: VerificationSettings): string[] {
	const names = [...CREDENTIAL_HEADERS];
	const text = (value: unknown, fallback: string) =>
		(typeof value === 'string' && value ? value : fallback).trim().toLowerCase();
	if (settings?.method === 'header') names.push(text(settings.headerName, DEFAULT_SECRET_HEADER));
	if (settings?.method === 'hmac')
		names.push(text(settings.hmacHeaderName, DEFAULT_SIGNATURE_HEADER));
	return names;
}

/**
 * Whether a delivery passes the configured verification. HMAC is computed over the raw body bytes as received,
 * never over re-serialised JSON; a missing raw body fails. Incomplete or unusable settings fail (never "accept
 * all"; a blank secret, the text "undefined", a value that is not text): the same check as the credential test
 * (`missingSetting`), so it does not rest on n8n's form refusing an empty field. Nothing here throws: a check that
 * cannot be made refuses the delivery.
 */
export function verifyDelivery(
	settings: VerificationSettings,
	headers: Headers,
	rawBody: Buffer | undefined,
): boolean {
	try {
		return missingSetting(settings) === undefined && matches(settings, headers, rawBody);
	} catch {
		return false;
	}
}

/** The comparison itself, for complete settings (every field used is text). */
function matches(
	settings: VerificationSettings,
	headers: Headers,
	rawBody: Buffer | undefined,
): boolean {
	switch (settings.method) {
		case 'header': {
			const expected = settings.headerSecret ?? '';
			const sent = headerValue(headers, settings.headerName || DEFAULT_SECRET_HEADER);
			return safeEqual(sent, expected) && expected !== '';
		}
		case 'basicAuth': {
			const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(headerValue(headers, 'authorization'));
			const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
			const colon = decoded.indexOf(':');
			const user = colon >= 0 ? decoded.slice(0, colon) : '';
			const password = colon >= 0 ? decoded.slice(colon + 1) : '';
			// Both comparisons always run, so a wrong user and a wrong password take the same time.
			const userOk = safeEqual(user, settings.user ?? '');
			const passwordOk = safeEqual(password, settings.password ?? '');
			return userOk && passwordOk && colon >= 0;
		}
		case 'hmac': {
			const secret = settings.hmacSecret ?? '';
			const sent = signatureBytes(
				headerValue(headers, settings.hmacHeaderName || DEFAULT_SIGNATURE_HEADER),
			);
			const expected = createHmac('sha256', secret)
				.update(rawBody ?? Buffer.alloc(0))
				.digest();
			// Both are 32 bytes when the header is well-formed; a malformed header is compared against itself, then fails.
			const same = timingSafeEqual(sent ?? expected, expected);
			return same && sent !== undefined && secret !== '' && rawBody !== undefined;
		}
		default:
			return false;
	}
}

const LABELS: Record<string, string> = {
	headerName: 'Header Name',
	headerSecret: 'Header Value',
	user: 'User',
	password: 'Password',
	hmacHeaderName: 'Signature Header Name',
	hmacSecret: 'Signing Secret',
};

/** Fields each method needs set (secrets) and may set (header names, a default when empty). */
const FIELDS: Record<VerificationMethod, { required: string[]; optional: string[] }> = {
	header: { required: ['headerSecret'], optional: ['headerName'] },
	basicAuth: { required: ['user', 'password'], optional: [] },
	hmac: { required: ['hmacSecret'], optional: ['hmacHeaderName'] },
};

/**
 * Why a setting's value cannot be used, or undefined when it can. A value that is not text (a number, boolean, list
 * or object from an expression) is never compared. A required text that is empty after trimming spaces, or the text
 * "undefined" or "null" (an expression that resolved to nothing), is not set. The value itself is never named.
 */
function unusable(field: string, value: unknown, required: boolean): string | undefined {
	const label = LABELS[field] ?? field;
	if (value === undefined || value === null || value === '')
		return required ? `${label} is empty` : undefined;
	if (typeof value !== 'string')
		return `${label} is not text (${Array.isArray(value) ? 'a list' : `a ${typeof value}`}): check its expression`;
	const trimmed = value.trim();
	if (!required) return trimmed ? undefined : `${label} is blank`;
	if (!trimmed) return `${label} is empty (spaces only)`;
	if (trimmed === 'undefined' || trimmed === 'null')
		return `${label} is the text "${trimmed}": check its expression`;
	return undefined;
}

/** What is missing or unusable in a verification credential, or undefined when it is complete. */
export function missingSetting(settings: Partial<VerificationSettings>): string | undefined {
	const method = settings.method;
	if (typeof method !== 'string' || !Object.prototype.hasOwnProperty.call(FIELDS, method))
		return 'Choose a verification method';
	const fields = FIELDS[method];
	const data = settings as Record<string, unknown>;
	const problems = [
		...fields.required.map((f) => unusable(f, data[f], true)),
		...fields.optional.map((f) => unusable(f, data[f], false)),
	].filter((p): p is string => p !== undefined);
	if (!problems.length) return undefined;
	if (method === 'basicAuth' && problems.every((p) => / is empty/.test(p)))
		return 'User and Password are both required';
	return problems.join('; ');
}
