import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as createManualAlert from './createManualAlert.operation';
import * as getMonitoringAlert from './getMonitoringAlert.operation';
import * as getScreeningHits from './getScreeningHits.operation';
import * as updateManualAlert from './updateManualAlert.operation';
import * as updateStatus from './updateStatus.operation';

export const operations: Record<string, OperationModule> = {
	createManualAlert,
	getMonitoringAlert,
	getScreeningHits,
	updateManualAlert,
	updateStatus,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['alert'] } },
		options: [
			{
				name: 'Create Manual Alert',
				value: 'createManualAlert',
				description:
					'Raise an alert by hand about a person or one of their transactions (needs credentials created after 16 May 2023)',
				action: 'Create manual alert',
			},
			{
				name: 'Get Monitoring Alert',
				value: 'getMonitoringAlert',
				description:
					'Get a monitoring alert with its person, transaction, scenario results, notes and status history',
				action: 'Get monitoring alert',
			},
			{
				name: 'Get Screening Alert Hits',
				value: 'getScreeningHits',
				description:
					'Get the list records (hits) that matched in a screening alert, one item per hit',
				action: 'Get screening alert hits',
			},
			{
				name: 'Update Manual Alert',
				value: 'updateManualAlert',
				description:
					'Replace the rationale of a manual alert and optionally set its status (needs credentials created after 16 May 2023)',
				action: 'Update manual alert',
			},
			{
				name: 'Update Status',
				value: 'updateStatus',
				description:
					'Set the status code of a monitoring, screening, bridge or manual alert (needs credentials created after 16 May 2023)',
				action: 'Update alert status',
			},
		],
		default: 'getMonitoringAlert',
	},
	...createManualAlert.description,
	...getMonitoringAlert.description,
	...getScreeningHits.description,
	...updateManualAlert.description,
	...updateStatus.description,
];
