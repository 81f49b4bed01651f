import { Aml } from '../../nodes/Aml/Aml.node';
import { inN8nProcess, N8N_VERSION, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/tools.ts against this n8n's own conversion of a `usableAsTool` node into the tool an AI Agent or
 * the MCP Server Trigger calls (2.41.1: `tool-generation`; 1.123.81 and 2.0.3: a method of its node loader): the AML
 * node's tool variant has the type `runsAsTool` recognises, the node itself does not.
 */
const seam = withN8n(
	() => require('../../nodes/shared/n8n/tools') as typeof import('../../nodes/shared/n8n/tools'),
);

/**
 * The name of this n8n's tool variant of a node type (2.41.1: `tool-generation`; 1.123.81 and 2.0.3: a method of its
 * node loader), converted in a plain Node process (the loader's imports include ES modules).
 */
function n8nToolName(description: object): string {
	return inN8nProcess<string>(
		`let convert;
		try { convert = require('n8n/dist/tool-generation').convertNodeToAiTool; }
		catch { const loader = require('n8n/dist/load-nodes-and-credentials').LoadNodesAndCredentials.prototype;
			convert = (item) => loader.convertNodeToAiTool.call(loader, item); }
		console.log(JSON.stringify(convert({ description: input }).description.name));
		process.exit(0);`,
		description,
	);
}

describe(`the AML node as an AI tool on n8n ${N8N_VERSION}`, () => {
	test("n8n's tool variant of the AML node runs under a type runsAsTool recognises; the node itself does not", () => {
		const description = structuredClone(new Aml().description);
		description.name = `n8n-nodes-aml.${description.name}`;
		const toolName = n8nToolName(description);
		const asNode = (type: string) => ({ getNode: () => ({ type }) });
		expect(toolName).toBe('n8n-nodes-aml.amlTool');
		expect(seam.runsAsTool(asNode(toolName))).toBe(true);
		expect(seam.runsAsTool(asNode(description.name))).toBe(false);
	});
});
