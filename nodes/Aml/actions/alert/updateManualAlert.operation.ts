import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { amlApiRequest, idSegment } from '../../transport';
import { invalid, type ItemValidator } from '../../validation';
import { answerOrSent } from '../../helpers/answers';
import {
	alertIdProperties,
	readAlertId,
	explainStatusNotFound,
	MAX_RATIONALE_COMMENT,
	optionalText,
	rationaleCommentProperty,
	rationaleProperty,
	STATUS_CODE_HINT,
} from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	...alertIdProperties(1, {
		description:
			'Numeric ID of the manual alert (whole number, 1 or more), as returned by Create Manual Alert',
	}),
	{
		...rationaleProperty,
		// No preset: the service replaces the stored rationale with whatever is sent, so it is the user's choice.
		default: '',
		description:
			"The alert's rationale after the update (the service requires one on every update and replaces the stored one)",
	},
	rationaleCommentProperty,
	{
		displayName: 'Status Code',
		name: 'status',
		type: 'string',
		default: '',
		placeholder: 'e.g. CLOSED',
		description: 'New status code of the alert. Leave empty to keep the current status.',
		hint: STATUS_CODE_HINT,
	},
	{
		displayName: 'Note',
		name: 'note',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		placeholder: 'e.g. Closed after review with the compliance officer',
		description:
			'Note stored with the status change. Only allowed together with a status code: the service uses notes only when the status changes.',
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['alert'], operation: ['updateManualAlert'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const alertId = readAlertId(this, i, 1);
			const rationale = itemParameter(this, 'rationale', i, '') as string;
			if (!rationale) {
				throw invalid(
					this,
					i,
					'Rationale',
					rationale,
					"must be chosen: the service replaces the stored rationale on every update (choose the alert's current one to keep it)",
				);
			}
			const body: IDataObject = { rationale };
			const comment = optionalText(
				this,
				i,
				'Rationale Comment',
				itemParameter(this, 'rationaleComment', i, ''),
				MAX_RATIONALE_COMMENT,
			);
			if (comment !== undefined) body.rationaleComment = comment;
			const status = optionalText(this, i, 'Status Code', itemParameter(this, 'status', i, ''));
			const note = optionalText(this, i, 'Note', itemParameter(this, 'note', i, ''));
			if (note !== undefined && status === undefined) {
				throw invalid(
					this,
					i,
					'Note',
					note,
					'is only used together with a status change: also fill in "Status Code", or leave "Note" empty',
				);
			}
			if (status !== undefined) body.status = status.trim();
			if (note !== undefined) body.note = note;
			return { alertId, body };
		},
		key: ({ alertId }) => String(alertId),
		send: async ({ alertId, body }, i) => {
			try {
				// Not repeated after a lost answer: a status change makes a status entry, a note and a webhook event.
				const answer = await amlApiRequest.call(
					this,
					{
						method: 'PUT',
						path: `/v1/manual-alerts/${idSegment(alertId)}`,
						body,
						retry: 'none',
						checkHint: `manual alert ${alertId} in the AML web UI`,
					},
					i,
				);
				return answerOrSent(answer, { id: alertId, ...body, updated: true });
			} catch (error) {
				throw explainStatusNotFound(
					error,
					`manual alert ${alertId}`,
					body.status as string | undefined,
				);
			}
		},
	});
}
