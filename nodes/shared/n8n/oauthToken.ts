/**
 * Seam with n8n: the OAuth2 token data n8n keeps with the credential.
 *
 * Relies on: n8n stores the token of an OAuth2 credential under `oauthTokenData` (`access_token`; from 2.x releases
 * after 2.0.3 also `n8n_expires_at`, the expiry in epoch milliseconds, absent on 1.123.81 and 2.0.3) and hands it to the node with
 * `getCredentials`; it stores a first token before it sends the request the token was fetched for. Not part of n8n's
 * documented node API. Used by transport/auth.ts: whether a failed first request ever reached the service (no token
 * stored: the token fetch failed, nothing was sent), and renewing a token about to expire before an upload.
 * Also relies on: n8n's `refreshOAuth2Token(credentialType)` helper on the execute context (on every supported
 * version; absent from contexts that only test a credential), which renews and stores the token.
 * Measured on: n8n 1.123.81, 2.0.3 and 2.41.1 (test/contract/oauthToken.test.ts). If n8n renames these fields, a
 * first-fetch failure on 1.x would be read as a request that may have been applied (safe side for one-shot requests)
 * and uploads would rely on the 401 path alone.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether the credential (as `getCredentials` returns it) holds an access token. n8n stores the first token of a
 * credential before it sends the request the token is for, so a failure after which the credential still holds none
 * happened at the token endpoint: the service request was never sent. Used where the error itself does not say
 * (n8n 1.x keeps no cause).
 */
export function tokenStored(credentials: IDataObject | undefined): boolean {
	const data = credentials?.oauthTokenData as IDataObject | undefined;
	return typeof data?.access_token === 'string' && data.access_token !== '';
}

/** When n8n says the stored token expires (epoch milliseconds), or undefined when it keeps no expiry. */
export function tokenExpiresAt(credentials: IDataObject | undefined): number | undefined {
	const expiresAt = Number(
		(credentials?.oauthTokenData as IDataObject | undefined)?.n8n_expires_at,
	);
	return Number.isFinite(expiresAt) ? expiresAt : undefined;
}

/** Whether this context offers n8n's token renewal (`refreshOAuth2Token`). */
export function canRenewToken(ctx: { helpers: object }): boolean {
	return 'refreshOAuth2Token' in ctx.helpers;
}

/** Has n8n renew and store the credential's token. */
export async function renewToken(ctx: IExecuteFunctions, credentialType: string): Promise<unknown> {
	return await ctx.helpers.refreshOAuth2Token.call(ctx, credentialType);
}
