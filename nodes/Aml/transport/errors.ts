import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { NEVER_SENT } from './classify';
import { quoteServiceText } from './quote';

/**
 * Errors of failures that say nothing about the request's subject (5xx, 429 after retries, no answer, a busy or
 * unreachable token endpoint): a check turns them into a fail-closed Block, an upload's status poll keeps waiting.
 * Marked where they are made, so that no message text is read again.
 */
const unavailable = new WeakSet<object>();

function markUnavailable<E extends object>(error: E): E {
	unavailable.add(error);
	return error;
}

/** Whether the error says only that the service (or its token endpoint) could not answer: see `unavailable`. */
export function isTransientFailure(error: unknown): boolean {
	return typeof error === 'object' && error !== null && unavailable.has(error);
}

/** Errors of the item's time budget (the "Time Budget" option): a check blocks with reason `timeout`. */
const budgetSpent = new WeakSet<object>();

export function isBudgetSpent(error: unknown): boolean {
	return typeof error === 'object' && error !== null && budgetSpent.has(error);
}

/**
 * Errors after an attempt that reached the service and got no usable answer: the request may have been applied (a
 * check may have run and raised its alert). Every other error of a request means that nothing was applied.
 */
const reachedService = new WeakSet<object>();

function markMayHaveApplied<E extends object>(error: E, may: boolean | undefined): E {
	if (may) reachedService.add(error);
	return error;
}

/** Whether an attempt of the failed request reached the service, so that it may have been applied. */
export function mayHaveApplied(error: unknown): boolean {
	return typeof error === 'object' && error !== null && reachedService.has(error);
}

export function budgetSpentError(
	node: INode,
	failure: { budgetMs: number; method: string; path: string; attempts: number; sent: boolean },
	itemIndex?: number,
): NodeApiError {
	const message = failure.sent
		? `Time budget of ${failure.budgetMs} ms spent: the AML service did not answer in time. The request reached the service and may have been applied`
		: `Time budget of ${failure.budgetMs} ms spent before the AML service answered. The request was not applied`;
	const description = `${failure.method} ${failure.path}: ${failure.attempts} attempt(s) within the time budget (the node's "Time Budget" option).`;
	const error = new NodeApiError(node, { message, description } as JsonObject, {
		message,
		description,
		itemIndex,
	});
	budgetSpent.add(error);
	return markUnavailable(markMayHaveApplied(error, failure.sent));
}

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

/** A request an attempt of which reached the service and got no usable answer: it may have been applied. */
export interface MayHaveApplied {
	/** How to see whether it was applied, e.g. "Get Status of the upload". */
	checkHint: string;
	/** The request may not be repeated once it may have been applied (uploads, manual alerts, checks). */
	notRepeated: boolean;
}

function mayHaveAppliedText(may: MayHaveApplied): string {
	const repeat = may.notRepeated
		? '; it was not repeated, because a repeat could apply it twice'
		: '';
	return `The request reached the service and may have been applied${repeat}. Check before running it again${may.checkHint ? ` (${may.checkHint})` : ''}`;
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
	const text = quoteServiceText(bodyText(failure.body));
	const short = quoteServiceText(text, 300);
	const meaning = statusMeaning(failure.status, failure.attempts);
	const applied = failure.mayHaveApplied ? `. ${mayHaveAppliedText(failure.mayHaveApplied)}` : '';
	const message = `${meaning}${short ? ` — service said: ${short}` : ''}${applied}`;
	const description = [
		`${failure.method} ${failure.path} answered HTTP ${failure.status}` +
			(failure.attempts > 1 ? ` after ${failure.attempts} attempts` : ''),
		text && text !== short ? `Full response: ${text}` : '',
	]
		.filter(Boolean)
		.join('. ');
	const response: JsonObject = { httpCode: String(failure.status), message, description };
	const error = new NodeApiError(node, response, {
		message,
		description,
		httpCode: String(failure.status),
		itemIndex,
	});
	markMayHaveApplied(error, failure.mayHaveApplied !== undefined);
	return failure.status >= 500 || failure.status === 429 ? markUnavailable(error) : error;
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
		const description = `${method} ${path} was sent and got no HTTP answer after ${attempts} attempt(s) (${code.toLowerCase()}).`;
		return markUnavailable(
			markMayHaveApplied(
				new NodeApiError(node, { message, description, networkCode: code } as JsonObject, {
					message,
					description,
					itemIndex,
				}),
				true,
			),
		);
	}
	const reached = !NEVER_SENT.has(code);
	const message = reached
		? `No answer from the AML service (${words}) after ${attempts} attempt(s)`
		: `The AML service could not be reached (${words})`;
	const description = `${method} ${path} got no HTTP answer after ${attempts} attempt(s) (${code.toLowerCase()}). ${reached ? "Check that the service is working and the node's Timeout." : 'Check the API base URL in the credential and that the service is reachable.'}`;
	return markUnavailable(
		new NodeApiError(node, { message, description, networkCode: code } as JsonObject, {
			message,
			description,
			itemIndex,
		}),
	);
}

