// Longer than ~250 lines (prettier's layout of one unit): the retry-mode table and the one retry loop every request
// goes through; splitting the loop would scatter the decisions it makes per attempt.
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import {
	backoffDelay,
	DEFAULT_BACKOFF,
	nextStep,
	parseRetryAfter,
	type BackoffPolicy,
} from './backoff';
import { NEVER_SENT, tokenBody, type Classified } from './classify';
import {
	budgetSpentError,
	networkError,
	serviceError,
	tokenEndpointError,
	unreadableAnswerError,
} from './errors';
import { renewIfExpiring, runState, send, type AmlContext } from './auth';
import { executionCancelSignal } from '../../shared/n8n/cancel';
import { ANSWER_EVERY_STATUS } from '../../shared/n8n/oauthToken';

/**
 * How a request may be repeated after a 5xx, a timeout or a dropped connection (a 429 is always
 * retried: the service did not act on it). After such a failure the request may have been applied with its
 * answer lost, so a repeat's answer is read in that light (`AmlResponse.afterLostAnswer`).
 * - safe: repeating cannot duplicate data (GET, PUT, DELETE, PATCH of a whole state, checks).
 * - create: a create keyed by the caller's ID; repeated. A 422 "already exists" on a repeat cannot tell "my lost
 *   attempt stored it" from "it existed before": the caller gets it as `afterLostAnswer` and never claims "created"
 *   (an upsert still sends its update).
 * - none: not repeatable (uploads, manual alerts, notes without id, alert status changes: each makes a new entry, a
 *   note and a webhook event); only retried when the request certainly never reached the service (connection
 *   refused). When it may have reached the service, the error says so and how to check (`checkHint`).
 * - check: a real-time check, repeated only as `none` is: a check that may have run may have raised its alert, and
 *   its repeat answers only the alerts it raises itself (an empty list), which proves nothing. An answer that arrives
 *   after the time budget is not taken either: it fails as the budget's error.
 * Whatever the mode, an error after an attempt that reached the service without an answer says that the request may
 * have been applied (`mayHaveApplied`); any other error says that nothing was applied.
 */
export type RetryMode = 'safe' | 'create' | 'none' | 'check';

export interface AmlRequest {
	method: IHttpRequestMethods;
	/** Path after the credential's API prefix, e.g. `/v1/persons/abc`. */
	path: string;
	qs?: IDataObject;
	/** JSON (objects, lists), a Buffer as it is, or a FormData sent as multipart/form-data (its Files streamed). */
	body?: IDataObject | IDataObject[] | Buffer | FormData;
	headers?: IDataObject;
	retry?: RetryMode;
	timeoutMs?: number;
	/**
	 * The item's time budget: `at` (epoch ms) is when it ends, `ms` its length (for messages). Each attempt waits at most
	 * the time left, no repeat starts that could not be answered before it, and when it is spent the request fails with
	 * `budgetSpentError` (a check blocks with reason `timeout`).
	 */
	deadline?: Deadline;
	/** Statuses the caller handles itself (returned, not thrown). */
	passStatuses?: number[];
	/**
	 * Statuses that, on a repeat after a lost answer, mean the lost attempt was applied (a DELETE repeated into 404
	 * "already gone", an archive repeated into 409 "already archived"): returned as success with `afterLostAnswer`.
	 */
	doneOnRepeat?: number[];
	/** How the user can see whether a request that may have reached the service was applied (for error messages). */
	checkHint?: string;
	/**
	 * What a 2xx answer must hold for the caller to read it: a list (`list`), an object with a list under `listField`
	 * (either, when both are given), or an object with these `fields`. A GET's
	 * answer must at least be JSON (an object or a list). Anything else fails as unreadable (`unreadableAnswerError`)
	 * instead of becoming an item that reports what the service did not say.
	 */
	answer?: { list?: boolean; fields?: string[]; listField?: string };
}

