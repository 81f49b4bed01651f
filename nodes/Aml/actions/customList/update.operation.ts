import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import {
	customListIdProperty,
	readListId,
	readRecordAttributes,
	readRecordId,
	recordAttributeProperties,
	recordIdProperty,
	recordOptions,
	updateRecord,
} from './shared';

const properties: INodeProperties[] = [
	customListIdProperty,
	recordIdProperty,
	...recordAttributeProperties(),
	{
		displayName: 'Replaces all attributes of the record with the ones given here. Archived records cannot be updated.',
		name: 'updateNotice',
		type: 'notice',
		default: '',
	},
	recordOptions,
];

export const description = updateDisplayOptions({ show: { resource: ['customList'], operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, {
		prepare: (i) => ({
			customListId: readListId(this, i),
			id: readRecordId(this, i),
			attributes: readRecordAttributes(this, i),
		}),
		send: async ({ customListId, id, attributes }, i) => {
			const body = await updateRecord(this, customListId, id, attributes, i);
			return { customListId, ...(body ?? { id, attributes }) };
		},
	});
}
