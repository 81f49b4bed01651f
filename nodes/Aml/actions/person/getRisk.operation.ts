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
import { personIdProperties, readPersonId, simplifyProperty, simplifyRisk } from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	...personIdProperties,
	simplifyProperty(
		'Whether to return only the final risk level and score, the override level and each risk factor with its level, instead of the full answer',
	),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['getRisk'] } },
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
			const risk = ((await amlApiRequest.call(
				this,
				{
					method: 'GET',
					path: `/v1/persons/${idSegment(personId)}/risks`,
					answer: { fields: ['finalRisk'] },
				},
				i,
			)) ?? {}) as IDataObject;
			return simplify ? simplifyRisk(personId, risk) : { personId, ...risk };
		},
	});
}

export const readOnly = true;
