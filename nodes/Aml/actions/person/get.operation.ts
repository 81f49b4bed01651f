import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { toolOutputProperties } from '../../helpers/toolOutput';
import { amlApiRequest, idSegment } from '../../transport';
import type { ItemValidator } from '../../validation';
import { personIdProperties, readPersonId, personToolOutput } from './shared';

const properties: INodeProperties[] = [
	...personIdProperties,
	...toolOutputProperties(personToolOutput),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			return { personId: readPersonId(this, i) };
		},
		send: async ({ personId }, i) => {
			return (await amlApiRequest.call(
				this,
				{ method: 'GET', path: `/v1/persons/${idSegment(personId)}`, answer: { fields: ['id'] } },
				i,
			)) as IDataObject;
		},
	});
}

export const readOnly = true;

export const toolOutput = personToolOutput;
