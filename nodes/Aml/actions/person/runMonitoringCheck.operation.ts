import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkFailures, checkListOrThrow, decisionFields } from '../../helpers/checks';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { runsAsTool } from '../outputs';
import { amlRequest, idSegment } from '../../transport';
import { personIdProperties, readPersonId } from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	...personIdProperties,
	{
		displayName: 'All Results',
		name: 'allResults',
		type: 'boolean',
		default: false,
		description:
			'Whether to return every triggered scenario regardless of its score. Off: only results that created an alert.',
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['runMonitoringCheck'] } },
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
			allResults: itemParameter(this, 'allResults', i, false) as boolean,
		}),
		key: ({ personId }) => personId,
		send: async ({ personId, allResults }, i) => {
			const response = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: `/v1/persons/${idSegment(personId)}/monitoring-checks`,
					qs: { 'all-results': allResults },
					retry: 'check',
				},
				i,
			);
			const outcome = checkListOrThrow(this, response.body, 'results', i);
			const { list: results, alertIds } = outcome;
			return {
				personId,
				...decisionFields(outcome),
				alertCreated: alertIds.length > 0,
				alertIds,
				results,
			};
		},
		...checkFailures<{ personId: string }>({
			idKey: 'personId',
			idOf: ({ personId }) => personId,
			listKey: 'results',
			asTool: runsAsTool(this),
		}),
	});
}

/** Its items carry `decision`. */
export const decides = true;
