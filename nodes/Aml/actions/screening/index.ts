import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as getListGroups from './getListGroups.operation';
import * as search from './search.operation';

export const operations: Record<string, OperationModule> = { getListGroups, search };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['screening'] } },
		options: [
			{
				name: 'Get List Groups',
				value: 'getListGroups',
				description:
					'Get the active screening list groups of your organisation, one item per group (selectors for Search)',
				action: 'Get screening list groups',
			},
			{
				name: 'Search',
				value: 'search',
				description:
					'Check a name against sanctions, PEP, adverse media and custom lists without storing anything or creating an alert',
				action: 'Search name in screening lists',
			},
		],
		default: 'search',
	},
	...getListGroups.description,
	...search.description,
];
