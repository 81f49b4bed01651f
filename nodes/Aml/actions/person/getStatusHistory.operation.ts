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
	personIdProperties,
	readPersonId,
	simplifyProperty,
	simplifyStatusHistory,
} from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	...personIdProperties,
	simplifyProperty(
		'Whether to return only the current status and each status with its start and end time, instead of the full history with assigners and snooze records',
	),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['getStatusHistory'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({
			personId: readPersonId(this, i),
			simplify: itemParameter(this, 'simplify', i, false) as boolean,
		}),
		send: async ({ personId, simplify }, i) => {
			const history = ((await amlApiRequest.call(
				this,
				{
					method: 'GET',
					path: `/v1/persons/${idSegment(personId)}/statuses`,
					answer: { fields: ['statuses'] },
				},
				i,
			)) ?? {}) as IDataObject;
			return simplify ? simplifyStatusHistory(personId, history) : { personId, ...history };
		},
	});
}

export const readOnly = true;
