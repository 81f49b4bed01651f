/**
 * Seam with n8n: stopping a request that n8n's `httpRequestWithAuthentication` has not sent yet.
 *
 * Measured on: n8n 1.123.81, 2.0.3 and 2.41.1 (test/contract/cancel.test.ts: each n8n's real helper against a local
 * token endpoint that answers late and a service that counts what it receives). Not part of n8n's documented node API.
 * Relies on: the helper hands the HTTP client the signal of `this.getExecutionCancelSignal()` when its context has one
 * (it replaces a request's own `abortSignal`), also for the service request it sends after fetching a credential's
 * first token; and a request whose signal is already aborted is not sent.
 * Also relies on (oauthToken.ts): n8n stores a first token before it sends, so a credential holding a token when the
 * call is given up means the service request went out.
 * Used by transport/auth.ts through `requestWithin`: a first token fetch that outlasts the node's Timeout or time
 * budget is given up, and the service request n8n would send once the token arrives is stopped before it goes out (so
 * "nothing was sent" stays true). Breaks: a late token would still send the request after the item reported it unsent
 * (the contract test fails first).
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { Classified } from './errors';
import { fetchesFirstToken } from './oauthToken';

/**
 * The execution's cancel signal (the user stopped it, or n8n is ending it), where the context has one: n8n's execute
 * context offers `getExecutionCancelSignal` on every supported version (contract: cancel.test.ts); hook, webhook and
 * load-options contexts do not. Waits for a busy token endpoint stop on it.
 */
export function executionCancelSignal(ctx: object): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx
		? (ctx as { getExecutionCancelSignal(): AbortSignal | undefined }).getExecutionCancelSignal()
		: undefined;
}

/** The context, with `signal` as the cancel signal n8n's request helpers pass to the HTTP client. */
export function withCancelSignal<T extends object>(ctx: T, signal: AbortSignal): T {
	if (!('getExecutionCancelSignal' in ctx)) return ctx;
	return new Proxy(ctx, {
		get(target, property) {
			if (property === 'getExecutionCancelSignal') return () => signal;
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === 'function' ? value.bind(target) : value;
		},
	});
}

export const TIMED_OUT = Symbol('timed out');

/** The promise's result, or TIMED_OUT when it has not settled by `limitAt` (epoch ms; Infinity: no limit). */
export async function settledBy<T>(
	promise: Promise<T>,
	limitAt: number,
): Promise<T | typeof TIMED_OUT> {
	if (limitAt === Infinity) return await promise;
	return await Promise.race<T | typeof TIMED_OUT>([
		promise,
		sleep(Math.max(0, limitAt - Date.now())).then((): typeof TIMED_OUT => TIMED_OUT),
	]);
}

/** A call given up by `requestWithin`, placed: still at the token endpoint (nothing sent), or at the service. */
export class GivenUp extends Error {
	constructor(readonly placed: Classified) {
		super('timeout: no answer within the time given');
	}
}

/**
 * One call of n8n's `httpRequestWithAuthentication`. When n8n may fetch a first token inside it (`limitAt` finite) and
 * that has not ended by `limitAt` (the credential still holds no token), the call is given up (GivenUp at the token
 * endpoint): the service request n8n would send after the late token is stopped. When the token is there by then,
 * the service request went out and is waited for as long again (its own Timeout), never past `deadlineAt`, before it
 * is given up as the service's timeout.
 */
export async function requestWithin<T>(
	ctx: IExecuteFunctions,
	credentialType: string,
	options: IHttpRequestOptions,
	limitAt: number,
	deadlineAt = Infinity,
): Promise<T> {
	if (limitAt === Infinity)
		return (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			credentialType,
			options,
		)) as T;
	const stop = new AbortController();
	const signal = options.abortSignal
		? AbortSignal.any([options.abortSignal as AbortSignal, stop.signal])
		: stop.signal;
	const call = ctx.helpers.httpRequestWithAuthentication.call(
		withCancelSignal(ctx, signal),
		credentialType,
		{ ...options, abortSignal: signal },
	) as Promise<T>;
	call.catch(() => undefined);
	const done = await settledBy(call, limitAt);
	if (done !== TIMED_OUT) return done;
	const fetching = await ctx.getCredentials<IDataObject>(credentialType).then(
		(credentials) => fetchesFirstToken(credentials),
		() => false,
	);
	if (!fetching) {
		const waitMs = options.timeout ?? limitAt - Date.now();
		const later = await settledBy(call, Math.min(Date.now() + waitMs, deadlineAt));
		if (later !== TIMED_OUT) return later;
	}
	stop.abort();
	throw new GivenUp({ kind: 'network', code: 'ETIMEDOUT', fromTokenEndpoint: fetching });
}
