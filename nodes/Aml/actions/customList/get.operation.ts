import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { amlApiRequest } from '../../transport';
import {
	customListIdProperties,
	readListId,
	readRecordId,
	recordIdProperty,
	recordOptions,
	recordsPath,
} from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [...customListIdProperties, recordIdProperty, recordOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['get'] } },
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
		}),
		send: async ({ customListId, id }, i) => {
			const record = (await amlApiRequest.call(
				this,
				{ method: 'GET', path: recordsPath(customListId, id), answer: { fields: ['id'] } },
				i,
			)) as IDataObject;
			return { customListId, ...(record ?? { id }) };
		},
	});
}

export const readOnly = true;
