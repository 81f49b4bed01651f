/**
 * Outputs of the AML node: one, except for transaction checks and the gate with "Route to Clear/Block" on, which
 * have Block (output 0) and Clear (output 1). Block comes first because n8n sends its own fallback items to a node's
 * first output: the empty item of Always Output Data and, with On Error → Continue, the input items of a node that
 * failed as a whole. Those must never reach Clear. Evaluated by n8n from the parameters.
 */
export const BLOCK_OUTPUT = 0;
export const CLEAR_OUTPUT = 1;

/** Whether the parameters give the node Block and Clear outputs (the same test n8n evaluates for the outputs). */
export function routesClearBlock(parameters: {
	resource?: unknown;
	operation?: unknown;
	routeOutputs?: unknown;
}): boolean {
	return (
		parameters.resource === 'transaction' &&
		['gate', 'runMonitoringCheck', 'runScreeningCheck'].includes(String(parameters.operation)) &&
		parameters.routeOutputs !== false
	);
}

export const outputsExpression = `={{(${String(function configuredOutputs(routed: boolean) {
	return routed
		? [
				{ type: 'main', displayName: 'Block' },
				{ type: 'main', displayName: 'Clear' },
			]
		: [{ type: 'main' }];
})})((${String(routesClearBlock)})($parameter))}}`;

export { runsAsTool } from '../../shared/n8n/tools';
