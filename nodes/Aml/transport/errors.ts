import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { NEVER_SENT } from '../../shared/n8n/errors';
import { quoteServiceText } from './quote';

/** The service's HTTP answer, whatever its status. */
export interface Answer<T = unknown> {
	status: number;
	body: T;
	headers: IDataObject;
}

/** What every failure of a request knows: the request, its attempts, and what they may have done. */
export interface Facts {
	method: string;
	path: string;
	attempts: number;
	/**
	 * Present only when an attempt reached the service without an answer and the request is not a read: how to see
	 * whether it was applied (`checkHint`, e.g. "Get Status of the upload"), and whether it may not be repeated once it
	 * may have been applied (`notRepeated`: uploads, manual alerts, checks).
	 */
	mayHaveApplied?: { checkHint: string; notRepeated: boolean };
	/**
	 * Whether an attempt may have been received by the service (it answered, or a sent attempt got no answer); false
	 * when every attempt stopped before: a refused connection, an unknown host, a token step that failed.
	 */
	reached?: boolean;
}

/**
 * The one failure value of a request, turned into n8n's error by `toNodeError` only and read back by `failureOf`, never
 * from the message. An attempt's (token.ts, auth.ts) has no facts yet (`Failure<unknown>`); request.ts adds them
 * (`Failure<Facts>`), `toNodeError` whether it is `transient` (`isTransient`).
 */
export type Failure<F = Facts & { transient: boolean }> =
	| (F & { kind: 'service'; status: number; body?: unknown })
	| (F & { kind: 'network'; code: string })
	// `lateAnswer`: a check's 2xx after the budget, not taken as its answer (the alerts it names are still reported)
	| (F & { kind: 'budget'; budgetMs: number; lateAnswer?: { body: unknown } })
	| (F & { kind: 'unreadable'; problem: string })
	| (F & { kind: 'cancelled' })
	| (F & {
			kind: 'tokenEndpoint';
			/** What the token endpoint gave (of its body only the OAuth2 error fields). */
			tokenFailure:
				| { kind: 'network'; code: string }
				| { kind: 'http'; status: number; body?: unknown };
			/**
			 * The token endpoint is paused (token.ts): ask again `at` (epoch ms; `decide` has the request wait for it),
			 * within this request's wait for a token, which began `since` and ends with any token newer than `before`.
			 */
			again?: { at: number; since: number; before: number };
			/** How long the request waited for a token (set when the request fails). */
			waitedMs?: number;
	  })
	| { kind: 'other'; message: string };

/**
 * What a request or one attempt of it ended with: the service's `answer` (any status: `decide` says what it comes to;
 * the request returns it as `AmlResponse`) or a `Failure` (the request throws it on n8n's error). A run that stopped
 * asking for tokens after refused fresh ones ends an attempt as that 401, a `service` failure: nothing was sent.
 */
export type Outcome<T = unknown> = ({ kind: 'answer' } & Answer<T>) | Failure<unknown>;

/** No answer (of the service or its token endpoint) within the time given. */
export const NO_ANSWER_IN_TIME = { kind: 'network', code: 'ETIMEDOUT' } as const;

/** A status that says only "not now" (throttled, failing, or a gateway's request timeout): asking again later may help. */
export function isBusyStatus(status: number): boolean {
	return status === 429 || status === 408 || status >= 500;
}

/** The token endpoint is throttling, failing or unreachable: asking again later may help. */
export const isTokenEndpointBusy = ({ kind, status = 0 }: { kind: string; status?: number }) =>
	kind === 'network' || (kind === 'http' && isBusyStatus(status));

/** The token endpoint refused the credential (invalid_client, a revoked client, a bad scope): asking again cannot help. */
export const isTokenRefusal = ({ kind, status = 0 }: { kind: string; status?: number }) =>
	kind === 'http' && status >= 400 && !isBusyStatus(status);

const FAILURE = Symbol('aml failure');

/** The failure an error of a request carries (the NodeApiError of `toNodeError`), or undefined for any other error. */
export function failureOf(error: unknown): Exclude<Failure, { kind: 'other' }> | undefined {
	return typeof error === 'object' && error !== null
		? (error as { [FAILURE]?: Exclude<Failure, { kind: 'other' }> })[FAILURE]
		: undefined;
}

