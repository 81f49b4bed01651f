import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { lostAnswerFields } from '../../helpers/answers';
import { runItems } from '../../helpers/items';
import {
	readRecordWrite,
	customListRecordKey,
	recordWriteProperties,
	replaceNotice,
	upsertRecord,
} from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [replaceNotice, ...recordWriteProperties()];

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['upsert'] } },
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
			const upserted = await upsertRecord(this, customListId, id, attributes, i);
			return {
				customListId,
				...(upserted.body ?? { id, attributes }),
				result: upserted.result,
				...lostAnswerFields(upserted),
			} as IDataObject;
		},
	});
}
