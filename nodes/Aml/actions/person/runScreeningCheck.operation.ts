import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkListOrThrow } from '../../helpers/checks';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlApiRequest, idSegment } from '../../transport';
import { personIdProperties, readPersonId } from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [...personIdProperties, optionsCollection()];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['runScreeningCheck'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => readPersonId(this, i),
		send: async (personId, i) => {
			const answer = await amlApiRequest.call(
				this,
				{
					method: 'POST',
					path: `/v1/persons/${idSegment(personId)}/screening-checks`,
					retry: 'safe',
				},
				i,
			);
			const { list: matches, alertIds } = checkListOrThrow(this, answer, 'matches', i);
			return { personId, matched: matches.length > 0, alertIds, matches };
		},
	});
}
