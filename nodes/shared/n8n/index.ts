/**
 * The seam with n8n: every place where the package relies on n8n behaviour beyond its documented node API (error
 * shapes, message texts, token data, parameter internals). Nothing outside this folder reads them
 * (test/unit/seam.test.ts greps for the names). Each file says what it relies on, why, and on which n8n versions it
 * was measured; test/contract/ runs n8n's own implementation beside it on every supported n8n (1.123.81, 2.0.3,
 * 2.41.1), as `npm test` does.
 *
 * - displayOptions.ts: whether a parameter is shown for an item (n8n-workflow's `NodeHelpers.displayParameter`).
 *
 * What breaks when n8n changes: the contract suite names the seam; the node's behaviour that depends on it is named in
 * each file's header.
 */
export { displayDependencies, isShown } from './displayOptions';
