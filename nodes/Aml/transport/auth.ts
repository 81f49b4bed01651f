import type {
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { timeLeft, type Deadline, type FullResponse, type Outcome } from './retry';
import { classify, type Classified } from '../../shared/n8n/errors';
import { ANSWER_EVERY_STATUS, canRenewToken, ignoresSslIssues } from '../../shared/n8n/oauthToken';
import {
	CREDENTIAL_TYPE,
	isTokenRefusal,
	NO_TOKEN_IN_TIME,
	obtainToken,
	TOKEN_WAIT_MS,
	tokenFailure,
	tokenFirst,
	tokenStateOf,
	type TokenState,
	type TokenStep,
} from './token';
import { rememberSecret } from './quote';
import { credentialUrls } from './secureUrl';

/**
 * Sending: each attempt has its token first (token.ts), then goes through n8n's `httpRequestWithAuthentication`. What
 * a 401 does, written out only here:
 * - The token is renewed (one token step per credential per process however many requests were refused: a request
 *   refused before the last token obtained is only sent again, `TokenState.generation`) and the request sent again.
 * - A renewed token refused within half its lifetime counts as refused: MAX_REFUSED_FRESH in a row stop the run asking
 *   for tokens, every further request failing with that refusal (a revoked client must not cost a token request per
 *   item). One refused later may have expired before the request went out (short-lived tokens on a busy worker): it
 *   is renewed again, within TOKEN_WAIT_MS of the attempt and the budget.
 * - A 401 handed back (renewed token refused, no renewal in this context, the run stopped asking) may be sent once
 *   more: the request's first (`sendAgain`; `decide` says when); a second one fails.
 */

export type AmlContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

const MAX_REFUSED_FRESH = 2;

interface CredentialInfo {
	baseUrl: string;
	ignoreSslIssues: boolean;
	token: TokenState;
	/** The credential held a token when the run read it. */
	tokenAtStart: boolean;
}

/** What one node run (one context object) knows of its credential, read once per run. */
export interface RunState {
	info: Promise<CredentialInfo>;
	/** The node's Timeout option, read once. */
	timeoutMs?: number;
	/** The credential holds a token (as read at the start of the run, or obtained since): set by the first send. */
	tokenHeld?: boolean;
	/** Fresh tokens refused in a row, and the renewal last counted (once per renewal). */
	refusedFresh: number;
	countedGeneration?: number;
	/** Once the run stopped asking for tokens: the refusal every further request answers with. */
	stopped?: Outcome<never>;
}

const runStates = new WeakMap<object, RunState>();

/** The run's state, created on first use: the credential's URLs are checked before n8n may fetch any token. */
export function runState(ctx: AmlContext): RunState {
	let state = runStates.get(ctx);
	if (!state) runStates.set(ctx, (state = { refusedFresh: 0, info: credentialInfo(ctx) }));
	return state;
}

async function credentialInfo(ctx: AmlContext): Promise<CredentialInfo> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const urls = credentialUrls(credentials);
	if ('problem' in urls) throw new NodeOperationError(ctx.getNode(), urls.problem);
	rememberSecret(credentials.clientSecret);
	const key = `${ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? ''} ${urls.tokenUrl}`;
	const token = tokenStateOf(key, credentials);
	return {
		baseUrl: urls.baseUrl,
		ignoreSslIssues: ignoresSslIssues(credentials),
		token,
		tokenAtStart: token.token !== undefined,
	};
}

/** The execution's cancel signal, where the context has one (execute contexts). */
export function executionCancelSignal(ctx: object): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx
		? (ctx as IExecuteFunctions).getExecutionCancelSignal()
		: undefined;
}

/** The attempts of one request: each call sends once (see the rules at the top) and returns what it gave. */
export function requestSender<T>(
	ctx: AmlContext,
	state: RunState,
): (options: IHttpRequestOptions, deadline?: Deadline) => Promise<Outcome<T>> {
	let refusals = 0;
	return async (options, deadline) => {
		const outcome = await send<T>(ctx, state, options, deadline);
		if (outcome.kind !== 'answer' || outcome.response.statusCode !== 401) return outcome;
		refusals++;
		return { ...outcome, sendAgain: refusals === 1 };
	};
}