export interface AmlResponse<T = unknown> {
	status: number;
	body: T;
	headers: IDataObject;
	attempts: number;
	/**
	 * An earlier attempt got no answer (timeout, dropped connection, 5xx) and this answer is a repeat's: for a create
	 * a 422 means "stored, by the lost attempt or before it"; a `doneOnRepeat` status means the lost attempt applied.
	 */
	afterLostAnswer?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface Deadline {
	at: number;
	ms: number;
}

/** A deadline `budgetMs` from now, or none for 0 (no budget). */
export function deadlineIn(budgetMs: number): Deadline | undefined {
	return budgetMs > 0 ? { at: Date.now() + budgetMs, ms: budgetMs } : undefined;
}

/** An ID as one URL path segment, percent-encoded (IDs may contain ":" and "."; IDs of dots only are refused before). */
export function idSegment(value: string | number): string {
	return encodeURIComponent(String(value));
}

/**
 * The one request function of the package: credential's base URL, JSON in and out, authenticated by n8n's
 * `httpRequestWithAuthentication` (auth.ts: the token renewed on a 401 on every supported n8n), bounded retries with
 * backoff.
 */
export async function amlRequest<T = unknown>(
	this: AmlContext,
	request: AmlRequest,
	itemIndex?: number,
	policy: BackoffPolicy = DEFAULT_BACKOFF,
): Promise<AmlResponse<T>> {
	const state = runState(this);
	const { baseUrl } = await state.info;
	const retry: RetryMode = request.retry ?? (request.method === 'POST' ? 'none' : 'safe');
	const isJson = !Buffer.isBuffer(request.body) && !(request.body instanceof FormData);
	const signal = executionCancelSignal(this);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body as IHttpRequestOptions['body'],
		headers: { Accept: 'application/json', ...(request.headers ?? {}) },
		json: isJson,
		// The interface never redirects; n8n would repeat the Authorization header to whatever origin a redirect
		// names. Not followed: a 3xx is an error, and the token goes nowhere but the configured base URL.
		disableFollowRedirect: true,
		// Every status comes back to this function, a 401 too: auth.ts has n8n renew the token, one renewal per process
		// at a time and none while the token endpoint refuses (n8n renewing on its own would ask once per refused request).
		...ANSWER_EVERY_STATUS,
		timeout: request.timeoutMs ?? (state.timeoutMs ??= configuredTimeout(this)),
		abortSignal: signal,
	};

	const started = Date.now();
	const timeout = options.timeout as number;
	const remaining = () =>
		request.deadline === undefined ? Infinity : request.deadline.at - Date.now();
	let attempt = 0;
	let sentOnce = false;
	let repeated401 = false;
	const budgetSpent = () =>
		budgetSpentError(
			this.getNode(),
			{
				budgetMs: request.deadline?.ms ?? 0,
				method: request.method,
				path: request.path,
				attempts: attempt,
				// a read applies nothing, however far it got
				sent: sentOnce && request.method !== 'GET',
			},
			itemIndex,
		);
	for (;;) {
		if (remaining() <= 0) throw budgetSpent();
		attempt++;
		// No attempt waits past the deadline.
		options.timeout = Math.max(1, Math.min(timeout, Math.ceil(remaining())));
		let outcome: Classified;
		const sent = await send<T>(this, state, options, request.deadline?.at);
		const response = sent.response;
		if (response) {
			const status = response.statusCode;
			const lostBefore = sentOnce ? { afterLostAnswer: true } : {};
			if (status < 300 || request.passStatuses?.includes(status)) {
				// A check answered after the budget is not taken: the payment waited longer than it may.
				if (retry === 'check' && remaining() < 0) {
					sentOnce = true;
					throw budgetSpent();
				}
				if (status < 300) checkAnswer(this, request, response.body, itemIndex);
				return {
					status,
					body: response.body,
					headers: response.headers,
					attempts: attempt,
					...lostBefore,
				};
			}
			if (
				sentOnce &&
				((status === 422 && retry === 'create') || request.doneOnRepeat?.includes(status))
			) {
				// The lost attempt may have done it: not a failure, and not a claim either (see RetryMode).
				return {
					status,
					body: response.body,
					headers: response.headers,
					attempts: attempt,
					afterLostAnswer: true,
				};
			}
			outcome = {
				kind: 'http',
				status: response.statusCode,
				body: response.body,
				headers: response.headers ?? {},
				fromTokenEndpoint: false,
			};
		} else {
			outcome = signal?.aborted
				? { kind: 'other', error: new Error('The execution was cancelled') }
				: sent.outcome;
		}

		if (outcome.kind === 'other') {
			// Only the message: the raw error may carry the request configuration and its headers.
			throw new NodeOperationError(this.getNode(), outcome.error?.message ?? 'Request failed', {
				itemIndex,
			});
		}

		let retryable = false;
		let retryAfterMs: number | undefined;
		if (outcome.fromTokenEndpoint) {
			// n8n's token fetch or renewal failed: nothing was sent to the service. auth.ts already waited for a busy
			// token endpoint (or stopped the run on a refusal); anything else is not repeated either.
			retryable = false;
		} else if (outcome.kind === 'http') {
			if (outcome.status === 429) {
				retryable = true;
				retryAfterMs = parseRetryAfter(outcome.headers['retry-after']);
			} else if (outcome.status >= 500) {
				retryable = retry === 'safe' || retry === 'create';
				sentOnce = true;
			} else if (outcome.status === 401 && !repeated401) {
				// The token was renewed and the repeat still got 401: another execution's renewal or a forced expiry
				// may have invalidated it meanwhile. One more attempt starts from the credential's current token
				// (renewed again only within the run's limit, see RunState.refusedFresh). A 401 did nothing, so any
				// request may be repeated.
				retryable = true;
				repeated401 = true;
			}
		} else {
			const neverSent = NEVER_SENT.has(outcome.code);
			retryable = neverSent || retry === 'safe' || retry === 'create';
			if (!neverSent) sentOnce = true;
		}

		const waitMs = backoffDelay(attempt, policy, retryAfterMs);
		const step = nextStep({
			retryable,
			answered: outcome.kind === 'http',
			attempt,
			maxAttempts: policy.maxAttempts,
			waitMs,
			remainingMs: remaining(),
		});
		if (step === 'budget') throw budgetSpent();
		if (step === 'stop') {
			// The token endpoint was waited for until the budget was spent: the budget's error (a check: `timeout`).
			if (outcome.fromTokenEndpoint && request.deadline && remaining() <= 0) throw budgetSpent();
			// A write or check an attempt of which reached the service without an answer may have been applied, whatever
			// came after it.
			const mayHaveApplied =
				sentOnce && request.method !== 'GET'
					? {
							checkHint: request.checkHint ?? '',
							notRepeated: retry === 'none' || retry === 'check',
						}
					: undefined;
			if (outcome.fromTokenEndpoint) {
				throw tokenEndpointError(
					this.getNode(),
					outcome.kind === 'network'
						? outcome
						: { kind: 'http', status: outcome.status, body: tokenBody(outcome.body) },
					Date.now() - started,
					itemIndex,
					mayHaveApplied,
				);
			}
			if (outcome.kind === 'network') {
				throw networkError(
					this.getNode(),
					outcome.code,
					request.method,
					request.path,
					attempt,
					itemIndex,
					mayHaveApplied,
				);
			}
			throw serviceError(
				this.getNode(),
				{
					status: outcome.status,
					body: outcome.body,
					method: request.method,
					path: request.path,
					attempts: attempt,
					mayHaveApplied,
				},
				itemIndex,
			);
		}
		await sleep(waitMs);
	}
}

