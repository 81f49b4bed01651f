import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { attributeProperties, readAttributes } from '../../helpers/attributes';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlRequest, idSegment } from '../../transport';
import { PERSON_ATTRIBUTES, personIdProperties, personTypeProperty, readPersonId } from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	{
		displayName: 'Attributes left out are removed. To change only some attributes, use Update.',
		name: 'replaceNotice',
		type: 'notice',
		default: '',
	},
	...personIdProperties,
	personTypeProperty,
	...attributeProperties({ known: PERSON_ATTRIBUTES, reservedInputFields: ['id', 'type'] }),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['replace'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({
			id: readPersonId(this, i),
			type: itemParameter(this, 'personType', i) as string,
			attributes: readAttributes(this, i),
		}),
		key: ({ id }) => id,
		send: async ({ id, type, attributes }, i) => {
			// PUT replaces: repeating it after a lost answer stores the same result.
			await amlRequest.call(
				this,
				{
					method: 'PUT',
					path: `/v2/persons/${idSegment(id)}`,
					body: { type, attributes },
					retry: 'safe',
				},
				i,
			);
			return { id, type, attributes, result: 'replaced' };
		},
	});
}
