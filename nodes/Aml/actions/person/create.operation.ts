import { personIdProperty } from '../../helpers/locators';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { attributeProperties, readAttributes } from '../../helpers/attributes';
import { lostAnswerFields } from '../../helpers/answers';
import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { amlRequest, idSegment } from '../../transport';
import type { ItemValidator } from '../../validation';
import { PERSON_ATTRIBUTES, personTypeProperty, readPersonId } from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	personIdProperty,
	personTypeProperty,
	...attributeProperties({ known: PERSON_ATTRIBUTES, reservedInputFields: ['id', 'type'] }),
	{
		displayName: 'If Person Already Exists',
		name: 'onExisting',
		type: 'options',
		options: [
			{ name: 'Error', value: 'error', description: 'Fail the item (the service answers 422)' },
			{
				name: 'Skip',
				value: 'skip',
				description: 'Leave the stored person unchanged and output it as skipped',
			},
			{
				name: 'Replace',
				value: 'replace',
				description: 'Replace type and all attributes with the given ones',
			},
			{ name: 'Merge', value: 'merge', description: 'Add or update only the given attributes' },
		],
		default: 'error',
		description:
			'What to do when a person with this ID is already stored; useful for idempotent syncs',
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			return {
				id: readPersonId(this, i),
				type: itemParameter(this, 'personType', i) as string,
				attributes: readAttributes(this, i),
				onExisting: itemParameter(this, 'onExisting', i, 'error') as string,
			};
		},
		key: ({ id }) => id,
		send: async ({ id, type, attributes, onExisting }, i) => {
			const created = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: '/v2/persons',
					body: { id, type, attributes },
					retry: 'create',
					passStatuses: onExisting === 'error' ? [] : [422],
				},
				i,
			);
			const sent: IDataObject = { id, type, attributes };
			// "created" only when the create itself answered 2xx. A 422 after a lost answer: stored by the lost attempt
			// or before it; an upsert still sends its update (idempotent), so the person holds what was sent.
			const lost = lostAnswerFields(created);
			if (created.status !== 422) return { ...sent, result: 'created' };
			if (onExisting === 'skip')
				return { ...sent, result: created.afterLostAnswer ? 'exists' : 'skipped', ...lost };
			if (onExisting === 'error') return { ...sent, result: 'exists', ...lost };
			const merge = onExisting === 'merge';
			await amlRequest.call(
				this,
				{
					method: merge ? 'PATCH' : 'PUT',
					path: `/v2/persons/${idSegment(id)}`,
					body: { type, attributes },
				},
				i,
			);
			return { ...sent, result: merge ? 'merged' : 'replaced', ...lost };
		},
	});
}