/**
 * A 2xx answer the caller cannot read (an empty body, an HTML page, JSON without the expected list or field) fails the
 * request: nothing is concluded from it. Not repeated (the service answered; a repeat of a write could apply it twice).
 */
function checkAnswer(
	ctx: AmlContext,
	request: AmlRequest,
	body: unknown,
	itemIndex?: number,
): void {
	const expect = request.answer;
	if (!expect && request.method !== 'GET') return;
	const isObject = body !== null && typeof body === 'object' && !Buffer.isBuffer(body);
	let problem: string | undefined;
	if (!isObject)
		problem = body === undefined || body === '' ? 'the answer was empty' : 'the answer is not JSON';
	else if (expect?.list || expect?.listField) {
		// a list, or an object holding it under `listField` (either when both are given)
		const listed =
			(expect.list === true && Array.isArray(body)) ||
			(expect.listField !== undefined && Array.isArray((body as IDataObject)[expect.listField]));
		if (!listed) problem = `the answer holds no ${expect.listField ?? ''} list`.replace('  ', ' ');
	} else if (expect?.fields) {
		const missing = expect.fields.filter((field) => (body as IDataObject)[field] === undefined);
		if (missing.length) problem = `the answer lacks ${missing.join(', ')}`;
	}
	if (problem)
		throw unreadableAnswerError(
			ctx.getNode(),
			{ method: request.method, path: request.path, problem },
			itemIndex,
		);
}

/** The node's "Timeout" option, when the calling node has one. */
function configuredTimeout(ctx: AmlContext): number {
	if ('getNodeParameter' in ctx && 'getInputData' in ctx) {
		const value = (ctx as IExecuteFunctions).getNodeParameter(
			'options.timeout',
			0,
			DEFAULT_TIMEOUT_MS,
		) as number;
		if (typeof value === 'number' && value >= 1000) return value;
	}
	return DEFAULT_TIMEOUT_MS;
}

/** Shorthand returning only the body. */
export async function amlApiRequest<T = unknown>(
	this: AmlContext,
	request: AmlRequest,
	itemIndex?: number,
): Promise<T> {
	const response = (await amlRequest.call(this, request, itemIndex)) as AmlResponse<T>;
	return response.body;
}

/** The credential test's request: small, read-only, answered by every account. */
export const CHECK_REQUEST_PATH = '/v1/screening-list-groups';

/**
 * Makes sure a large request goes out with a token the service accepts, so that the body is not sent to be refused.
 * n8n renews an OAuth2 token only when a request answers 401, and a server that refuses the token of a large
 * request may answer 401 and close the connection while the body is still being written: n8n then sees a dropped
 * connection (EPIPE), not the 401, and keeps the refused token for the next run too.
 * 1. A token n8n knows to be expired (or about to be) is renewed.
 * 2. One small authenticated GET (the credential test's): a token the service revoked early answers 401 there,
 *    and n8n renews it on that answer.
 * Best effort: the request reports its own error if this fails for any other reason; a 401 that survives n8n's
 * renewal fails the item here, before any byte of the body is sent.
 */
export async function confirmToken(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
	await renewIfExpiring(ctx);
	const refused = await amlApiRequest
		.call(ctx, { method: 'GET', path: CHECK_REQUEST_PATH, retry: 'safe' }, itemIndex)
		.then(
			() => undefined,
			(error: unknown) =>
				error instanceof NodeApiError && error.httpCode === '401' ? error : undefined,
		);
	if (refused) throw refused;
}
