import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BLOCK_OUTPUT, routesClearBlock, runsAsTool } from './outputs';
import { parameterValidator } from '../validation';

import * as alert from './alert';
import * as customList from './customList';
import * as dataUpload from './dataUpload';
import * as person from './person';
import * as screening from './screening';
import * as transaction from './transaction';
import type { OperationModule, ResourceModule } from './types';
import { itemParameter } from '../helpers/itemParameter';
import { asItemError, errorJson } from '../helpers/items';
import { failedReason } from '../helpers/checks';

export const resources: Record<string, ResourceModule> = {
	person,
	transaction,
	alert,
	screening,
	customList,
	dataUpload,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const asTool = runsAsTool(this);
	const routed = !asTool && routesClearBlock(this.getNode().parameters);
	let module: OperationModule | undefined;
	try {
		const resource = itemParameter(this, 'resource', 0) as string;
		const operation = itemParameter(this, 'operation', 0) as string;
		module = resources[resource]?.operations[operation];
		if (!module) {
			throw new NodeOperationError(
				this.getNode(),
				`The operation "${operation}" of "${resource}" is not supported`,
			);
		}
		refuseUnsafeSettings(this, module, routed);
		// Choices and numbers set by expressions are validated per item with the operation's own rules, before any request.
		const validate = parameterValidator(this, module.description, itemParameter);
		const outputs = await module.execute.call(this, items, validate);
		return asTool ? capToolAnswer(outputs) : outputs;
	} catch (error) {
		// A failure of the whole run: with On Error → Continue n8n would pass the input items on unchanged, with no
		// decision and on the first output. Each item leaves as a failed item of its own instead (checks: `block`).
		if (this.continueOnFail() || (asTool && module?.decides))
			return failedRun(this, items, error, { routed, decides: module?.decides === true });
		throw asNodeError(this, error);
	}
}

/** The error as n8n's node error (NodeApiError and NodeOperationError as they are). */
function asNodeError(ctx: IExecuteFunctions, error: unknown): NodeApiError | NodeOperationError {
	return error instanceof NodeApiError || error instanceof NodeOperationError
		? error
		: new NodeOperationError(ctx.getNode(), error as Error);
}

/**
 * n8n's node settings that would change what the node promises, refused before any request:
 * - Always Output Data with Block and Clear outputs: n8n adds an empty item, which is no decision, to a node's first
 *   output whenever it is empty.
 * - Retry On Fail on an operation that writes or checks: n8n runs the whole node again, sending again the items
 *   already done and the requests that may have been applied. The node repeats by itself what is safe to repeat.
 */
function refuseUnsafeSettings(ctx: IExecuteFunctions, module: OperationModule, routed: boolean) {
	const node = ctx.getNode();
	if (routed && node.alwaysOutputData === true) {
		throw new NodeOperationError(
			node,
			'Turn off "Always Output Data" in this node\'s Settings: with Block and Clear outputs it would send an empty item, which is no decision, to Block whenever no item is blocked. Nothing was sent to the AML service',
			{
				description:
					'Every item already leaves on Block or Clear with its decision; a failed item leaves on Block (or the error output).',
			},
		);
	}
	if (node.retryOnFail === true && module.readOnly !== true) {
		throw new NodeOperationError(
			node,
			`Turn off "Retry On Fail" in this node's Settings: it would run the whole node again and send again the items already done${module.decides ? ', repeating checks that may already have run' : ', repeating writes that may already have been applied'}. Nothing was sent to the AML service`,
			{
				description:
					'The node itself repeats what is safe to repeat (rate limits, refused connections, and requests that cannot apply twice). Retry On Fail stays available on the operations that only read.',
			},
		);
	}
}

/**
 * Every input item as a failed item, on Block for Clear/Block outputs, with "Continue (using error output)" on n8n's
 * error output; with Always Output Data on Block in every mode (an empty Block would get n8n's empty item).
 */
function failedRun(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	error: unknown,
	options: { routed: boolean; decides: boolean },
): INodeExecutionData[][] {
	const outputs: INodeExecutionData[][] = options.routed ? [[], []] : [[]];
	const node = ctx.getNode();
	const toErrorOutput =
		node.onError === 'continueErrorOutput' && !(options.routed && node.alwaysOutputData === true);
	for (let i = 0; i < items.length; i++) {
		const itemError = asItemError(ctx, error, i);
		const json = {
			...(options.decides ? { decision: 'block', reason: failedReason(itemError) } : {}),
			...errorJson(itemError, i),
		};
		outputs[options.routed ? BLOCK_OUTPUT : 0].push({
			json,
			...(toErrorOutput ? { error: itemError } : {}),
			pairedItem: { item: i },
		});
	}
	return outputs;
}

/** Most items an AI tool answers with: a model reads every item it gets, and 10,000 would not fit its context. */
export const TOOL_MAX_ITEMS = 100;

/** A tool's answer cut to TOOL_MAX_ITEMS, with a last item saying so and how to narrow the call. */
function capToolAnswer(outputs: INodeExecutionData[][]): INodeExecutionData[][] {
	const [first = [], ...rest] = outputs;
	if (first.length <= TOOL_MAX_ITEMS) return outputs;
	const note: INodeExecutionData = {
		json: {
			truncated: true,
			returned: TOOL_MAX_ITEMS,
			total: first.length,
			hint: `Only the first ${TOOL_MAX_ITEMS} of ${first.length} results are shown. Narrow the call (filters, a query, or a Limit) to see the rest.`,
		},
		pairedItem: first[TOOL_MAX_ITEMS - 1]?.pairedItem,
	};
	return [[...first.slice(0, TOOL_MAX_ITEMS), note], ...rest];
}
