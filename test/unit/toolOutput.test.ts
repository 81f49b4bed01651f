import type { IExecuteFunctions } from 'n8n-workflow';

import { personToolOutput } from '../../nodes/Aml/actions/person/shared';
import { applyToolOutput, toolOutputShapers } from '../../nodes/Aml/helpers/toolOutput';

/**
 * A detail of Output in tool use (the feature is tested through the MCP Server Trigger: test/e2e/mcp.test.ts): how one
 * record is shaped per item, and that a choice outside the offered ones is refused naming the field and the item.
 */
function toolContext(parameters: Record<string, unknown>[]): IExecuteFunctions {
	// the node's parameters are expressions (the agent's or the item's values): each item answers its own
	const node = {
		type: 'n8n-nodes-aml.amlTool',
		parameters: { toolOutput: '={{ $json.output }}', toolFields: '={{ $json.fields }}' },
	};
	return {
		getNode: () => node,
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) =>
			parameters[itemIndex]?.[name] ?? fallback,
	} as unknown as IExecuteFunctions;
}

const person = {
	id: 'p-1',
	type: 'INDIVIDUAL',
	status: 'NEW',
	category: 'CUSTOMER',
	createdTime: '2026-01-01T00:00:00Z',
	attributes: { first_name: 'Ada', last_name: 'Lovelace', dob: '1815-12-10', country: 'GB' },
};

describe('Output in tool use, per item', () => {
	test('each item gets its own choice: Selected Fields (the ID always), Raw, Simplified; failed items pass unchanged', () => {
		const ctx = toolContext([
			{ toolOutput: 'fields', toolFields: ['attributes.first_name', 'status'] },
			{ toolOutput: 'raw' },
			{},
		]);
		const shapers = toolOutputShapers(ctx, 3, personToolOutput);
		const failed = { json: { error: 'Not found' }, pairedItem: { item: 0 } };
		const [out] = applyToolOutput(
			[
				[
					{ json: person, pairedItem: { item: 0 } },
					{ json: person, pairedItem: { item: 1 } },
					{ json: person, pairedItem: { item: 2 } },
					failed,
				],
			],
			personToolOutput,
			shapers,
		);
		expect(out.map((item) => item.json)).toEqual([
			{ id: 'p-1', status: 'NEW', attributes: { first_name: 'Ada' } },
			person,
			{
				id: 'p-1',
				type: 'INDIVIDUAL',
				name: 'Ada Lovelace',
				status: 'NEW',
				category: 'CUSTOMER',
				country: 'GB',
				createdTime: '2026-01-01T00:00:00Z',
			},
			failed.json,
		]);
	});

	test('a field it does not offer, or an Output it does not know, is refused naming the field and the item', () => {
		expect(() =>
			toolOutputShapers(
				toolContext([{}, { toolOutput: 'fields', toolFields: ['attributes.password'] }]),
				2,
				personToolOutput,
			),
		).toThrow(/"Fields" may only hold the fields it offers .*not "attributes.password"/);
		expect(() =>
			toolOutputShapers(toolContext([{ toolOutput: 'everything' }]), 1, personToolOutput),
		).toThrow('"Output" must be Simplified, Raw or Selected Fields (is "everything")');
	});
});
