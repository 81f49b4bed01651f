/**
 * Seam with n8n: the shape of a resource locator's raw value, read only to name what the user gave when n8n could not
 * extract an ID from it (the node's error then shows the link, not an object).
 *
 * Relies on: `getNodeParameter(name, i)` answering a resource locator as `{ __rl: true, mode, value }` (the value as
 * typed or as its expression resolved), and `getNodeParameter(name, i, undefined, { extractValue: true })` throwing when
 * a By URL value does not match its mode's `extractValue` regex. Every other parameter is read through n8n's own
 * `getNodeParameter` (nodes/Aml/helpers/itemParameter.ts), for every shape: plain values, expressions, defaults,
 * collections, fixed collections, locators in each mode.
 * Also relies on: a stored parameter value being an expression exactly when it is a text starting with "=" (at any
 * depth of a collection or locator), so that a value holding none reads the same for every item (`holdsExpression`;
 * itemParameter reads such a parameter once per run).
 * Measured on: every tested n8n (test/n8nVersions.json; test/contract/parameters.test.ts, n8n-core's ExecuteContext:
 * the package's readers beside getNodeParameter for two items of one run, expressions at every depth).
 * Breaks when n8n changes: a bad By URL link's error shows "[object Object]" (or nothing) as the value given, still
 * naming the item and the field; nothing is sent either way. If n8n marked expressions otherwise, a parameter's
 * expression would be read for the first item only (the contract test's expression rows fail first).
 */
export function locatorGivenValue(raw: unknown): unknown {
	return raw !== null && typeof raw === 'object' ? (raw as { value?: unknown }).value : raw;
}

/** Whether an expression (a text starting with "=") is anywhere in a stored parameter value. */
export function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (value !== null && typeof value === 'object')
		return Object.values(value as Record<string, unknown>).some(holdsExpression);
	return false;
}
