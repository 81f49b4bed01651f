import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as create from './create.operation';
import * as get from './get.operation';

export const operations: Record<string, OperationModule> = { create, get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['person'] } },
		options: [
			{ name: 'Create', value: 'create', description: 'Create a person (v2)', action: 'Create a person' },
			{ name: 'Get', value: 'get', description: 'Get a person by ID', action: 'Get a person' },
		],
		default: 'create',
	},
	...create.description,
	...get.description,
];
