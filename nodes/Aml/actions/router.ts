import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BLOCK_OUTPUT, routesClearBlock, runsAsTool } from './outputs';

import * as alert from './alert';
import * as customList from './customList';
import * as dataUpload from './dataUpload';
import * as person from './person';
import * as screening from './screening';
import * as transaction from './transaction';
import type { OperationModule, ResourceModule } from './types';
import { itemParameter } from '../helpers/itemParameter';
import { asItemError, errorJson } from '../helpers/items';
import { errorOutputItem } from '../../shared/n8n/errorOutput';
import { failedReason } from '../helpers/checks';
import { requestOptions } from '../helpers/descriptions';
import { applyToolOutput, toolOutputShapers } from '../helpers/toolOutput';
import { numberOption, parameterValidator } from '../validation';
import { setRunTimeout } from '../transport';

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
		validRequestOptions(this);
		// Choices and numbers set by expressions are validated per item with the operation's own rules, before any request.
		const validate = parameterValidator(this, module.description, itemParameter);
		// As a tool, each item's Output choice is read and checked before any request, and applied to its records.
		const shapers =
			asTool && module.toolOutput
				? toolOutputShapers(this, items.length, module.toolOutput)
				: undefined;
		const outputs = await module.execute.call(this, items, validate);
		if (!asTool) return outputs;
		return capToolAnswer(
			shapers && module.toolOutput ? applyToolOutput(outputs, module.toolOutput, shapers) : outputs,
		);
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
 * - Always Output Data on an operation whose items carry `decision`: n8n adds an empty item, which is no decision, to
 *   the node's first output whenever it is empty (Block when routed; with routing off, the one output when every item
 *   went to the error output), and a test of `decision != "block"` would let it through.
 * - Retry On Fail on an operation that writes or checks: n8n runs the whole node again, sending again the items
 *   already done and the requests that may have been applied. The node repeats by itself what is safe to repeat.
 */
function refuseUnsafeSettings(ctx: IExecuteFunctions, module: OperationModule, routed: boolean) {
	const node = ctx.getNode();
	if ((routed || module.decides === true) && node.alwaysOutputData === true) {
		throw new NodeOperationError(
			node,
			`Turn off "Always Output Data" in this node's Settings: it would send an empty item, which is no decision, ${routed ? 'to Block whenever no item is blocked' : 'whenever no item leaves on the main output'}. Nothing was sent to the AML service`,
			{
				description:
					'Every item already leaves with its decision; a failed item leaves on Block (or the error output) and says decision "block".',
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
 * The request options every operation reads once per run (Parallel Requests, Timeout): numeric text from an expression
 * is its number, anything else outside the option's rule is refused before any request, naming the field. The Timeout
 * is handed to the transport, which reads no node option.
 */
function validRequestOptions(ctx: IExecuteFunctions) {
	for (const option of requestOptions) {
		const value = itemParameter(ctx, `options.${option.name}`, 0, option.default);
		const ms = numberOption(ctx, 0, option, value);
		if (option.name === 'timeout') setRunTimeout(ctx, ms);
	}
}

/**
 * Every input item as a failed item, on Block for Clear/Block outputs, with "Continue (using error output)" on n8n's
 * error output; with Always Output Data on an operation that decides, on the main output (Block) in every mode (an
 * empty one would get n8n's empty item).
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
		node.onError === 'continueErrorOutput' &&
		!((options.routed || options.decides) && node.alwaysOutputData === true);
	for (let i = 0; i < items.length; i++) {
		const itemError = asItemError(ctx, error, i);
		const json = {
			...(options.decides ? { decision: 'block', reason: failedReason(itemError) } : {}),
			...errorJson(itemError, i),
		};
		outputs[options.routed ? BLOCK_OUTPUT : 0].push(
			toErrorOutput
				? errorOutputItem(json, itemError, { item: i })
				: { json, pairedItem: { item: i } },
		);
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
