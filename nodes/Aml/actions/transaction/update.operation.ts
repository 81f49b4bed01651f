import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	attributeProperties,
	readAttributes,
	withoutGateRecordKeys,
} from '../../helpers/attributes';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlApiRequest, idSegment } from '../../transport';
import { invalid, type ItemValidator } from '../../validation';
import { answerOrSent } from '../../helpers/answers';
import {
	readOwnerId,
	readTransactionId,
	TRANSACTION_ATTRIBUTES,
	transactionIdProperty,
	transactionPersonIdProperties,
} from './shared';

const properties: INodeProperties[] = [
	...transactionPersonIdProperties,
	transactionIdProperty,
	...attributeProperties({
		known: TRANSACTION_ATTRIBUTES,
		reservedInputFields: ['id', 'personId', 'transactionId'],
		hint: 'Only new attribute keys and "status" are applied: the service ignores other keys without an error',
	}),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['update'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const personId = readOwnerId(this, i);
			const id = readTransactionId(this, i);
			const attributes = withoutGateRecordKeys(this, i, readAttributes(this, i));
			if (Object.keys(attributes).length === 0) {
				throw invalid(
					this,
					i,
					'Attributes',
					attributes,
					'must contain at least one new attribute or "status"',
				);
			}
			return { personId, id, attributes };
		},
		key: ({ id }) => id,
		send: async ({ personId, id, attributes }, i) => {
			// Adding the same keys again or setting the same status gives the same result: safe to repeat.
			const answer = await amlApiRequest.call(
				this,
				{
					method: 'PATCH',
					path: `/v1/persons/${idSegment(personId)}/transactions/${idSegment(id)}`,
					body: { id, attributes },
					retry: 'safe',
				},
				i,
			);
			return answerOrSent(answer, { id, personId, attributes });
		},
	});
}
