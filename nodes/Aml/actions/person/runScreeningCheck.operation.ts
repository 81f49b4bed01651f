import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkFailures, checkListOrThrow, decisionFields } from '../../helpers/checks';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { runsAsTool } from '../outputs';
import { amlRequest, idSegment } from '../../transport';
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
		key: (personId) => personId,
		send: async (personId, i) => {
			const response = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: `/v1/persons/${idSegment(personId)}/screening-checks`,
					retry: 'check',
				},
				i,
			);
			const outcome = checkListOrThrow(this, response.body, 'matches', i);
			const { list: matches, alertIds } = outcome;
			return {
				personId,
				...decisionFields(outcome),
				matched: matches.length > 0,
				alertIds,
				matches,
			};
		},
		...checkFailures<string>({
			idKey: 'personId',
			idOf: (personId) => personId,
			listKey: 'matches',
			asTool: runsAsTool(this),
		}),
	});
}

/** Its items carry `decision`. */
export const decides = true;
