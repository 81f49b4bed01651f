import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { simplifyChosen, toolOutputProperties } from '../../helpers/toolOutput';
import { amlApiRequest, idSegment } from '../../transport';
import {
	alertIdProperties,
	readAlertId,
	simplifyMonitoringAlert,
	simplifyProperty,
	monitoringAlertToolOutput,
} from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	...alertIdProperties(1, {
		description:
			'Numeric ID of the monitoring alert (whole number, 1 or more), e.g. the "alertId" of a monitoring check result or of an ALERT_CREATED webhook',
	}),
	{
		...simplifyProperty,
		description:
			'Whether to return only ID, status, priority, person ID, transaction ID, scenario results and creation time instead of the full alert (with person, transaction, notes and history)',
	},
	...toolOutputProperties(monitoringAlertToolOutput),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['alert'], operation: ['getMonitoringAlert'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => ({
			alertId: readAlertId(this, i, 1),
			simplify: simplifyChosen(this, i, true),
		}),
		send: async ({ alertId, simplify }, i) => {
			const alert = (await amlApiRequest.call(
				this,
				{ method: 'GET', path: `/v1/alerts/${idSegment(alertId)}`, answer: { fields: ['id'] } },
				i,
			)) as IDataObject;
			return simplify ? simplifyMonitoringAlert(alert) : alert;
		},
	});
}

export const readOnly = true;

export const toolOutput = monitoringAlertToolOutput;