const NOTHING_SENT_TEXT = 'No request was sent to the AML service';

/** What went wrong at the token endpoint (n8n's token fetch or renewal): the service request itself was never sent. */
export type TokenEndpointFailure =
	| { kind: 'network'; code: string }
	| { kind: 'http'; status: number; body?: unknown };

/**
 * The token endpoint failed, stayed busy or refused the credential. "Nothing was sent" unless an earlier attempt of the
 * request reached the service without an answer (then it may have been applied). Never taken for the service's own
 * answer: a refusal names the credential, a 429 the token endpoint.
 */
export function tokenEndpointError(
	node: INode,
	failure: TokenEndpointFailure,
	waitedMs: number,
	itemIndex?: number,
	mayHaveApplied?: MayHaveApplied,
): NodeApiError {
	const whatWasSent = mayHaveApplied
		? `An earlier attempt got no answer from the AML service. ${mayHaveAppliedText(mayHaveApplied)}`
		: NOTHING_SENT_TEXT;
	const waited = waitedMs >= 1000 ? ` after waiting ${Math.round(waitedMs / 1000)} s` : '';
	const check =
		'Check the Client ID, Client Secret and Access Token URL of the AML credential (a rotated secret or a client revoked in the AML web UI is refused)';
	let message: string;
	let description: string;
	let httpCode: string | undefined;
	let transient = true;
	if (failure.kind === 'network') {
		const words = NETWORK_WORDS[failure.code] ?? 'no answer';
		message = `The AML token endpoint could not be reached (${words})${waited}. ${whatWasSent}`;
		description = `POST token endpoint got no HTTP answer (${failure.code.toLowerCase()}). Check the Access Token URL of the credential and that the token endpoint is reachable.`;
	} else {
		httpCode = String(failure.status);
		const said = quoteServiceText(bodyMessage(failure.body), 300);
		const quoted = said ? ` — it said: ${said}` : '';
		if (failure.status === 429) {
			message = `Rate limit exceeded at the AML token endpoint: it kept answering 429${waited}${quoted}. ${whatWasSent}`;
			description =
				'The token endpoint allows a few token requests a minute per IP address; the node waited with every run of this n8n process before giving up.';
		} else if (failure.status >= 500) {
			message = `The AML token endpoint failed (HTTP ${failure.status})${waited}${quoted}. ${whatWasSent}`;
			description = 'The token endpoint failed; the node waited and asked again before giving up.';
		} else if (failure.status >= 400) {
			transient = false;
			message = `The AML token endpoint refused the credential (HTTP ${failure.status}${quoted}). ${whatWasSent}, and this run asks for no further token`;
			description = `${check}.`;
		} else {
			transient = false;
			message = `The AML token endpoint answered HTTP ${failure.status}${quoted}. ${whatWasSent}`;
			description = 'Check the Access Token URL of the AML credential.';
		}
	}
	const response = { message, description, ...(httpCode ? { httpCode } : {}) } as JsonObject;
	const error = markMayHaveApplied(
		new NodeApiError(node, response, { message, description, httpCode, itemIndex }),
		mayHaveApplied !== undefined,
	);
	return transient ? markUnavailable(error) : error;
}

/**
 * A 2xx answer that cannot be read as what was asked for (an empty body, an HTML page, JSON without the expected list
 * or field): the item fails with what the service sent, instead of reporting what the service did not say.
 */
export function unreadableAnswerError(
	node: INode,
	failure: { method: string; path: string; problem: string },
	itemIndex?: number,
): NodeApiError {
	const message = `The AML service's answer could not be read: ${failure.problem}`;
	const description = `${failure.method} ${failure.path} answered 2xx, but ${failure.problem}. Nothing is concluded from it; run it again or ask the service's operator.`;
	return new NodeApiError(node, { message, description } as JsonObject, {
		message,
		description,
		itemIndex,
	});
}
