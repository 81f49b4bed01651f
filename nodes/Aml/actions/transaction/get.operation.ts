import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlApiRequest, idSegment } from '../../transport';
import {
	readOwnerId,
	readTransactionId,
	transactionIdProperty,
	transactionPersonIdProperties,
} from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	...transactionPersonIdProperties,
	transactionIdProperty,
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({ personId: readOwnerId(this, i), id: readTransactionId(this, i) }),
		send: async ({ personId, id }, i) => {
			return (await amlApiRequest.call(
				this,
				{
					method: 'GET',
					path: `/v1/persons/${idSegment(personId)}/transactions/${idSegment(id)}`,
					answer: { fields: ['id'] },
				},
				i,
			)) as IDataObject;
		},
	});
}

export const readOnly = true;
