import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as addNote from './addNote.operation';
import * as create from './create.operation';
import * as deletePerson from './delete.operation';
import * as get from './get.operation';
import * as getRisk from './getRisk.operation';
import * as getStatusHistory from './getStatusHistory.operation';
import * as hasUnresolvedAlerts from './hasUnresolvedAlerts.operation';
import * as runMonitoringCheck from './runMonitoringCheck.operation';
import * as runScreeningCheck from './runScreeningCheck.operation';
import * as search from './search.operation';
import * as setStatus from './setStatus.operation';
import * as replace from './replace.operation';
import * as update from './update.operation';

export const operations: Record<string, OperationModule> = {
	addNote,
	create,
	delete: deletePerson,
	get,
	getRisk,
	getStatusHistory,
	hasUnresolvedAlerts,
	replace,
	runMonitoringCheck,
	runScreeningCheck,
	search,
	setStatus,
	update,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['person'] } },
		options: [
			{
				name: 'Add Note',
				value: 'addNote',
				description: 'Add a note to a person',
				action: 'Add note to person',
			},
			{
				name: 'Check for Unresolved Alerts',
				value: 'hasUnresolvedAlerts',
				description:
					'Whether a person has open alerts (decision block when it has). The service marks this endpoint deprecated in favour of decision rules.',
				action: 'Check person for unresolved alerts',
			},
			{
				name: 'Create',
				value: 'create',
				description: 'Store a new person (customer or counterparty) with type and attributes',
				action: 'Create person',
			},
			{
				name: 'Delete',
				value: 'delete',
				description:
					'Queue a person for deletion (asynchronous; must be enabled for your organisation)',
				action: 'Delete person',
			},
			{ name: 'Get', value: 'get', description: 'Get a person by ID', action: 'Get person' },
			{
				name: 'Get Risk',
				value: 'getRisk',
				description: 'Get the final risk level, score and risk factors of a person',
				action: 'Get risk of person',
			},
			{
				name: 'Get Status History',
				value: 'getStatusHistory',
				description: 'Get the past statuses of a person with start and end times',
				action: 'Get status history of person',
			},
			{
				name: 'Replace',
				value: 'replace',
				description:
					'Replace the type and all attributes of a person; attributes not given are removed',
				action: 'Replace person',
			},
			{
				name: 'Run Monitoring Check',
				value: 'runMonitoringCheck',
				description: 'Run the real-time (online) monitoring scenarios on a person',
				action: 'Run monitoring check on person',
			},
			{
				name: 'Run Screening Check',
				value: 'runScreeningCheck',
				description: 'Screen a person against sanctions, PEP, adverse-media and custom lists',
				action: 'Run screening check on person',
			},
			{
				name: 'Search',
				value: 'search',
				description: 'Find persons of a category by up to 5 attribute filters',
				action: 'Search persons',
			},
			{
				name: 'Set Status or Category',
				value: 'setStatus',
				description:
					'Set status, category or snoozes of a person, which Update and Replace cannot change (through the v1 update, which the service marks deprecated)',
				action: 'Set status or category of person',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Add or change only the given attributes of a person; all others stay',
				action: 'Update person',
			},
		],
		default: 'create',
	},
	...addNote.description,
	...create.description,
	...deletePerson.description,
	...get.description,
	...getRisk.description,
	...getStatusHistory.description,
	...hasUnresolvedAlerts.description,
	...replace.description,
	...runMonitoringCheck.description,
	...runScreeningCheck.description,
	...search.description,
	...setStatus.description,
	...update.description,
];
