import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { amlRequest } from '../../transport';
import { valid, nonEmptyRule, type ItemValidator } from '../../validation';
import {
	alertIdProperties,
	readAlertId,
	explainStatusNotFound,
	optionalText,
	STATUS_CODE_HINT,
} from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	{
		displayName: 'Alert Type',
		name: 'alertType',
		type: 'options',
		required: true,
		options: [
			{
				name: 'Bridge',
				value: 'BRIDGE',
				description:
					"An alert the AML web UI lists as a bridge alert (the service's fourth alert type; pick it only for such an ID)",
			},
			{
				name: 'Manual',
				value: 'MANUAL',
				description: 'An alert created by hand or with Create Manual Alert',
			},
			{
				name: 'Monitoring',
				value: 'MONITORING',
				description: 'An alert raised by a monitoring scenario',
			},
			{
				name: 'Screening',
				value: 'SCREENING',
				description: 'An alert raised by a screening list match',
			},
		],
		default: 'MONITORING',
		description: 'Kind of alert whose status is changed',
	},
	...alertIdProperties(0, {
		description:
			'Numeric ID of the alert (whole number, 0 or more) as shown in the AML web UI or in an alert webhook',
	}),
	{
		displayName: 'Status Code',
		name: 'status',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. CLOSED AS FALSE POSITIVE',
		description: 'The new status code, written exactly as configured in the AML web UI',
		hint: STATUS_CODE_HINT,
	},
	{
		displayName: 'Note',
		name: 'note',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		placeholder: 'e.g. Reviewed: name match is a different person (date of birth differs)',
		description: 'Optional note stored with the status change. Leave empty to not send a note.',
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['alert'], operation: ['updateStatus'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const body: IDataObject = {
				alertType: itemParameter(this, 'alertType', i) as string,
				alertId: readAlertId(this, i, 0),
				status: valid<string>(
					this,
					i,
					'Status Code',
					itemParameter(this, 'status', i, ''),
					nonEmptyRule,
				).trim(),
			};
			const note = optionalText(this, i, 'Note', itemParameter(this, 'note', i, ''));
			if (note !== undefined) body.note = note;
			return body;
		},
		key: (body) => `${String(body.alertType)} ${String(body.alertId)}`,
		send: async (body, i) => {
			try {
				// Not repeated after a lost answer: every status change is a new status entry, note and webhook event.
				await amlRequest.call(
					this,
					{
						method: 'PUT',
						path: '/v1/alerts/status',
						body,
						retry: 'none',
						checkHint: "the alert's current status and status history in the AML web UI",
					},
					i,
				);
			} catch (error) {
				throw explainStatusNotFound(
					error,
					`${String(body.alertType)} alert ${String(body.alertId)}`,
					String(body.status),
				);
			}
			return { ...body, updated: true };
		},
	});
}
