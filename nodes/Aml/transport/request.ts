import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	backoffDelay,
	decide,
	DEFAULT_BACKOFF,
	parseRetryAfter,
	timeLeft,
	type BackoffPolicy,
	type Deadline,
	type EndpointPolicy,
	type RetryMode,
} from './retry';
import { toNodeError, type Answer, type Facts, type Failure } from './errors';
import { executionCancelSignal, runOf, runTimeout, sendAttempt, type AmlContext } from './auth';
import type { TokenNeed } from './token';

export interface AmlRequest extends EndpointPolicy {
	method: IHttpRequestMethods;
	/** Path after the credential's API prefix, e.g. `/v1/persons/abc`. */
	path: string;
	qs?: IDataObject;
	/** JSON (objects, lists), a Buffer as it is, or a FormData sent as multipart/form-data (its Files streamed). */
	body?: IDataObject | IDataObject[] | Buffer | FormData;
	headers?: IDataObject;
	timeoutMs?: number;
	/**
	 * The item's time budget, passed unchanged to every wait: no attempt waits past it, no repeat starts that could not
	 * be answered before it, and when it is spent the request fails as the budget's error (a check blocks with `timeout`).
	 */
	deadline?: Deadline;
	/**
	 * What a 2xx answer must hold for the caller to read it: a list (`list`), an object with a list under `listField`
	 * (either, when both are given), or an object with these `fields`. A GET's answer must at least be JSON (an object
	 * or a list). Anything else fails as unreadable, never repeated.
	 */
	answer?: { list?: boolean; fields?: string[]; listField?: string };
}

export interface AmlResponse<T = unknown> extends Answer<T> {
	attempts: number;
	/**
	 * An earlier attempt got no answer (timeout, dropped connection, 5xx) and this answer is a repeat's: for a create
	 * a 422 means "stored, by the lost attempt or before it"; a `doneOnRepeat` status means the lost attempt applied.
	 */
	afterLostAnswer?: boolean;
}

/** An ID as one URL path segment, percent-encoded (IDs may contain ":" and "."; IDs of dots only are refused before). */
export function idSegment(value: string | number): string {
	return encodeURIComponent(String(value));
}

/**
 * The one request function of the package: the credential's base URL, JSON in and out, each attempt one send
 * (auth.ts, its token from token.ts) followed by the one decision `decide`, each failure one `Failure` value turned
 * into n8n's error by `toNodeError`.
 */
