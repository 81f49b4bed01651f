import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { amlRequest, bodyMessage, quoteServiceText } from '../../transport';
import {
	customListIdProperties,
	readListId,
	readRecordId,
	recordIdProperty,
	customListRecordKey,
	recordsPath,
} from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	...customListIdProperties,
	recordIdProperty,
	optionsCollection([
		{
			displayName: 'Ignore Already Archived',
			name: 'ignoreArchived',
			type: 'boolean',
			default: false,
			description:
				'Whether a record that is already archived counts as success (output "alreadyArchived": true) instead of failing with a conflict (HTTP 409)',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['archive'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({
			customListId: readListId(this, i),
			id: readRecordId(this, i),
			ignoreArchived: itemParameter(this, 'options.ignoreArchived', i, false) as boolean,
		}),
		key: customListRecordKey,
		send: async ({ customListId, id, ignoreArchived }, i) => {
			const response = await amlRequest.call(
				this,
				{
					method: 'DELETE',
					path: recordsPath(customListId, id),
					passStatuses: ignoreArchived ? [409] : [],
					// A repeat after a lost answer that finds the record archived: the lost attempt archived it.
					doneOnRepeat: [409],
				},
				i,
			);
			if (response.afterLostAnswer && response.status === 409)
				return { customListId, id, archived: true, afterLostAnswer: true };
			if (response.status === 409)
				return {
					customListId,
					id,
					archived: true,
					alreadyArchived: true,
					serviceMessage: quoteServiceText(bodyMessage(response.body)),
				};
			return { customListId, id, archived: true };
		},
	});
}
