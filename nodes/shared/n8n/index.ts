/**
 * The seam with n8n: every place where the package relies on n8n behaviour beyond its documented node API (error
 * shapes, message texts, token data, parameter internals, the deduplication store). Nothing outside this folder
 * reads them (test/unit/seam.test.ts greps for the names). Each file says what it relies on, why, and on which n8n
 * versions it was measured; test/contract/ runs n8n's own implementation beside it on every supported n8n
 * (1.123.81, 2.0.3, 2.41.1: `npm run test:contract`, part of `npm test`). When n8n changes, the contract test named
 * below fails first; what users would see is on the "Breaks" line.
 *
 * - errors.ts: what `httpRequestWithAuthentication` and `refreshOAuth2Token` throw (wrappers, causes, OAuth2 client
 *   errors, message texts), read as an answer, a network failure, or a token-endpoint failure; and that every status
 *   of the service comes back as an answer (`ignoreHttpStatusErrors`), sent once.
 *   Contract: errors.test.ts (token endpoint: drop, 429 with and without an OAuth body, 503, invalid_client, on first
 *   fetch and renewal, made by each n8n's OAuth2 client), serviceErrors.test.ts (each n8n's real helper against a
 *   local server: 400 401 403 404 409 422 429 ± Retry-After 500 502 503, dropped, refused, timed out).
 *   Breaks: retries and the truthfulness of "may have been applied" / "nothing was sent"; waiting out a busy token
 *   endpoint; fail-closed checks' reasons (a misread error still blocks a check).
 * - oauthToken.ts: how n8n's OAuth2 request path handles the token: the token data it keeps with the credential
 *   (`oauthTokenData.access_token`, `expires_in`, `n8n_expires_at`: whether a token expires soon, `tokenExpiresWithin`,
 *   and whether a renewed token may have expired before use, `renewedTokenMayHaveExpired`; the stored token's value,
 *   `storedAccessToken`, only to redact it from quoted service text); that it stores a first
 *   token before it sends (`placeFailure`: a
 *   failure with no token stored afterwards never reached the service); that a 401 handed back as an answer was not
 *   renewed by n8n and a thrown one came after n8n's own renewal (`serviceRefusal`); its renewal helper
 *   `refreshOAuth2Token` (feature-detected). Contract: oauthToken.test.ts (each n8n's real
 *   httpRequestWithAuthentication and OAuth2 client against a local token endpoint and service).
 *   Breaks: on 1.x a first-fetch failure reads as "may have been applied"; uploads lose the renewal before sending;
 *   a refused token is renewed too often or not at all; a raw token echoed in service text is no longer redacted.
 * - cancel.ts: that `httpRequestWithAuthentication` takes the HTTP client's abort signal from the context's
 *   `getExecutionCancelSignal()` (replacing the request's own), also for the request it sends after a first token
 *   fetch (`requestWithin`, `withCancelSignal`: a first fetch given up after the node's Timeout sends nothing later;
 *   a token stored by then means the request went out). Contract:
 *   cancel.test.ts (each n8n's real helper, a late token endpoint, a counting service).
 *   Breaks: a late first token would still send a request the item reported as never sent.
 *   Also `executionCancelSignal`: the execute context's `getExecutionCancelSignal()` where the context has one (n8n's
 *   ExecuteContext on every supported version, contract in cancel.test.ts); token waits, request retries and upload
 *   polling stop on it. Breaks: a stopped execution would keep waiting.
 * - displayOptions.ts: whether a parameter is shown for an item (n8n-workflow's `NodeHelpers.displayParameter`).
 *   Contract: displayOptions.test.ts (every property of both nodes, every combination the panel can show).
 *   Breaks: the validation of expression-set choices and numbers checks too few or too many parameters.
 * - parameters.ts: a resource locator's raw shape (`{ __rl, mode, value }`), read only to show the link a By URL
 *   error names. Every parameter is read by n8n's own `getNodeParameter`. Contract: parameters.test.ts (n8n-core's
 *   real ExecuteContext: plain values, expressions, defaults, collections, fixed collections, locators From List,
 *   By ID, By URL, a plain string).
 *   Breaks: a bad link's error shows no link (still names item and field; nothing is sent).
 * - resourceMapper.ts: n8n's resource mapper (`type: 'resourceMapper'`, `fieldMapperProperty`) and the value it stores
 *   (`{ mappingMode, value, schema }`: each field set below, or Map Automatically by name), read by `mappedFields`
 *   for a custom-list record's attributes. Contract: resourceMapper.test.ts (n8n-core's real ExecuteContext: both
 *   modes, expressions in set values, arrays kept, removed fields, the default).
 *   Breaks: a record's mapped attributes are missing or wrong (no field mapped fails the item; nothing is sent).
 * - deduplication.ts: n8n's deduplication store (`checkProcessedAndRecord`, feature-detected) where the AML Trigger
 *   records each delivery, and n8n's process model the trigger's in-process map relies on. Contract:
 *   deduplication.test.ts (each n8n's own store: records, answers, keeps the newest, no atomic claim).
 *   Breaks: without the store a redelivery after a restart or through another webhook process runs the workflow
 *   again; with an atomic claim the in-process map could go (that test then fails).
 * - tools.ts: that n8n runs the tool variant of a `usableAsTool` node under the type `<name>Tool` (`runsAsTool`).
 *   Contract: tools.test.ts (each n8n's own conversion of the AML node's description).
 *   Breaks: a check or the Gate called as a tool answers on two outputs (the agent sees only the first) and uncapped.
 * - webhookRequest.ts: n8n's body parser keeps a webhook's bytes as `req.rawBody` / `req.readRawBody()`
 *   (`rawBodyOf`, for the AML Trigger's HMAC check). Contract: webhookRequest.test.ts (each n8n's own body-parser
 *   middleware on real requests: JSON, other content types, bytes as sent).
 *   Breaks: every HMAC-signed delivery fails its check (answered 401, nothing starts: fail closed).
 * - connections.ts: n8n-workflow's `NodeConnectionTypes` (absent before n8n 1.83: the nodes refuse to load, saying so).
 *   Tested by test/unit/n8nSupport.test.ts. Breaks: the nodes do not load on an older n8n.
 */
export { displayDependencies, isShown } from './displayOptions';
export { classify, NETWORK_CODES, NEVER_SENT, type Classified } from './errors';
export {
	ANSWER_EVERY_STATUS,
	canRenewToken,
	fetchesFirstToken,
	placeFailure,
	renewedTokenMayHaveExpired,
	renewToken,
	serviceRefusal,
	storedAccessToken,
	tokenExpiresAt,
	tokenExpiresWithin,
	tokenLifetimeMs,
	tokenStored,
} from './oauthToken';
export { deduplicationStore, recordedBefore } from './deduplication';
export { locatorGivenValue } from './parameters';
export { fieldMapperProperty, mappedFields, type MappedFields } from './resourceMapper';
export { MAIN_CONNECTION, SUPPORTED_N8N } from './connections';
export { runsAsTool } from './tools';
export {
	executionCancelSignal,
	GivenUp,
	requestWithin,
	settledBy,
	TIMED_OUT,
	withCancelSignal,
} from './cancel';
export { rawBodyOf } from './webhookRequest';
