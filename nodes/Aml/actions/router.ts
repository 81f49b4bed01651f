import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsTool } from './outputs';
import { parameterValidator } from '../validation';

import * as alert from './alert';
import * as customList from './customList';
import * as dataUpload from './dataUpload';
import * as person from './person';
import * as screening from './screening';
import * as transaction from './transaction';
import type { ResourceModule } from './types';
import { itemParameter } from '../helpers/itemParameter';

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
	const resource = itemParameter(this, 'resource', 0) as string;
	const operation = itemParameter(this, 'operation', 0) as string;
	const module = resources[resource]?.operations[operation];
	if (!module) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}
	// Choices and numbers set by expressions are validated per item with the operation's own rules, before any request.
	const validate = parameterValidator(this, module.description, itemParameter);
	const outputs = await module.execute.call(this, items, validate);
	return runsAsTool(this) ? capToolAnswer(outputs) : outputs;
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