async function send<T>(
	ctx: AmlContext,
	state: RunState,
	options: IHttpRequestOptions,
	deadline?: Deadline,
): Promise<Outcome<T>> {
	const info = await state.info;
	const { token } = info;
	state.tokenHeld ??= info.tokenAtStart;
	const step: TokenStep = { ...info, deadline, signal: executionCancelSignal(ctx) };
	const started = Date.now();
	let renewal: number | undefined;
	for (;;) {
		if (state.stopped) return state.stopped;
		const attemptMs = () =>
			Math.ceil(Math.min(options.timeout ?? TOKEN_WAIT_MS, timeLeft(deadline)));
		const failure = await tokenFirst(ctx as IExecuteFunctions, token, state, attemptMs, step);
		if (failure) return tokenStepFailed(state, failure);
		const timeout = attemptMs();
		// the budget went to the token step: the request is not sent
		if (timeout <= 0)
			return { kind: 'tokenEndpoint', tokenFailure: tokenFailure(NO_TOKEN_IN_TIME) };
		const generationSent = token.generation;
		let response: FullResponse<T>;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...options,
				...ANSWER_EVERY_STATUS,
				timeout,
				skipSslCertificateValidation: info.ignoreSslIssues,
			})) as FullResponse<T>;
		} catch (error) {
			return fromService(classify(error));
		}
		if (response.statusCode !== 401 || !canRenewToken(ctx)) {
			if (response.statusCode < 300) state.refusedFresh = 0;
			return { kind: 'answer', response };
		}
		if (renewal !== undefined) {
			const halfLifePassed =
				token.lifetimeMs !== undefined && Date.now() - token.obtainedAt >= token.lifetimeMs / 2;
			if (!halfLifePassed)
				return refusedFresh(state, renewal, { kind: 'answer', response }) as Outcome<T>;
			if (Date.now() - started > TOKEN_WAIT_MS || timeLeft(deadline) <= 0)
				return { kind: 'answer', response };
		}
		if (state.refusedFresh >= MAX_REFUSED_FRESH) return { kind: 'answer', response };
		const renewalFailure = await obtainToken(
			ctx as IExecuteFunctions,
			token,
			state,
			step,
			generationSent,
			TOKEN_WAIT_MS,
			TOKEN_WAIT_MS,
		);
		if (renewalFailure) return tokenStepFailed(state, renewalFailure);
		renewal = token.generation;
	}
}

/** A send's failure, thrown by n8n while a token was held: the service's. */
function fromService<T>(thrown: Classified): Outcome<T> {
	if (thrown.kind === 'http')
		return {
			kind: 'answer',
			response: { statusCode: thrown.status, body: thrown.body as T, headers: thrown.headers },
		};
	if (thrown.kind === 'network') return thrown;
	// only the message: the raw error may carry the request configuration and its headers
	return { kind: 'other', message: thrown.error?.message ?? 'Request failed' };
}

/** A renewed token was refused too (see the rules at the top): counted once per renewal. */
function refusedFresh(state: RunState, renewal: number, refusal: Outcome): Outcome {
	if (state.countedGeneration !== renewal) state.refusedFresh++;
	state.countedGeneration = renewal;
	if (state.refusedFresh >= MAX_REFUSED_FRESH) state.stopped = refusal as Outcome<never>;
	return refusal;
}

/** A token step failed: the request fails at the token endpoint; a refused credential stops the run asking. */
function tokenStepFailed(state: RunState, failure: Classified): Outcome<never> {
	const outcome: Outcome<never> =
		failure.kind === 'other'
			? fromService<never>(failure)
			: { kind: 'tokenEndpoint', tokenFailure: tokenFailure(failure) };
	if (isTokenRefusal(failure)) state.stopped = outcome;
	return outcome;
}
