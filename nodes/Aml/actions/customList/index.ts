import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as archive from './archive.operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getUsableFields from './getUsableFields.operation';
import * as sync from './sync.operation';
import * as update from './update.operation';
import * as upsert from './upsert.operation';

export const operations: Record<string, OperationModule> = {
	archive,
	create,
	get,
	getAll,
	getUsableFields,
	sync,
	update,
	upsert,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customList'] } },
		options: [
			{
				name: 'Archive',
				value: 'archive',
				description: 'Archive a record so it no longer counts as part of the list',
				action: 'Archive custom list record',
			},
			{
				name: 'Create',
				value: 'create',
				description: 'Add a new record to a custom list (fails if an active record has this ID)',
				action: 'Create custom list record',
			},
			{
				name: 'Create or Update',
				value: 'upsert',
				description: 'Create a new record, or update the current one if it already exists (upsert)',
				action: 'Create or update custom list record',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one record of a custom list by its ID',
				action: 'Get custom list record',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the active records of a custom list',
				action: 'Get many custom list records',
			},
			{
				name: 'Get Usable Fields',
				value: 'getUsableFields',
				description: 'List the fields of a custom list that a screening search can match against',
				action: 'Get usable fields of custom list',
			},
			{
				name: 'Replace',
				value: 'update',
				description:
					'Replace all attributes of an active record: attributes not given are removed (the service stores the record as sent)',
				action: 'Replace custom list record',
			},
			{
				name: 'Sync Records',
				value: 'sync',
				description:
					'Make the list equal to the incoming items: create new records, update changed ones, archive the ones missing',
				action: 'Sync custom list records with input items',
			},
		],
		default: 'create',
	},
	...archive.description,
	...create.description,
	...get.description,
	...getAll.description,
	...getUsableFields.description,
	...sync.description,
	...update.description,
	...upsert.description,
];
