/**
 * Outputs of the AML node: one, except for transaction checks and the gate with "Route to Clear/Block" on, which
 * have Clear (output 0) and Block (output 1). Evaluated by n8n from the parameters.
 */
export const CLEAR_OUTPUT = 0;
export const BLOCK_OUTPUT = 1;

export const outputsExpression = `={{(${String(function configuredOutputs(parameters: {
	resource?: string;
	operation?: string;
	routeOutputs?: boolean;
}) {
	const routed =
		parameters.resource === 'transaction' &&
		['gate', 'runMonitoringCheck', 'runScreeningCheck'].includes(parameters.operation ?? '') &&
		parameters.routeOutputs !== false;
	return routed
		? [
				{ type: 'main', displayName: 'Clear' },
				{ type: 'main', displayName: 'Block' },
			]
		: [{ type: 'main' }];
})})($parameter)}}`;

/**
 * Whether the node runs as an AI tool (n8n's `<node>Tool` variant of a `usableAsTool` node, called by an AI Agent or
 * the MCP Server Trigger). n8n hands only the first output back to the agent, so a tool answers on one output.
 */
export function runsAsTool(ctx: { getNode(): { type: string } }): boolean {
	return ctx.getNode().type.endsWith('Tool');
}
