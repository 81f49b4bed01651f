import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { amlApiRequest } from '../../transport';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [optionsCollection()];

export const description = updateDisplayOptions(
	{ show: { resource: ['screening'], operation: ['getListGroups'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: () => ({}),
		send: async (_prepared, i) => {
			const groups = await amlApiRequest.call(
				this,
				{ method: 'GET', path: '/v1/screening-list-groups', answer: { list: true } },
				i,
			);
			return Array.isArray(groups) ? (groups as IDataObject[]) : [];
		},
	});
}

export const readOnly = true;
