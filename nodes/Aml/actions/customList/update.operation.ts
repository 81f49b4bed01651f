import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import {
	readRecordWrite,
	customListRecordKey,
	recordWriteProperties,
	replaceNotice,
	updateRecord,
} from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [replaceNotice, ...recordWriteProperties()];

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['update'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => readRecordWrite(this, i),
		key: customListRecordKey,
		send: async ({ customListId, id, attributes }, i) => {
			const body = await updateRecord(this, customListId, id, attributes, i);
			return { customListId, ...(body ?? { id, attributes }) };
		},
	});
}
