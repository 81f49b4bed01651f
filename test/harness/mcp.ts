import { randomUUID } from 'node:crypto';

import { context, n8n, runAml, type Json } from './context';

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

/** One AML tool of `outputToolsWorkflow`: its name, the operation's parameters (with `$fromAI` fields). */
export interface AmlToolSpec {
	name: string;
	description: string;
	parameters: Json;
}

/**
 * A workflow with an MCP Server Trigger on `path` (no authentication: it lives only for the test) and the given AML
 * tool nodes, each with `credential`.
 */
export function amlToolsWorkflow(
	name: string,
	path: string,
	credential: { id: string; name: string },
	tools: AmlToolSpec[],
): Json {
	const trigger = 'MCP Server Trigger';
	return {
		name,
		nodes: [
			{
				id: randomUUID(),
				name: trigger,
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { path },
			},
			...tools.map((tool, index) => ({
				id: randomUUID(),
				name: tool.name,
				type: 'n8n-nodes-aml.amlTool',
				typeVersion: 1,
				position: [260, 200 + 160 * index],
				parameters: {
					...tool.parameters,
					descriptionType: 'manual',
					toolDescription: tool.description,
				},
				credentials: { amlOAuth2Api: credential },
			})),
		],
		connections: Object.fromEntries(
			tools.map((tool) => [
				tool.name,
				{ ai_tool: [[{ node: trigger, type: 'ai_tool', index: 0 }]] },
			]),
		),
		settings: { executionOrder: 'v1' },
	};
}

/** Person → Get as a tool, the agent filling the Person ID, with these Output parameters. */
export function personGetTool(name: string, output: Json): AmlToolSpec {
	return {
		name,
		description: 'Read a stored person.',
		parameters: {
			resource: 'person',
			operation: 'get',
			personId: {
				__rl: true,
				value: "={{ $fromAI('personId', 'ID of the person', 'string') }}",
				mode: 'id',
			},
			...output,
		},
	};
}

/** Transaction → Get Many (Return All) as a tool, the agent filling the Person ID, with these Output parameters. */
export function transactionsTool(name: string, output: Json): AmlToolSpec {
	return {
		name,
		description: 'List the stored transactions of a person.',
		parameters: {
			resource: 'transaction',
			operation: 'getAll',
			personId: {
				__rl: true,
				value: "={{ $fromAI('personId', 'ID of the person', 'string') }}",
				mode: 'id',
			},
			returnAll: true,
			...output,
		},
	};
}

/** The person `outputTools` stores: more attributes than the Selected Fields tools pick. */
export const OUTPUT_ATTRIBUTES = {
	first_name: 'Olga',
	last_name: 'Output',
	dob: '1980-02-03',
	country: 'DE',
	email: 'olga@example.com',
};

/** What the Selected Fields tools of `outputTools` answer: the chosen fields and the ID, nothing else. */
export const OUTPUT_SELECTED = {
	person: (owner: string) => [
		{
			id: owner,
			status: expect.any(String),
			attributes: { first_name: 'Olga', country: 'DE' },
		},
	],
	transactions: (owner: string) => [{ id: `${owner}-t1`, attributes: { amount: '42.00' } }],
};

export interface OutputTools {
	/** Calls a tool (by default with the stored person's ID); the answer's items. */
	call(name: string, args?: Json): Promise<Json[]>;
	close(): Promise<void>;
}

/**
 * A person `owner` with one transaction, and an MCP server on `path` with AML tools of each Output: person_selected
 * (status, first name, country), person_simplified (the default), person_raw, transactions_selected (the amount),
 * screen_selected (Screening → Search: each match's score and list).
 */
export async function outputTools(owner: string, path: string): Promise<OutputTools> {
	const person = await runAml({
		resource: 'person',
		operation: 'create',
		personId: owner,
		personType: 'INDIVIDUAL',
		attributesMode: 'json',
		attributesJson: JSON.stringify(OUTPUT_ATTRIBUTES),
	});
	if (person.status !== 'success') throw new Error(`person ${owner} not stored: ${person.status}`);
	const transaction = await runAml({
		resource: 'transaction',
		operation: 'create',
		personId: owner,
		transactionId: `${owner}-t1`,
		attributesMode: 'json',
		attributesJson:
			'{"amount":"42.00","type":"payment","direction":"I","timestamp":"2026-03-07T10:00:00Z","reference":"invoice 7"}',
	});
	if (transaction.status !== 'success')
		throw new Error(`transaction not stored: ${transaction.status}`);
	const tools = await mcpTools(
		amlToolsWorkflow(`AML Output tools ${path}`, path, context().credential, [
			personGetTool('person_selected', {
				toolOutput: 'fields',
				toolFields: ['status', 'attributes.first_name', 'attributes.country'],
			}),
			personGetTool('person_simplified', {}),
			personGetTool('person_raw', { toolOutput: 'raw' }),
			transactionsTool('transactions_selected', {
				toolOutput: 'fields',
				toolFields: ['attributes.amount'],
			}),
			{
				name: 'screen_selected',
				description: 'Look a name up on the sanction lists.',
				parameters: {
					resource: 'screening',
					operation: 'search',
					name: "={{ $fromAI('name', 'Full name', 'string') }}",
					recordEntityType: 'ALL',
					configurations: { configuration: [{ type: 'SANCTION', matchType: 'FUZZY_MATCH' }] },
					toolOutput: 'fields',
					toolFields: ['score', 'sanctionList'],
				},
			},
		]),
		path,
	);
	return {
		call: async (name, args = { personId: owner }) =>
			JSON.parse(textOf(await tools.client.callTool({ name, arguments: args }))) as Json[],
		close: tools.close,
	};
}