export async function amlRequest<T = unknown>(
	this: AmlContext,
	request: AmlRequest,
	itemIndex?: number,
	policy: BackoffPolicy = DEFAULT_BACKOFF,
): Promise<AmlResponse<T>> {
	const run = await runOf(this);
	const retry = retryMode(request);
	const signal = executionCancelSignal(this);
	const timeoutMs = request.timeoutMs ?? runTimeout(this);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${run.baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body as IHttpRequestOptions['body'],
		headers: { Accept: 'application/json', ...(request.headers ?? {}) },
		json: !Buffer.isBuffer(request.body) && !(request.body instanceof FormData),
		// The interface never redirects, and n8n would repeat the Authorization header to whatever origin a redirect
		// names: a 3xx is an error, and the token goes nowhere but the configured base URL.
		disableFollowRedirect: true,
		abortSignal: signal,
	};
	const { deadline } = request;
	const budgetSpent = { kind: 'budget', budgetMs: deadline?.ms ?? 0 } as const;
	const fail = (failure: Failure<Facts>) => toNodeError(this.getNode(), failure, itemIndex);
	const started = Date.now();
	let unanswered = false;
	let refusals = 0;
	let refused: TokenNeed['refused'];
	let wait: TokenNeed['wait'];
	let answered = false;
	for (let attempt = 1; ; ) {
		// No send starts after the deadline; none waits past it.
		if (timeLeft(deadline) <= 0)
			throw fail({ ...facts(request, attempt - 1, unanswered, answered), ...budgetSpent });
		const need = { timeoutMs, deadline, signal, refused, wait };
		const sent = await sendAttempt<T>(this, run, options, need);
		// cancelled: an attempt that was sent may have reached the service, whatever it came to
		const sentOut = sent.generation !== undefined;
		if (signal?.aborted)
			throw fail({
				...facts(request, attempt, unanswered || sentOut, answered),
				kind: 'cancelled',
			});
		const { outcome } = sent;
		if (outcome.kind === 'other') throw fail(outcome);
		const answer = outcome.kind === 'answer' ? outcome : undefined;
		answered ||= answer !== undefined;
		if (answer?.status === 401) refusals++;
		const again = outcome.kind === 'tokenEndpoint' ? outcome.again : undefined;
		const retryAfter =
			answer?.status === 429 ? parseRetryAfter(answer.headers?.['retry-after']) : undefined;
		const step = decide({
			outcome,
			retry,
			policy: request,
			attempt,
			maxAttempts: policy.maxAttempts,
			unanswered,
			refusals,
			renews: run.tokens.renews,
			waitMs: again
				? Math.max(0, again.at - Date.now())
				: backoffDelay(attempt, policy, retryAfter),
			remainingMs: timeLeft(deadline),
		});
		unanswered = step.unanswered;
		if (step.action === 'retry') {
			// a wait for a token goes on with the same attempt; a send's repeat is the next attempt
			wait = again;
			if (!wait) {
				refused =
					step.renew && answer
						? { generation: sent.generation ?? 0, body: answer.body }
						: undefined;
				attempt++;
			}
			await sleep(step.waitMs);
			continue;
		}
		if (step.action === 'done' && answer) {
			const { status, body, headers } = answer;
			const problem = status < 300 ? unreadable(request, body) : undefined;
			// The service answered: an answer that cannot be read is never repeated, and says nothing was left unanswered.
			if (problem)
				throw fail({ ...facts(request, attempt, false, true), kind: 'unreadable', problem });
			const lost = step.afterLostAnswer ? { afterLostAnswer: true } : {};
			return { status, body, headers, attempts: attempt, ...lost };
		}
		const known = facts(request, attempt, unanswered, answered);
		if (step.action !== 'fail' || step.as === 'budget') {
			const late = answer && answer.status < 300 ? { lateAnswer: { body: answer.body } } : {};
			throw fail({ ...known, ...budgetSpent, ...late });
		}
		if (outcome.kind === 'tokenEndpoint')
			throw fail({ ...known, ...outcome, waitedMs: Date.now() - started });
		if (outcome.kind !== 'answer') throw fail({ ...known, ...outcome });
		throw fail({ ...known, kind: 'service', status: outcome.status, body: outcome.body });
	}
}

/** The endpoint's retry mode; undeclared: a POST is not repeated once it may have run, anything else is safe. */
function retryMode(request: AmlRequest): RetryMode {
	return request.retry ?? (request.method === 'POST' ? 'none' : 'safe');
}

/**
 * What every failure of the request knows. A write or check an attempt of which reached the service without an answer
 * may have been applied, whatever came after it; a read applies nothing, however far it got. The service may have
 * received the request when an attempt was answered or reached it without an answer (`reached`).
 */
function facts(request: AmlRequest, attempts: number, unanswered: boolean, answered: boolean) {
	const retry = retryMode(request);
	const mayHaveApplied =
		unanswered && request.method !== 'GET'
			? { checkHint: request.checkHint ?? '', notRepeated: retry === 'none' || retry === 'check' }
			: undefined;
	const { method, path } = request;
	return { method, path, attempts, mayHaveApplied, reached: unanswered || answered };
}

/**
 * A 2xx answer the caller cannot read (an empty body, an HTML page, JSON without the expected list or field) fails the
 * request: nothing is concluded from it. Returns what is wrong with it, if anything.
 */
function unreadable(request: AmlRequest, body: unknown): string | undefined {
	const { list, listField, fields = [] } = request.answer ?? {};
	if (!request.answer && request.method !== 'GET') return undefined;
	if (body === null || typeof body !== 'object' || Buffer.isBuffer(body))
		return body === undefined || body === '' ? 'the answer was empty' : 'the answer is not JSON';
	// a list, or an object holding it under `listField` (either when both are given)
	if (list || listField) {
		const held = listField !== undefined && Array.isArray((body as IDataObject)[listField]);
		return (list && Array.isArray(body)) || held
			? undefined
			: `the answer holds no ${listField ? `${listField} ` : ''}list`;
	}
	const missing = fields.filter((field) => (body as IDataObject)[field] === undefined);
	return missing.length ? `the answer lacks ${missing.join(', ')}` : undefined;
}

/** Shorthand returning only the body. */
export async function amlApiRequest<T = unknown>(
	this: AmlContext,
	request: AmlRequest,
	itemIndex?: number,
): Promise<T> {
	return ((await amlRequest.call(this, request, itemIndex)) as AmlResponse<T>).body;
}
