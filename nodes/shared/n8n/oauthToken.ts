/**
 * Seam with n8n: how n8n's OAuth2 request path keeps, fetches and renews the credential's token.
 *
 * Measured on: every tested n8n (test/n8nVersions.json), each version's real `httpRequestWithAuthentication`, OAuth2
 * client and `refreshOAuth2Token` (test/contract/oauthToken.test.ts, serviceErrors.test.ts). Not part of n8n's
 * documented node API.
 * Relies on:
 * - n8n keeps the token under `oauthTokenData` (`access_token`, the token endpoint's `expires_in`; 2.x releases after
 *   2.0.3 also `n8n_expires_at`, epoch ms) and hands it to the node with `getCredentials`.
 * - `httpRequestWithAuthentication` fetches a token only when the credential holds none (client credentials), and
 *   stores it before it sends the request. `refreshOAuth2Token` cannot fetch a first token (it reads the stored one):
 *   `fetchFirstToken` has n8n fetch it by sending a safe read.
 * - Under `ANSWER_EVERY_STATUS` every status comes back as an answer, a 401 too, and n8n renews nothing on its own.
 * - `refreshOAuth2Token` (execute contexts only) renews and stores the token, throwing the OAuth2 client's errors.
 * - The generic OAuth2 credential keeps its "Ignore SSL Issues" switch as `ignoreSSLIssues`.
 * Breaks: a token n8n kept elsewhere would read as none (every run fetches a token first); a 401 n8n stopped handing
 * back would fail the request instead of being renewed once. The contract test fails first.
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

/** Request options under which n8n hands back every status as an answer (a 401 too: n8n renews nothing itself). */
export const ANSWER_EVERY_STATUS = {
	returnFullResponse: true,
	ignoreHttpStatusErrors: true,
} as const;

/** What n8n keeps of the credential's token. */
export interface StoredToken {
	/** The access token: read to redact it and to see it change, never sent by the package. */
	token?: string;
	/** When n8n says it expires (epoch ms); absent where n8n keeps no expiry (1.123.81, 2.0.3). */
	expiresAt?: number;
	/** How long it lives as the token endpoint said (`expires_in`), in ms. */
	lifetimeMs?: number;
}

export function storedToken(credentials: IDataObject | undefined): StoredToken {
	const data = (credentials?.oauthTokenData ?? {}) as IDataObject;
	const expiresAt = Number(data.n8n_expires_at);
	const seconds = Number(data.expires_in);
	return {
		token:
			typeof data.access_token === 'string' && data.access_token !== ''
				? data.access_token
				: undefined,
		expiresAt: Number.isFinite(expiresAt) && expiresAt > 0 ? expiresAt : undefined,
		lifetimeMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined,
	};
}

/** Whether the credential's "Ignore SSL Issues" switch is on. */
export function ignoresSslIssues(credentials: IDataObject | undefined): boolean {
	return credentials?.ignoreSSLIssues === true;
}

/** Whether this context offers n8n's token renewal (`refreshOAuth2Token`). */
export function canRenewToken(ctx: { helpers: object }): boolean {
	return 'refreshOAuth2Token' in ctx.helpers;
}

/** Has n8n renew and store the credential's token (the credential holds one). Throws the token endpoint's failure. */
export async function renewToken(ctx: IExecuteFunctions, credentialType: string): Promise<void> {
	await ctx.helpers.refreshOAuth2Token.call(ctx, credentialType);
}

/**
 * Has n8n fetch and store a first token by sending `read` (a GET that is safe to send late or twice). Resolves when the
 * credential holds a token afterwards, whatever the read's answer; otherwise throws what n8n threw, which is then the
 * token endpoint's failure (n8n stores the token before it sends).
 */
export async function fetchFirstToken(
	ctx: IExecuteFunctions,
	credentialType: string,
	read: IHttpRequestOptions,
): Promise<void> {
	let thrown: unknown;
	await ctx.helpers.httpRequestWithAuthentication
		.call(ctx, credentialType, { ...read, method: 'GET', ...ANSWER_EVERY_STATUS })
		.catch((error: unknown) => (thrown = error ?? new Error('Request failed')));
	const credentials = await ctx.getCredentials<IDataObject>(credentialType).catch(() => undefined);
	if (storedToken(credentials).token === undefined)
		throw thrown ?? new Error('n8n stored no token for the credential');
}
