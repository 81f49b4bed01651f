import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
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
	upsertRecord,
} from './shared';

const properties: INodeProperties[] = [
	customListIdProperty,
	recordIdProperty,
	...recordAttributeProperties(),
	{
		displayName:
			'Creates the record, or replaces all its attributes when the list already has a record with this ID. The output field "result" says which happened.',
		name: 'upsertNotice',
		type: 'notice',
		default: '',
	},
	recordOptions,
];

export const description = updateDisplayOptions({ show: { resource: ['customList'], operation: ['upsert'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, {
		prepare: (i) => ({
			customListId: readListId(this, i),
			id: readRecordId(this, i),
			attributes: readRecordAttributes(this, i),
		}),
		send: async ({ customListId, id, attributes }, i) => {
			const { result, body } = await upsertRecord(this, customListId, id, attributes, i);
			return {
				customListId,
				...(body ?? { id, attributes }),
				result,
			} as IDataObject;
		},
	});
}