/**
 * Transient: the failure says only that the service (or its token endpoint) could not answer now (a busy status after
 * the repeats, no answer, the time budget, a busy or unreachable token endpoint), nothing of the request itself. A check
 * turns it into a fail-closed Block; a poll (`pollUntil`) keeps waiting. Any other failure is the request's own error.
 */
function isTransient(failure: Failure<Facts>): boolean {
	if (failure.kind === 'service') return isBusyStatus(failure.status);
	if (failure.kind === 'tokenEndpoint') return isTokenEndpointBusy(failure.tokenFailure);
	return failure.kind === 'network' || failure.kind === 'budget';
}

/** The one place a failure becomes n8n's error: a NodeApiError built only from sanitised facts, never a header or token. */
export function toNodeError(
	node: INode,
	failure: Failure<Facts>,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (failure.kind === 'other') return new NodeOperationError(node, failure.message, { itemIndex });
	const { message, description, httpCode, networkCode } = textOf(failure);
	const response = {
		message,
		description,
		...(httpCode ? { httpCode } : {}),
		...(networkCode ? { networkCode } : {}),
	} as JsonObject;
	const error = new NodeApiError(node, response, { message, description, httpCode, itemIndex });
	Object.defineProperty(error, FAILURE, { value: { ...failure, transient: isTransient(failure) } });
	return error;
}

type Text = { message: string; description: string; httpCode?: string; networkCode?: string };

function textOf(failure: Exclude<Failure<Facts>, { kind: 'other' }>): Text {
	switch (failure.kind) {
		case 'service':
			return serviceText(failure);
		case 'network':
			return networkText(failure);
		case 'budget':
			return {
				message: failure.mayHaveApplied
					? `Time budget of ${failure.budgetMs} ms spent: the AML service did not answer in time. The request reached the service and may have been applied`
					: `Time budget of ${failure.budgetMs} ms spent before the AML service answered. The request was not applied`,
				description: `${failure.method} ${failure.path}: ${failure.attempts} attempt(s) within the time budget (the node's "Time Budget" option).`,
			};
		case 'unreadable':
			return {
				message: `The AML service's answer could not be read: ${failure.problem}`,
				description: `${failure.method} ${failure.path} answered 2xx, but ${failure.problem}. Nothing is concluded from it; run it again or ask the service's operator.`,
			};
		case 'tokenEndpoint':
			return tokenEndpointText(failure);
		case 'cancelled':
			return {
				message: failure.mayHaveApplied
					? `The execution was cancelled while the request was on its way. ${mayHaveAppliedText(failure.mayHaveApplied)}`
					: 'The execution was cancelled',
				description: `${failure.method} ${failure.path}: cancelled during attempt ${failure.attempts}.`,
			};
	}
}

/** What the interface says each status means and what the user should do. */
const STATUS_MEANING: Record<number, string> = {
	400: 'Bad request: the service rejected the request format or parameters. Check the body and parameters',
	401: 'Authentication failed: the token is missing or invalid even after fetching a new one. Check the client ID, secret, token URL and that the credentials were not deleted in the AML UI',
	403: 'Insufficient permissions: the client credentials may not do this (for example person deletion through the API not enabled, or alert status updates with credentials created before 16.05.2023)',
	404: 'Not found: the resource does not exist. Verify the ID (IDs are case-sensitive)',
	409: 'State conflict: the resource is in a state that does not allow this (for example an archived record). Check its current state before retrying',
	413: 'Payload too large: the service accepts CSV files up to 100 MB',
	422: 'Already exists: an entity with this ID already exists. Use the existing entity or a different ID',
	429: 'Rate limit exceeded: the service kept answering 429 after the node backed off and retried',
};

function statusMeaning(status: number, attempts = 2): string {
	if (status === 429 && attempts <= 1) return 'Rate limit exceeded: the service answered 429';
	if (STATUS_MEANING[status]) return STATUS_MEANING[status];
	if (status >= 300 && status < 400)
		return `Redirect (HTTP ${status}): the interface never redirects, so the node does not follow it and sends the token nowhere else. Check the API base URL of the credential (for example https:// instead of http://, or a missing path prefix)`;
	if (status >= 500)
		return attempts > 1
			? `Service error (${status}): the service failed; the node retried with increasing intervals and gave up`
			: `Service error (${status}): the service failed`;
	return `Unexpected HTTP status ${status}`;
}

