/**
 * The seam with n8n: every place where the package relies on n8n behaviour beyond its documented node API (error
 * shapes, message texts, token data, parameter internals). Nothing outside this folder reads them
 * (test/unit/seam.test.ts greps for the names). Each file says what it relies on, why, and on which n8n versions it
 * was measured; test/contract/ runs n8n's own implementation beside it on every supported n8n (1.123.81, 2.0.3,
 * 2.41.1), as `npm test` does.
 *
 * - displayOptions.ts: whether a parameter is shown for an item (n8n-workflow's `NodeHelpers.displayParameter`).
 *   Breaks: the validation of expression-set choices and numbers checks too few or too many parameters.
 * - errors.ts: what `httpRequestWithAuthentication` and `refreshOAuth2Token` throw (wrappers, causes, OAuth2 client
 *   errors, message texts), read as an answer, a network failure, or a token-endpoint failure.
 *   Breaks: retries and the truthfulness of "may have been applied" / "nothing was sent", and fail-closed checks'
 *   reasons (a misread error still blocks a check).
 * - oauthToken.ts: the token data n8n keeps with the credential (`oauthTokenData.access_token`, `n8n_expires_at`).
 *   Breaks: on 1.x a first-fetch failure reads as "may have been applied"; uploads lose the renewal before sending.
 * - connections.ts: n8n-workflow's `NodeConnectionTypes` (absent before n8n 1.83: the nodes refuse to load, saying so).
 *
 * What breaks when n8n changes: the contract suite names the seam; the node's behaviour that depends on it is named in
 * each file's header.
 */
export { displayDependencies, isShown } from './displayOptions';
export { classify, NETWORK_CODES, NEVER_SENT, type Classified } from './errors';
export { tokenExpiresAt, tokenStored } from './oauthToken';
export { MAIN_CONNECTION, SUPPORTED_N8N } from './connections';
