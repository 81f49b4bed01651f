import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

/** What the interface says each status means and what the user should do. */
export const STATUS_MEANING: Record<number, string> = {
	400: 'Bad request: the service rejected the request format or parameters. Check the body and parameters',
	401: 'Authentication failed: the token is missing or invalid even after fetching a new one. Check the client ID, secret, token URL and that the credentials were not deleted in the AML UI',
	403: 'Insufficient permissions: the client credentials may not do this (for example person deletion through the API not enabled, or alert status updates with credentials created before 16.05.2023)',
	404: 'Not found: the resource does not exist. Verify the ID (IDs are case-sensitive)',
	409: 'State conflict: the resource is in a state that does not allow this (for example an archived record). Check its current state before retrying',
	413: 'Payload too large: the service accepts CSV files up to 100 MB',
	422: 'Already exists: an entity with this ID already exists. Use the existing entity or a different ID',
	429: 'Rate limit exceeded: the service kept answering 429 after the node backed off and retried',
};

export function statusMeaning(status: number, attempts = 2): string {
	if (status === 429 && attempts <= 1) return 'Rate limit exceeded: the service answered 429';
	if (STATUS_MEANING[status]) return STATUS_MEANING[status];
	if (status >= 300 && status < 400) {
		return `Redirect (HTTP ${status}): the interface never redirects, so the node does not follow it and sends the token nowhere else. Check the API base URL of the credential (for example https:// instead of http://, or a missing path prefix)`;
	}
	if (status >= 500) {
		return attempts > 1
			? `Service error (${status}): the service failed; the node retried with increasing intervals and gave up`
			: `Service error (${status}): the service failed`;
	}
	return `Unexpected HTTP status ${status}`;
}

/** A one-shot request (not repeatable) that reached the service and got no usable answer: it may have been applied. */
export interface MayHaveApplied {
	/** How to see whether it was applied, e.g. "Get Status of the upload". */
	checkHint: string;
}

function mayHaveAppliedText(may: MayHaveApplied): string {
	return `The request reached the service and may have been applied; it was not repeated, because a repeat could apply it twice. Check before running it again${may.checkHint ? ` (${may.checkHint})` : ''}`;
}

const MESSAGE_KEYS = ['message', 'error_description', 'detail', 'error'];

/** The message of a service error body: its first text field of MESSAGE_KEYS, else the body as text. */
export function bodyMessage(body: unknown, max = 300): string {
	if (body === undefined || body === null || body === '') return '';
	if (typeof body === 'string') return body.trim().slice(0, max);
	if (Buffer.isBuffer(body)) return body.toString('utf8').trim().slice(0, max);
	if (typeof body === 'object') {
		for (const key of MESSAGE_KEYS) {
			const value = (body as Record<string, unknown>)[key];
			if (typeof value === 'string' && value.trim()) return value.trim().slice(0, max);
		}
		return JSON.stringify(body).slice(0, max);
	}
	return String(body).slice(0, max);
}

/** Service error bodies are JSON or plain text: surface either verbatim (a JSON body with its message first). */
export function bodyText(body: unknown): string {
	if (body && typeof body === 'object' && !Buffer.isBuffer(body)) {
		const message = bodyMessage(body, Infinity);
		const whole = JSON.stringify(body);
		if (message === whole) return whole;
		return whole.length <= 500 ? `${message} (${whole})` : message;
	}
	return bodyMessage(body, Infinity);
}

export interface ServiceFailure {
	status: number;
	body?: unknown;
	method: string;
	path: string;
	attempts: number;
	mayHaveApplied?: MayHaveApplied;
}

/** A NodeApiError built only from sanitised facts: never the request config, headers or token. */
export function serviceError(
	node: INode,
	failure: ServiceFailure,
	itemIndex?: number,
): NodeApiError {
	const text = bodyText(failure.body);
	const short = text.length > 300 ? `${text.slice(0, 300)}…` : text;
	const meaning = statusMeaning(failure.status, failure.attempts);
	const applied =
		failure.mayHaveApplied && failure.status >= 500
			? `. ${mayHaveAppliedText(failure.mayHaveApplied)}`
			: '';
	const message = `${meaning}${short ? ` — service said: ${short}` : ''}${applied}`;
	const description = [
		`${failure.method} ${failure.path} answered HTTP ${failure.status}` +
			(failure.attempts > 1 ? ` after ${failure.attempts} attempts` : ''),
		text && text !== short ? `Full response: ${text.slice(0, 4000)}` : '',
	]
		.filter(Boolean)
		.join('. ');
	const response: JsonObject = { httpCode: String(failure.status), message, description };
	return new NodeApiError(node, response, {
		message,
		description,
		httpCode: String(failure.status),
		itemIndex,
	});
}

const NETWORK_WORDS: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ECONNRESET: 'connection dropped',
	EPIPE: 'connection dropped',
	ETIMEDOUT: 'timed out',
	ECONNABORTED: 'timed out',
	ESOCKETTIMEDOUT: 'timed out',
	ENOTFOUND: 'host not found',
	EAI_AGAIN: 'host not found',
};

/** Network-level failures (no HTTP answer). */
export function networkError(
	node: INode,
	code: string,
	method: string,
	path: string,
	attempts: number,
	itemIndex?: number,
	mayHaveApplied?: MayHaveApplied,
): NodeApiError {
	// The code itself stays out of the message: n8n would swap a message containing it for a generic one.
	const words = NETWORK_WORDS[code] ?? 'no answer';
	if (mayHaveApplied) {
		const message = `No answer from the AML service (${words}). ${mayHaveAppliedText(mayHaveApplied)}`;
		const description = `${method} ${path} was sent and got no HTTP answer (${code.toLowerCase()}).`;
		return new NodeApiError(node, { message, description, networkCode: code } as JsonObject, {
			message,
			description,
			itemIndex,
		});
	}
	const message = `The AML service could not be reached (${words})`;
	const description = `${method} ${path} got no HTTP answer after ${attempts} attempt(s) (${code.toLowerCase()}). Check the API base URL in the credential and that the service is reachable.`;
	return new NodeApiError(node, { message, description, networkCode: code } as JsonObject, {
		message,
		description,
		itemIndex,
	});
}
