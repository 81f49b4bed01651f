/**
 * Seam with n8n: whether the AML node runs as an AI tool.
 *
 * Measured on: every tested n8n (test/n8nVersions.json; test/contract/tools.test.ts: each n8n's own conversion of the
 * AML node's description into its tool variant). Not part of n8n's documented node API.
 * Relies on: n8n makes the tool variant of a `usableAsTool` node (the one an AI Agent or the MCP Server Trigger calls)
 * by copying its description under the name `<name>Tool`, and runs it with that type.
 * Breaks: a check or the Gate called as a tool would answer on two outputs, of which n8n hands only the first back to
 * the agent (a Block would reach it as no answer), and tool answers would no longer be capped in size.
 */

/** Whether the node runs as n8n's tool variant of itself (type `<name>Tool`). */
export function runsAsTool(ctx: { getNode(): { type: string } }): boolean {
	return ctx.getNode().type.endsWith('Tool');
}
