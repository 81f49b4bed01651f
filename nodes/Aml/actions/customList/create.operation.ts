import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { amlRequest } from '../../transport';
import { readRecordWrite, recordWriteProperties, recordsPath } from './shared';

const properties: INodeProperties[] = recordWriteProperties({
	name: 'createNotice',
	text: 'Fails with "Already exists" (HTTP 422) when the list already has an active record with this ID. Use Upsert Record to create or update.',
});

export const description = updateDisplayOptions({ show: { resource: ['customList'], operation: ['create'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, {
		prepare: (i) => readRecordWrite(this, i),
		send: async ({ customListId, id, attributes }, i) => {
			const response = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: recordsPath(customListId),
					body: { id, attributes },
					retry: 'create',
				},
				i,
			);
			const body = response.body && typeof response.body === 'object' ? (response.body as IDataObject) : { id, attributes };
			return { customListId, ...body };
		},
	});
}
