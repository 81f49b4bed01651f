import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { setItemCheck } from '../helpers/items';
import { parameterCheck } from '../validation';

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
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	// Choices and numbers set by expressions are checked per item with the operation's own rules, before any request.
	setItemCheck(this, parameterCheck(this, module.description));
	return await module.execute.call(this, items);
}
