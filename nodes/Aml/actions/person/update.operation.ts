import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { attributeProperties, readAttributes } from '../../helpers/attributes';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlRequest, idSegment } from '../../transport';
import { invalid, type ItemValidator } from '../../validation';
import { PERSON_ATTRIBUTES, personIdProperties, personTypeProperty, readPersonId } from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	...personIdProperties,
	{
		...personTypeProperty,
		required: false,
		options: [{ name: 'Keep Current Type', value: '' }, ...(personTypeProperty.options ?? [])],
		default: '',
		description: 'New type of the person, or keep the stored one',
	},
	...attributeProperties({
		known: PERSON_ATTRIBUTES,
		reservedInputFields: ['id', 'type'],
		hint: 'Only the attributes given are added or changed; all others stay. Array items are matched by their "id" key.',
	}),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['update'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const id = readPersonId(this, i);
			const type = itemParameter(this, 'personType', i, '') as string;
			const attributes = readAttributes(this, i);
			if (!type && Object.keys(attributes).length === 0) {
				throw invalid(
					this,
					i,
					'Attributes',
					attributes,
					'must name at least one attribute to add or change (or choose a new type)',
				);
			}
			const body: IDataObject = { attributes };
			if (type) body.type = type;
			return { id, body };
		},
		key: ({ id }) => id,
		send: async ({ id, body }, i) => {
			// Setting the same attributes again gives the same stored person: safe to repeat.
			await amlRequest.call(
				this,
				{ method: 'PATCH', path: `/v2/persons/${idSegment(id)}`, body, retry: 'safe' },
				i,
			);
			return { id, ...body, result: 'updated' };
		},
	});
}
