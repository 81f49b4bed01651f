import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { customListIdProperties, fetchUsableFields, readListId, recordOptions } from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [...customListIdProperties, recordOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['getUsableFields'] } },
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
			const fields = await fetchUsableFields.call(this, customListId, i);
			return fields.map((field) => ({ customListId, ...field }));
		},
	});
}

export const readOnly = true;
