import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { pagingProperties, readAllPages } from '../../helpers/listParameters';
import { amlApiRequest, PAGE_ANSWER, type Paged } from '../../transport';
import { customListIdProperties, readListId, recordOptions, recordsPath } from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	...customListIdProperties,
	...pagingProperties,
	recordOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({ customListId: readListId(this, i) }),
		send: async ({ customListId }, i) => {
			// Custom lists have no 10,000-result search cap: every page is reachable.
			const records = await readAllPages(
				this,
				i,
				async (page, size) => {
					return (await amlApiRequest.call(
						this,
						{
							method: 'GET',
							answer: PAGE_ANSWER,
							path: recordsPath(customListId),
							qs: { page, size },
						},
						i,
					)) as Paged<IDataObject>;
				},
				{ cap: Infinity },
			);
			return records.map((record) => ({ customListId, ...record }));
		},
	});
}

export const readOnly = true;
