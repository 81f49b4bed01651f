import { context, n8n, type Json } from './context';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const {
	StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

/** A workflow with n8n's MCP Server Trigger, active, and a real MCP client (the official SDK) connected to it. */
export interface McpTools {
	client: any;
	workflowId: string;
	/** Closes the client and deletes the workflow. */
	close(): Promise<void>;
}

/** Creates and activates `workflow` (its MCP Server Trigger listening on `path`) and connects an MCP client. */
export async function mcpTools(workflow: Json, path: string): Promise<McpTools> {
	const created = await n8n().createWorkflow(workflow);
	const workflowId = String(created.id);
	const client = new Client({ name: 'aml-e2e', version: '1.0.0' });
	const close = async () => {
		await client.close().catch(() => undefined);
		await n8n()
			.deactivate(workflowId)
			.catch(() => undefined);
		await n8n()
			.deleteWorkflow(workflowId)
			.catch(() => undefined);
	};
	try {
		await n8n().activate(workflowId);
		await client.connect(
			new StreamableHTTPClientTransport(new URL(`${context().n8n.baseUrl}/mcp/${path}`)),
		);
	} catch (error) {
		await close();
		throw error;
	}
	return { client, workflowId, close };
}

/** The text of a tool's answer. */
export function textOf(result: Json): string {
	return (result.content ?? []).map((c: Json) => c.text ?? '').join('\n');
}
