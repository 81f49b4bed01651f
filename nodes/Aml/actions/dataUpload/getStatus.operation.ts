import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { valid, positiveIntegerRule, type ItemValidator } from '../../validation';
import { fetchStatus } from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	{
		displayName: 'Upload ID',
		name: 'uploadId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 42',
		description:
			'The number the service returned for the upload (field "uploadId" of the Upload CSV output)',
		hint: 'success is true only for COMPLETED; FAILED and PARTIALLY_COMPLETED give the reason, a partial one its first ID not saved',
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['dataUpload'], operation: ['getStatus'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const raw = itemParameter(this, 'uploadId', i);
			return Number(
				valid(this, i, 'Upload ID', typeof raw === 'string' ? raw.trim() : raw, (v) =>
					positiveIntegerRule(v, 1),
				),
			);
		},
		// PROCESSING and the other states are answers, not errors: `success` tells COMPLETED apart.
		send: async (uploadId, i) => await fetchStatus(this, uploadId, i),
	});
}

export const readOnly = true;
