import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { settledBy, TIMED_OUT } from './retry';
import { NO_ANSWER_IN_TIME, type Outcome } from './errors';
import { classify } from '../../shared/n8n/errors';
import { ANSWER_EVERY_STATUS, ignoresSslIssues } from '../../shared/n8n/oauthToken';
import { CHECK_REQUEST_PATH, CREDENTIAL_TYPE, tokenProvider, type TokenNeed } from './token';
import { rememberSecret } from './quote';
import { credentialUrls } from './secureUrl';

export type AmlContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

/** What one node run (one context object) knows of its credential, read once per run. */
export interface Run {
	baseUrl: string;
	ignoreSslIssues: boolean;
	/**
	 * The run's token provider (token.ts): every attempt's token comes from it (`tokenFor`); `accepted`: the service
	 * answered 2xx; `renews`: n8n's renewal is there (a 401 can get a new token).
	 */
	tokens: ReturnType<typeof tokenProvider>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

const runs = new WeakMap<object, Promise<Run>>();
/** The run's Timeout, handed over once per run by the router: the transport reads no node option. */
const timeouts = new WeakMap<object, number>();
export const setRunTimeout = (ctx: object, ms: number) => void timeouts.set(ctx, ms);
/** A request's own `timeoutMs` wins over the run's; without either, DEFAULT_TIMEOUT_MS. */
export const runTimeout = (ctx: object) => timeouts.get(ctx) ?? DEFAULT_TIMEOUT_MS;

/** The run's credential, read on first use: its URLs are checked before n8n may fetch any token. */
export async function runOf(ctx: AmlContext): Promise<Run> {
	let run = runs.get(ctx);
	if (!run) runs.set(ctx, (run = readRun(ctx)));
	return await run;
}

async function readRun(ctx: AmlContext): Promise<Run> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const urls = credentialUrls(credentials);
	if ('problem' in urls) throw new NodeOperationError(ctx.getNode(), urls.problem);
	rememberSecret(credentials.clientSecret);
	const key = `${ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? ''} ${urls.tokenUrl}`;
	const ignoreSslIssues = ignoresSslIssues(credentials);
	const read = {
		url: `${urls.baseUrl}${CHECK_REQUEST_PATH}`,
		skipSslCertificateValidation: ignoreSslIssues,
	};
	const tokens = tokenProvider(ctx as IExecuteFunctions, key, credentials, read);
	return { baseUrl: urls.baseUrl, ignoreSslIssues, tokens };
}

/** The execution's cancel signal, where the context has one (execute contexts). */
export function executionCancelSignal(ctx: object): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx
		? (ctx as IExecuteFunctions).getExecutionCancelSignal()
		: undefined;
}

/**
 * One attempt: its token from the provider (or the reason there is none: nothing sent), then one send through n8n's
 * `httpRequestWithAuthentication`, every status handed back. What it came to, and the token generation it was sent with.
 */
export async function sendAttempt<T>(
	ctx: AmlContext,
	run: Run,
	options: IHttpRequestOptions,
	need: TokenNeed,
): Promise<{ outcome: Outcome<T>; generation?: number }> {
	const grant = await run.tokens.tokenFor(need);
	if ('kind' in grant) return { outcome: grant };
	// the attempt's time as the token step left it (token.ts `attemptMs`, computed there once)
	const { generation, timeoutMs: timeout } = grant;
	try {
		// n8n's `timeout` bounds only the wait for the headers and the socket's idle time, not a body that trickles in:
		// the attempt ends at its time (what is still on its way is dropped: n8n gives the request no abort signal but the execution's)
		const sending = Promise.resolve(
			ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...options,
				...ANSWER_EVERY_STATUS,
				timeout,
				skipSslCertificateValidation: run.ignoreSslIssues,
			}),
		) as Promise<{ statusCode: number; body: T; headers: IDataObject }>;
		void sending.catch(() => undefined);
		const response = await settledBy(sending, Date.now() + timeout);
		if (response === TIMED_OUT) return { outcome: NO_ANSWER_IN_TIME, generation };
		const { statusCode: status, body, headers } = response;
		if (status < 300) run.tokens.accepted();
		return { outcome: { kind: 'answer', status, body, headers }, generation };
	} catch (error) {
		// a send's failure, thrown by n8n while a token was held: the service's; of anything else only the message (the
		// raw error may carry the request configuration and its headers)
		const thrown = classify(error);
		if (thrown.kind === 'network') return { outcome: thrown, generation };
		const outcome: Outcome<T> =
			thrown.kind === 'http'
				? { ...thrown, kind: 'answer', body: thrown.body as T }
				: { kind: 'other', message: thrown.error?.message ?? 'Request failed' };
		return { outcome, generation };
	}
}