function mayHaveAppliedText(may: NonNullable<Facts['mayHaveApplied']>): string {
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
function bodyText(body: unknown): string {
	const message = bodyMessage(body, Infinity);
	if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return message;
	const whole = JSON.stringify(body);
	return message === whole || whole.length > 500 ? message : `${message} (${whole})`;
}

function serviceText(failure: Extract<Failure<Facts>, { kind: 'service' }>): Text {
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
	return { message, description, httpCode: String(failure.status) };
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

/** No HTTP answer. The code itself stays out of the message: n8n would swap a message containing it for a generic one. */
function networkText(failure: Extract<Failure<Facts>, { kind: 'network' }>): Text {
	const { code, method, path, attempts, mayHaveApplied } = failure;
	const words = NETWORK_WORDS[code] ?? 'no answer';
	const reached = !NEVER_SENT.has(code);
	const message = mayHaveApplied
		? `No answer from the AML service (${words}). ${mayHaveAppliedText(mayHaveApplied)}`
		: reached
			? `No answer from the AML service (${words}) after ${attempts} attempt(s)`
			: `The AML service could not be reached (${words})`;
	const description = mayHaveApplied
		? `${method} ${path} was sent and got no HTTP answer after ${attempts} attempt(s) (${code.toLowerCase()}).`
		: `${method} ${path} got no HTTP answer after ${attempts} attempt(s) (${code.toLowerCase()}). ${reached ? "Check that the service is working and the node's Timeout." : 'Check the API base URL in the credential and that the service is reachable.'}`;
	return { message, description, networkCode: code };
}

/**
 * The token endpoint failed, stayed busy or refused the credential. "This request was not sent" (the item's other
 * requests, a Gate's store, may have been) unless an earlier attempt of the request reached the service without an answer (then it may have been applied). Never taken for the service's own
 * answer: a refusal names the credential, a 429 the token endpoint.
 */
function tokenEndpointText(failure: Extract<Failure<Facts>, { kind: 'tokenEndpoint' }>): Text {
	const whatWasSent = failure.mayHaveApplied
		? `An earlier attempt got no answer from the AML service. ${mayHaveAppliedText(failure.mayHaveApplied)}`
		: 'This request was not sent to the AML service';
	const { waitedMs = 0 } = failure;
	const waited = waitedMs >= 1000 ? ` after waiting ${Math.round(waitedMs / 1000)} s` : '';
	const answer = failure.tokenFailure;
	if (answer.kind === 'network')
		return {
			message: `The AML token endpoint could not be reached (${NETWORK_WORDS[answer.code] ?? 'no answer'})${waited}. ${whatWasSent}`,
			description: `POST token endpoint got no HTTP answer (${answer.code.toLowerCase()}). Check the Token URL of the credential and that the token endpoint is reachable.`,
		};
	const httpCode = String(answer.status);
	const said = quoteServiceText(bodyMessage(answer.body), 300);
	const quoted = said ? ` — it said: ${said}` : '';
	if (answer.status === 429)
		return {
			message: `Rate limit exceeded at the AML token endpoint: it kept answering 429${waited}${quoted}. ${whatWasSent}`,
			description:
				'The token endpoint allows a few token requests a minute per IP address; the node waited with every run of this n8n process before giving up.',
			httpCode,
		};
	if (answer.status >= 500)
		return {
			message: `The AML token endpoint failed (HTTP ${answer.status})${waited}${quoted}. ${whatWasSent}`,
			description: 'The token endpoint failed; the node waited and asked again before giving up.',
			httpCode,
		};
	if (answer.status >= 400)
		return {
			message: `The AML token endpoint refused the credential (HTTP ${answer.status}${quoted}). ${whatWasSent}, and this run asks for no further token`,
			description:
				'Check the Client ID, Client Secret and Token URL of the AML credential (a rotated secret or a client revoked in the AML web UI is refused).',
			httpCode,
		};
	return {
		message: `The AML token endpoint answered HTTP ${answer.status}${quoted}. ${whatWasSent}`,
		description: 'Check the Token URL of the AML credential.',
		httpCode,
	};
}
