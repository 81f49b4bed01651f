import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requestOptions, runItems } from '../../helpers/items';
import { check, positiveIntegerRule } from '../../validation';
import { fetchStatus } from './shared';

const properties: INodeProperties[] = [
	{
		displayName: 'Upload ID',
		name: 'uploadId',
		type: 'string',
		required: true,
		default: '',
		placeholder: '42',
		description: 'ID the service returned when the file was uploaded',
	},
	{ displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options: [...requestOptions] },
];

export const description = updateDisplayOptions({ show: { resource: ['dataUpload'], operation: ['getStatus'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, {
		prepare: (i) => Number(check<string>(this, i, 'Upload ID', String(this.getNodeParameter('uploadId', i)).trim(), (v) => positiveIntegerRule(v, 1))),
		send: async (uploadId, i) => await fetchStatus(this, uploadId, i),
	});
}
