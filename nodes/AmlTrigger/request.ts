import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import type { Headers } from './verify';

type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

export { rawBodyOf } from '../shared/n8n/webhookRequest';

const isObject = (value: unknown): value is IDataObject =>
	!!value && typeof value === 'object' && !Array.isArray(value);

/**
 * The event `{action, createdTime, metadata}`, read from the raw bytes of the delivery as JSON, whatever its content
 * type: those are the bytes the verification checked. n8n's parsed body is never read (it parses by the caller's
 * content type: signed JSON sent as form data would yield other fields). Undefined when the bytes are not a JSON
 * object with a text `action`.
 */
export function payloadOf(rawBody: Buffer | undefined): IDataObject | undefined {
	let payload: unknown;
	try {
		payload = rawBody?.length ? jsonParse(rawBody.toString('utf8')) : undefined;
	} catch {
		payload = undefined;
	}
	if (!isObject(payload) || typeof payload.action !== 'string' || !payload.action.trim())
		return undefined;
	return payload;
}

/** Deepest nesting of objects and lists an event may have (the service's events have 3 or 4 levels). */
export const MAX_EVENT_DEPTH = 32;

/**
 * Whether `value` nests objects or lists deeper than `maxDepth`. Iterative (a hostile body nested 100,000 deep
 * must not overflow the stack here), and it stops at the first branch too deep. A payload that passes is also safe
 * for n8n to store and show: a deeply nested execution makes n8n's execution API fail.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
	const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
	while (stack.length) {
		const { value: current, depth } = stack.pop()!;
		if (!current || typeof current !== 'object') continue;
		if (depth >= maxDepth) return true;
		for (const child of Object.values(current as object))
			stack.push({ value: child, depth: depth + 1 });
	}
	return false;
}

/** Request headers for the output, with the values of secret-bearing headers replaced. */
export function redactedHeaders(headers: Headers, secretNames: string[]): IDataObject {
	const out: IDataObject = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined) continue;
		out[name] = secretNames.includes(name.toLowerCase()) ? '[redacted]' : value;
	}
	return out;
}

/** Answers the delivery with `status` and `{message}` and starts nothing. */
export function reply(res: WebhookResponse, status: number, message: string): IWebhookResponseData {
	res.status(status).json({ message });
	return { noWebhookResponse: true };
}
