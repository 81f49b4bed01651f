import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../helpers/descriptions';
import { lostAnswerFields } from '../../helpers/answers';
import { runItems } from '../../helpers/items';
import { amlRequest, idSegment } from '../../transport';
import { personIdProperties, readPersonId } from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	{
		displayName:
			'The person is queued for deletion and may still be returned for a short while. Needs deletion enabled for your organisation.',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
	...personIdProperties,
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => readPersonId(this, i),
		key: (id) => id,
		send: async (id, i) => {
			// A repeat after a lost answer that finds the person gone (404): the lost attempt deleted it.
			const response = await amlRequest.call(
				this,
				{
					method: 'DELETE',
					path: `/v2/persons/${idSegment(id)}`,
					retry: 'safe',
					doneOnRepeat: [404],
				},
				i,
			);
			// n8n's `deleted: true`, and what the service did (it deletes asynchronously: queued).
			return {
				id,
				deleted: true,
				deletion: 'queued',
				...lostAnswerFields(response),
			};
		},
	});
}
