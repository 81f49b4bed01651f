import { N8N_VERSION, n8nCoreContains, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/errorOutput.ts against this n8n's WorkflowExecute (its compiled n8n-core): an item carrying
 * `error` has its json replaced by the error's message, the error output keeps `details` beside `error` exactly on the
 * n8n the seam recognises, and the seam's item is one that n8n moves there.
 */
const seam = withN8n(
	() =>
		require('../../nodes/shared/n8n/errorOutput') as typeof import('../../nodes/shared/n8n/errorOutput'),
);

/** n8n's own rule for an item whose json alone sends it to the error output (2.41.1). */
const KEEPS_DETAILS = "['error', 'message', 'details'].includes(key)";
/** Older rules: `{error}` alone, or `{error, message}`. */
const ERROR_ONLY = 'item.json.error && Object.keys(item.json).length === 1';

describe(`n8n's error output on n8n ${N8N_VERSION}`, () => {
	test("an item that carries `error` loses its json to the error's message (the node's fields are lost)", () => {
		expect(n8nCoreContains('lineResult.json = { error: lineResult.error.message }')).toBe(true);
	});

	test('the seam recognises exactly the n8n whose error output keeps `details` beside `error`', () => {
		const keeps = n8nCoreContains(KEEPS_DETAILS);
		expect(keeps || n8nCoreContains(ERROR_ONLY)).toBe(true);
		expect(seam.errorOutputKeepsDetails()).toBe(keeps);
	});

	test("the seam's item is one n8n moves to the error output, with the node's fields where they are kept", () => {
		const error = Object.assign(new Error('Insufficient permissions'), {}) as never;
		const json = { error: 'Insufficient permissions', decision: 'block', alertIds: [7] };
		const item = seam.errorOutputItem(json, error, { item: 0 });
		if (seam.errorOutputKeepsDetails()) {
			expect(item).toEqual({
				json: { error: 'Insufficient permissions', details: json },
				pairedItem: { item: 0 },
			});
			expect(
				Object.keys(item.json).every((key) => ['error', 'message', 'details'].includes(key)),
			).toBe(true);
		} else {
			expect(item).toEqual({ json, error, pairedItem: { item: 0 } });
		}
	});
});
