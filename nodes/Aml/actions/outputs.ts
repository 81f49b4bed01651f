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

export { runsAsTool } from '../../shared/n8n/tools';
