/**
 * Seam with n8n: how n8n's OAuth2 request path handles the credential's token.
 *
 * Measured on: n8n 1.123.81, 2.0.3 and 2.41.1, each version's real `httpRequestWithAuthentication` and OAuth2 client
 * (test/contract/oauthToken.test.ts). None of it is part of n8n's documented node API.
 * Relies on:
 * - n8n stores the token of an OAuth2 credential under `oauthTokenData` (`access_token`, and the token endpoint's
 *   `expires_in` with it; from 2.x releases after 2.0.3 also `n8n_expires_at`, the expiry in epoch milliseconds, absent
 *   on 1.123.81 and 2.0.3), on a first fetch and on a renewal, and hands it to the node with `getCredentials`.
 * - It fetches a first token inside the call only when the credential holds none (`fetchesFirstToken`), and stores it
 *   (client credentials) before it sends the request the token was fetched for.
 *   So a failure without an answer after which the credential still holds no token happened at the token endpoint and
 *   the service request was never sent (`placeFailure`: the error cannot say so on n8n 1.x, which keeps no cause).
 * - Under `ANSWER_EVERY_STATUS` a 401 comes back as an answer and n8n renews nothing (sent once, the token endpoint
 *   not asked): the package has the token renewed (`serviceRefusal` → 'renew'). A 401 that n8n throws came after n8n's
 *   own renewal (it renews on a thrown 401, sends once more and throws the second): a renewed token was refused
 *   ('refusedAfterRenewal').
 * - The generic OAuth2 credential the AML credential extends (`oAuth2Api`) keeps its "Ignore SSL Issues" switch as
 *   `ignoreSSLIssues` (`ignoresSslIssues`).
 * - n8n's `refreshOAuth2Token(credentialType)` helper on the execute context (every supported version; absent from
 *   contexts that only test a credential) renews and stores the token.
 * Used by transport/auth.ts. If n8n changes these: a first-fetch failure on 1.x reads as a request that may have been
 * applied (safe side for one-shot requests); uploads rely on the 401 path alone; a 401 n8n stopped handing back would
 * fail the request instead of being renewed once (the contract test fails first).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Classified } from './errors';

/**
 * The request options under which `serviceRefusal` and `classify` read n8n right: every status handed back as an
 * answer with its status, headers and body (a 401 too, so n8n renews nothing on its own).
 */
export const ANSWER_EVERY_STATUS = {
	returnFullResponse: true,
	ignoreHttpStatusErrors: true,
} as const;

/** Whether the credential (as `getCredentials` returns it) holds an access token. */
export function tokenStored(credentials: IDataObject | undefined): boolean {
	const data = credentials?.oauthTokenData as IDataObject | undefined;
	return typeof data?.access_token === 'string' && data.access_token !== '';
}

/**
 * The access token the credential holds, or undefined: read only to redact it from quoted service text
 * (transport/quote.ts), never sent or stored.
 */
export function storedAccessToken(credentials: IDataObject | undefined): string | undefined {
	return tokenStored(credentials)
		? ((credentials?.oauthTokenData as IDataObject).access_token as string)
		: undefined;
}

/**
 * Whether n8n fetches a first token inside `httpRequestWithAuthentication` before it sends (client credentials: only
 * when the credential holds none), so that a call may wait on the token endpoint.
 */
export function fetchesFirstToken(credentials: IDataObject | undefined): boolean {
	return !tokenStored(credentials);
}

/** When n8n says the stored token expires (epoch milliseconds), or undefined when it keeps no expiry. */
export function tokenExpiresAt(credentials: IDataObject | undefined): number | undefined {
	const expiresAt = Number(
		(credentials?.oauthTokenData as IDataObject | undefined)?.n8n_expires_at,
	);
	return Number.isFinite(expiresAt) ? expiresAt : undefined;
}

/**
 * How long the stored token lives as the token endpoint said when it issued it (`expires_in`, seconds, which n8n keeps
 * with the token on every supported version), in milliseconds; undefined when it said nothing usable.
 */
export function tokenLifetimeMs(credentials: IDataObject | undefined): number | undefined {
	const seconds = Number((credentials?.oauthTokenData as IDataObject | undefined)?.expires_in);
	return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/**
 * Whether n8n says the stored token expires within `marginMs` (from the expiry it keeps with the token; false where it
 * keeps none, as on 1.123.81 and 2.0.3). Credentials that cannot be read: false (nothing is renewed early).
 */
export async function tokenExpiresWithin(
	readCredentials: () => Promise<IDataObject | undefined>,
	marginMs: number,
): Promise<boolean> {
	const expiresAt = await readCredentials().then(tokenExpiresAt, () => undefined);
	return expiresAt !== undefined && expiresAt - Date.now() <= marginMs;
}

/**
 * Whether a token renewed at `renewedAt` (epoch ms) may have expired by now: half its lifetime (the token endpoint's
 * `expires_in`, which n8n keeps with the renewed token) has passed. A refusal after that may be an expiry rather than a
 * refusal of a fresh token. A lifetime that is not known, or credentials that cannot be read: false (taken as fresh).
 */
export async function renewedTokenMayHaveExpired(
	readCredentials: () => Promise<IDataObject | undefined>,
	renewedAt: number,
): Promise<boolean> {
	const lifetimeMs = await readCredentials().then(tokenLifetimeMs, () => undefined);
	return lifetimeMs !== undefined && Date.now() - renewedAt >= lifetimeMs / 2;
}

/** Whether this context offers n8n's token renewal (`refreshOAuth2Token`). */
export function canRenewToken(ctx: { helpers: object }): boolean {
	return 'refreshOAuth2Token' in ctx.helpers;
}

/** Has n8n renew and store the credential's token. */
export async function renewToken(ctx: IExecuteFunctions, credentialType: string): Promise<unknown> {
	return await ctx.helpers.refreshOAuth2Token.call(ctx, credentialType);
}

/**
 * What a 401 from the service says about the token, as n8n handed it over: an answer (`statusCode`, sent under
 * ANSWER_EVERY_STATUS) means n8n renewed nothing and the token is to be renewed; a thrown one (its classified
 * failure) came after n8n's own renewal, so the renewed token was refused. Anything else: undefined.
 */
export function serviceRefusal(
	sent: { statusCode: number } | Classified,
): 'renew' | 'refusedAfterRenewal' | undefined {
	if ('statusCode' in sent) return sent.statusCode === 401 ? 'renew' : undefined;
	return sent.kind === 'http' && sent.status === 401 && !sent.fromTokenEndpoint
		? 'refusedAfterRenewal'
		: undefined;
}

/**
 * Where a failure without an answer happened, when the error does not say (n8n 1.x keeps no cause): at the token
 * endpoint when the credential still holds no token afterwards (n8n stores the first token before it sends), so the
 * service request was never sent. Credentials that cannot be read leave the failure the service's (may have been
 * applied: the safe side).
 */
export async function placeFailure(
	outcome: Classified,
	readCredentials: () => Promise<IDataObject | undefined>,
): Promise<Classified> {
	if (outcome.kind !== 'network' || outcome.fromTokenEndpoint) return outcome;
	const stored = await readCredentials().then(tokenStored, () => true);
	return stored ? outcome : { ...outcome, fromTokenEndpoint: true };
}

/** Whether the credential's "Ignore SSL Issues" switch (n8n's generic OAuth2 credential's `ignoreSSLIssues`) is on. */
export function ignoresSslIssues(credentials: IDataObject | undefined): boolean {
	return credentials?.ignoreSSLIssues === true;
}
