import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../helpers/descriptions';
import { toolOutputProperties } from '../../helpers/toolOutput';
import { transactionToolOutput } from './get.operation';
import { runItems } from '../../helpers/items';
import {
	pagingProperties,
	readAllPages,
	sortDirectionProperty,
} from '../../helpers/listParameters';
import { amlApiRequest, idSegment, PAGE_ANSWER, type Paged } from '../../transport';
import { valid, lengthRule, type ItemValidator } from '../../validation';
import { readOwnerId, transactionPersonIdProperties } from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const MAX_TEXT = 200;

const optionalText = (value: unknown) =>
	value === '' || value === undefined ? undefined : lengthRule(value, 1, MAX_TEXT);

const properties: INodeProperties[] = [
	...transactionPersonIdProperties,
	...pagingProperties,
	...toolOutputProperties(transactionToolOutput),
	optionsCollection([
		{
			displayName: 'Search Text',
			name: 'query',
			type: 'string',
			default: '',
			placeholder: 'e.g. wire_transfer',
			description: `Only transactions matching this text (1 to ${MAX_TEXT} characters). Leave empty for all.`,
		},
		{
			displayName: 'Order By',
			name: 'orderBy',
			type: 'string',
			default: '',
			placeholder: 'e.g. timestamp',
			description: `Attribute to sort by, e.g. timestamp or amount (1 to ${MAX_TEXT} characters)`,
		},
		sortDirectionProperty,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['getAll'] } },
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
			const qs: IDataObject = {};
			const query = valid<string>(
				this,
				i,
				'Search Text',
				itemParameter(this, 'options.query', i, ''),
				optionalText,
			);
			if (query) qs.query = query;
			const orderBy = valid<string>(
				this,
				i,
				'Order By',
				itemParameter(this, 'options.orderBy', i, ''),
				optionalText,
			);
			if (orderBy) {
				qs.orderBy = orderBy;
				qs.direction = itemParameter(this, 'options.direction', i, 'ASC') as string;
			}
			return { personId, qs };
		},
		send: async ({ personId, qs }, i) => {
			return await readAllPages(this, i, async (page, size) => {
				return (await amlApiRequest.call(
					this,
					{
						method: 'GET',
						answer: PAGE_ANSWER,
						path: `/v1/persons/${idSegment(personId)}/transactions`,
						qs: { ...qs, page, size },
					},
					i,
				)) as Paged<IDataObject>;
			});
		},
	});
}

export const readOnly = true;

export const toolOutput = transactionToolOutput;
