import type { IDataObject } from 'n8n-workflow';

import {
	DEFAULT_SECRET_HEADER,
	DEFAULT_SIGNATURE_HEADER,
	headerValue,
	missingSetting,
	signatureBytes,
	type Headers,
	type VerificationSettings,
} from './verify';

/**
 * What a refused delivery tells the person setting the trigger up: why it was refused and which verification method
 * would check what arrived. Built from header names and the shape of the Authorization header only: never a header's
 * value, a secret or the body.
 */

/** Item field that carries a refusal from `webhook()` to `execute()` in test mode; a body's own is removed. */
export const REFUSAL_FIELD = '__amlRefusal';

/** At most one log line per trigger within this span; the refusals in between are counted on the next line. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;

/** Header names as HTTP allows them (token characters), at most this many shown. */
const NAME = /^[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/;
const MAX_NAMES = 40;

export interface Refusal {
	status: number;
	reason: string;
	/** Which method would check what arrived, for the editor and the log. */
	hints: string[];
	/** Names of the headers that arrived (lower case, sorted); never their values. */
	headerNames: string[];
}

/** Names of the request headers, lower case, sorted, only valid names, at most MAX_NAMES. */
export function headerNamesOf(headers: Headers): string[] {
	return Object.entries(headers)
		.filter(([, value]) => value !== undefined)
		.map(([name]) => name.toLowerCase())
		.filter((name) => NAME.test(name))
		.sort()
		.slice(0, MAX_NAMES);
}

const quoted = (name: string) => `"${name}"`;

/** Which verification method would check the headers that arrived. */
export function methodHints(headers: Headers): string[] {
	const names = headerNamesOf(headers);
	const hints: string[] = [];
	const auth = headerValue(headers, 'authorization').trim();
	if (auth) {
		const scheme = /^([A-Za-z][A-Za-z0-9-]{0,20})\s/.exec(auth)?.[1];
		if (scheme?.toLowerCase() === 'basic')
			hints.push(
				'An Authorization header with Basic credentials arrived: the Basic Auth method checks it.',
			);
		else
			hints.push(
				`An Authorization header${scheme ? ` (${scheme} scheme)` : ''} arrived: the Secret Header method with Header Name "Authorization" and its whole value checks it.`,
			);
	}
	for (const name of names) {
		if (/^(authorization|proxy-authorization)$/.test(name)) continue;
		if (/signature|hmac|-sig$/.test(name))
			hints.push(
				`A signature-like header ${quoted(name)} arrived: the HMAC-SHA256 Signature method with Signature Header Name ${quoted(name)} checks it, if it carries the hex HMAC-SHA256 of the body.`,
			);
		else if (/secret|token|api-?key|auth|password/.test(name))
			hints.push(
				`A secret-like header ${quoted(name)} arrived: the Secret Header method with Header Name ${quoted(name)} checks it.`,
			);
	}
	if (!hints.length)
		hints.push(
			"No header that could carry a secret or a signature arrived: the AML account sends none. Set a secret header or basic auth in the AML web UI's webhook settings and the same in the AML Webhook API credential.",
		);
	return hints;
}

/** Why the configured verification refused a delivery (no value of any header or setting in it). */
export function verificationFailure(
	settings: VerificationSettings,
	headers: Headers,
	rawBody: Buffer | undefined,
): string {
	const missing = missingSetting(settings);
	if (missing) return `the AML Webhook API credential is incomplete: ${missing}`;
	switch (settings.method) {
		case 'header': {
			const name = settings.headerName || DEFAULT_SECRET_HEADER;
			return headerValue(headers, name)
				? `the ${name} header does not carry the credential's Header Value (Secret Header method)`
				: `no ${name} header arrived (Secret Header method)`;
		}
		case 'basicAuth': {
			const auth = headerValue(headers, 'authorization').trim();
			if (!auth) return 'no Authorization header arrived (Basic Auth method)';
			if (!/^Basic\s/i.test(auth))
				return 'the Authorization header is not Basic credentials (Basic Auth method)';
			return "the Authorization header's user or password differs from the credential's (Basic Auth method)";
		}
		case 'hmac': {
			const name = settings.hmacHeaderName || DEFAULT_SIGNATURE_HEADER;
			const sent = headerValue(headers, name);
			if (!sent) return `no ${name} header arrived (HMAC-SHA256 Signature method)`;
			if (!signatureBytes(sent))
				return `the ${name} header is not a hex HMAC-SHA256 (64 hex digits, "sha256=" allowed)`;
			if (rawBody === undefined) return 'the body could not be read as bytes (multipart)';
			return `the ${name} signature does not match the body (another secret, or the body was changed on the way)`;
		}
		default:
			return 'no verification method is chosen';
	}
}

/** The refusal of a delivery: its status, reason, the method hints and the header names. */
export function refusalOf(status: number, reason: string, headers: Headers): Refusal {
	return { status, reason, hints: methodHints(headers), headerNames: headerNamesOf(headers) };
}

/** The refusal as the item `webhook()` hands to `execute()` in test mode. */
export function refusalItem(refusal: Refusal): IDataObject {
	return { [REFUSAL_FIELD]: refusal as unknown as IDataObject };
}

/** The refusal an item carries, when it carries one. */
export function refusalIn(json: IDataObject): Refusal | undefined {
	const r = json[REFUSAL_FIELD] as Refusal | undefined;
	return r && typeof r === 'object' && typeof r.reason === 'string' ? r : undefined;
}

/** The refusal for the editor: a message and a description (header names, methods that would match). */
export function refusalText(refusal: Refusal): { message: string; description: string } {
	return {
		message: `Delivery refused (${refusal.status}): ${refusal.reason}`,
		description: [
			`Headers that arrived (names only): ${refusal.headerNames.join(', ') || 'none'}.`,
			...refusal.hints,
			`The caller was answered ${refusal.status}; nothing else ran.`,
		].join(' '),
	};
}

/**
 * Rate limit of the refusal log: at most one line per trigger per REFUSAL_LOG_INTERVAL_MS; the refusals in between
 * are counted and named on the next line. One per n8n process.
 */
export class RefusalLog {
	private triggers = new Map<string, { loggedAt: number; unlogged: number }>();

	/** Whether to log this refusal now, and how many went unlogged before it. */
	take(trigger: string, nowMs: number): { log: boolean; unlogged: number } {
		const t = this.triggers.get(trigger);
		if (t && nowMs - t.loggedAt < REFUSAL_LOG_INTERVAL_MS && nowMs >= t.loggedAt) {
			t.unlogged++;
			return { log: false, unlogged: t.unlogged };
		}
		const unlogged = t?.unlogged ?? 0;
		this.triggers.set(trigger, { loggedAt: nowMs, unlogged: 0 });
		// Triggers quiet for a while are forgotten: the map holds only the recently refusing ones.
		if (this.triggers.size > 1000)
			for (const [id, e] of this.triggers)
				if (nowMs - e.loggedAt >= REFUSAL_LOG_INTERVAL_MS) this.triggers.delete(id);
		return { log: true, unlogged };
	}
}

export const refusalLog = new RefusalLog();

/** The log line of a refusal (no header value, secret or body). */
export function refusalLogLine(
	nodeName: string,
	workflowId: string | undefined,
	refusal: Refusal,
	unlogged: number,
): string {
	const more = unlogged
		? ` ${unlogged} more ${unlogged === 1 ? 'delivery was' : 'deliveries were'} refused by this trigger since its previous line.`
		: '';
	const hint = refusal.status === 401 ? ` ${refusal.hints.join(' ')}` : '';
	return `AML Trigger "${nodeName}" of workflow ${workflowId ?? '?'} refused a delivery (${refusal.status}): ${refusal.reason}.${hint}${more}`;
}
