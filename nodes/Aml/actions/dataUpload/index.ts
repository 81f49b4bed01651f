import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as getStatus from './getStatus.operation';
import * as upload from './upload.operation';

export const operations: Record<string, OperationModule> = { getStatus, upload };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['dataUpload'] } },
		options: [
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the processing status of a CSV upload',
				action: 'Get upload status',
			},
			{
				name: 'Upload CSV',
				value: 'upload',
				description: 'Upload persons or transactions in bulk from a CSV file',
				action: 'Upload CSV file',
			},
		],
		default: 'upload',
	},
	...upload.description,
	...getStatus.description,
];
