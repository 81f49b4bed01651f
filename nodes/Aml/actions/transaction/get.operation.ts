import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../helpers/descriptions';
import { toolOutputProperties, type ToolOutput } from '../../helpers/toolOutput';
import { runItems } from '../../helpers/items';
import { amlApiRequest, idSegment } from '../../transport';
import {
	readOwnerId,
	readTransactionId,
	transactionIdProperty,
	transactionPersonIdProperties,
} from './shared';
import type { ItemValidator } from '../../validation';

/** Output in tool use of a transaction (Get, Get Many): 4 fields and the attributes. */
export const transactionToolOutput: ToolOutput = {
	id: 'id',
	fields: [
		'personId',
		'createdTime',
		'attributes',
		...[
			'amount',
			'type',
			'direction',
			'timestamp',
			'status',
			'reference',
			'sender_name',
			'sender_account',
			'receiver_name',
			'receiver_account',
		].map((key) => `attributes.${key}`),
	],
	simplify: (transaction) => {
		const attributes = (transaction.attributes ?? {}) as IDataObject;
		return {
			id: transaction.id,
			personId: transaction.personId ?? null,
			amount: attributes.amount ?? null,
			type: attributes.type ?? null,
			direction: attributes.direction ?? null,
			timestamp: attributes.timestamp ?? null,
			createdTime: transaction.createdTime ?? null,
		};
	},
};

const properties: INodeProperties[] = [
	...transactionPersonIdProperties,
	transactionIdProperty,
	...toolOutputProperties(transactionToolOutput),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({ personId: readOwnerId(this, i), id: readTransactionId(this, i) }),
		send: async ({ personId, id }, i) => {
			return (await amlApiRequest.call(
				this,
				{
					method: 'GET',
					path: `/v1/persons/${idSegment(personId)}/transactions/${idSegment(id)}`,
					answer: { fields: ['id'] },
				},
				i,
			)) as IDataObject;
		},
	});
}

export const readOnly = true;

export const toolOutput = transactionToolOutput;
