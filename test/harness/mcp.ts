import { randomUUID } from 'node:crypto';

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

/**
 * Creates and activates `workflow` (its MCP Server Trigger listening on `path`) and connects an MCP client. A trigger
 * with Bearer Auth whose credential is still to choose (example 05 as shipped) gets a new Bearer Auth credential, and
 * the client sends its token, as a user sets it up.
 */
export async function mcpTools(workflow: Json, path: string): Promise<McpTools> {
	const headers: Record<string, string> = {};
	let bearer: { id: string; name: string } | undefined;
	const nodes = ((workflow.nodes ?? []) as Json[]).map((node) => {
		if (
			node.type !== '@n8n/n8n-nodes-langchain.mcpTrigger' ||
			node.parameters?.authentication !== 'bearerAuth' ||
			node.credentials?.httpBearerAuth?.id
		)
			return node;
		return { ...node, credentials: { ...node.credentials, httpBearerAuth: 'pending' } };
	});
	if (nodes.some((node) => node.credentials?.httpBearerAuth === 'pending')) {
		const token = randomUUID();
		bearer = await n8n().createCredential(
			`MCP client token ${token.slice(0, 8)}`,
			'httpBearerAuth',
			{
				token,
			},
		);
		headers.Authorization = `Bearer ${token}`;
		for (const node of nodes)
			if (node.credentials?.httpBearerAuth === 'pending')
				node.credentials.httpBearerAuth = { id: bearer.id, name: bearer.name };
	}
	const created = await n8n().createWorkflow({ ...workflow, nodes });
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
		if (bearer)
			await n8n()
				.deleteCredential(bearer.id)
				.catch(() => undefined);
	};
	try {
		await n8n().activate(workflowId);
		await client.connect(
			new StreamableHTTPClientTransport(new URL(`${context().n8n.baseUrl}/mcp/${path}`), {
				requestInit: { headers },
			}),
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
