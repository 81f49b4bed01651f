import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { simplifyChosen, toolOutputProperties } from '../../helpers/toolOutput';
import { pagingProperties, readAllPages } from '../../helpers/listParameters';
import { amlApiRequest, idSegment, PAGE_ANSWER, type Paged } from '../../transport';
import {
	alertIdProperty,
	validAlertId,
	simplifyHit,
	simplifyProperty,
	hitToolOutput,
} from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	alertIdProperty(1, {
		displayName: 'Screening Alert ID',
		name: 'screeningAlertId',
		description:
			'Numeric ID of the screening alert (whole number, 1 or more), e.g. the "alertId" of a screening check match or of a SCREENING_ALERT_CREATED webhook',
	}),
	...pagingProperties,
	{
		...simplifyProperty,
		description:
			'Whether to return only ID, matched name, list name, list type and score of each hit instead of the full list record',
	},
	...toolOutputProperties(hitToolOutput),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['alert'], operation: ['getScreeningHits'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({
			alertId: validAlertId(
				this,
				i,
				'Screening Alert ID',
				itemParameter(this, 'screeningAlertId', i),
				1,
			),
			simplify: simplifyChosen(this, i, true),
		}),
		send: async ({ alertId, simplify }, i) => {
			// Hits are not a search: the 10,000-result cap does not apply.
			const hits = await readAllPages(
				this,
				i,
				async (page, size) => {
					return (await amlApiRequest.call(
						this,
						{
							method: 'GET',
							answer: PAGE_ANSWER,
							path: `/v1/screening-alerts/${idSegment(alertId)}/hits`,
							qs: { page, size },
						},
						i,
					)) as Paged<IDataObject>;
				},
				{ cap: Infinity },
			);
			return simplify ? hits.map(simplifyHit) : hits;
		},
	});
}

export const readOnly = true;

export const toolOutput = hitToolOutput;
