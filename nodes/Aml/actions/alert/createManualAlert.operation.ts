import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { amlApiRequest } from '../../transport';
import { validId, type ItemValidator } from '../../validation';
import { answerOrSent } from '../../helpers/answers';
import {
	MAX_RATIONALE_COMMENT,
	optionalText,
	rationaleCommentProperty,
	rationaleProperty,
} from './shared';
import { itemId, itemParameter } from '../../helpers/itemParameter';
import { locatorProperty, personIdLocator, personIdProperty } from '../../helpers/locators';

const properties: INodeProperties[] = [
	locatorProperty(
		{
			...personIdProperty,
			description: 'External, case-sensitive ID of the person the alert is about',
		},
		personIdLocator,
	),
	{
		displayName: 'Transaction ID',
		name: 'transactionId',
		type: 'string',
		default: '',
		placeholder: 'e.g. tx-2024-000815',
		description:
			'External ID of the transaction the alert is about, if any. Leave empty for an alert about the person only.',
	},
	rationaleProperty,
	rationaleCommentProperty,
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['alert'], operation: ['createManualAlert'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const body: IDataObject = {
				personId: itemId(this, 'personId', i, 'Person ID'),
				rationale: itemParameter(this, 'rationale', i) as string,
			};
			const transactionId = itemParameter(this, 'transactionId', i, '') as string;
			if (typeof transactionId === 'string' ? transactionId.trim() !== '' : transactionId) {
				body.transactionId = validId(this, i, 'Transaction ID', transactionId);
			}
			const comment = optionalText(
				this,
				i,
				'Rationale Comment',
				itemParameter(this, 'rationaleComment', i, ''),
				MAX_RATIONALE_COMMENT,
			);
			if (comment !== undefined) body.rationaleComment = comment;
			return body;
		},
		send: async (body, i) => {
			const answer = await amlApiRequest.call(
				this,
				{
					method: 'POST',
					path: '/v1/manual-alerts',
					body,
					retry: 'none',
					checkHint: `the manual alerts of person ${String(body.personId)} in the AML web UI`,
				},
				i,
			);
			return answerOrSent(answer, { ...body, created: true });
		},
	});
}
