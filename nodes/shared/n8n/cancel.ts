/**
 * Seam with n8n: stopping a request that n8n's `httpRequestWithAuthentication` has not sent yet.
 *
 * Measured on: n8n 1.123.81, 2.0.3 and 2.41.1 (test/contract/cancel.test.ts: each n8n's real helper against a local
 * token endpoint that answers late and a service that counts what it receives). Not part of n8n's documented node API.
 * Relies on: the helper hands the HTTP client the signal of `this.getExecutionCancelSignal()` when its context has one
 * (it replaces a request's own `abortSignal`), also for the service request it sends after fetching a credential's
 * first token; and a request whose signal is already aborted is not sent.
 * Used by transport/auth.ts: a first token fetch that outlasts the node's Timeout or time budget is given up, and the
 * service request n8n would send once the token arrives is stopped before it goes out (so "nothing was sent" stays
 * true). Breaks: a late token would still send the request after the item reported it unsent (the contract test fails
 * first).
 */

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
