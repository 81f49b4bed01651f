import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as create from './create.operation';
import * as gate from './gate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as hasUnresolvedAlerts from './hasUnresolvedAlerts.operation';
import * as runMonitoringCheck from './runMonitoringCheck.operation';
import * as runScreeningCheck from './runScreeningCheck.operation';
import * as update from './update.operation';

export const operations: Record<string, OperationModule> = {
	create,
	gate,
	get,
	getAll,
	hasUnresolvedAlerts,
	runMonitoringCheck,
	runScreeningCheck,
	update,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['transaction'] } },
		options: [
			{
				name: 'Check for Unresolved Alerts',
				value: 'hasUnresolvedAlerts',
				description:
					'Whether a transaction has open alerts (decision block when it has). The service marks this endpoint deprecated in favour of decision rules.',
				action: 'Check transaction for unresolved alerts',
			},
			{
				name: 'Create',
				value: 'create',
				description:
					'Store a transaction of a person (amount, type, direction, timestamp and more)',
				action: 'Create transaction',
			},
			{
				name: 'Gate',
				value: 'gate',
				description:
					'Store a transaction, run the monitoring and screening checks side by side and route it to Clear (stored, nothing found) or Block',
				action: 'Gate transaction',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a transaction of a person by ID',
				action: 'Get transaction',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the transactions of a person',
				action: 'Get many transactions',
			},
			{
				name: 'Run Monitoring Check',
				value: 'runMonitoringCheck',
				description:
					'Run real-time monitoring scenarios on a transaction and route it to Clear or Block',
				action: 'Run monitoring check on transaction',
			},
			{
				name: 'Run Screening Check',
				value: 'runScreeningCheck',
				description: 'Screen a transaction against screening lists and route it to Clear or Block',
				action: 'Run screening check on transaction',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Add new attributes to a transaction or change its status',
				action: 'Update transaction',
			},
		],
		default: 'create',
	},
	...create.description,
	...gate.description,
	...get.description,
	...getAll.description,
	...hasUnresolvedAlerts.description,
	...runMonitoringCheck.description,
	...runScreeningCheck.description,
	...update.description,
];
