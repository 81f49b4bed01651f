import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { parseJson } from '../../helpers/attributes';
import { deprecationNotice, optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlApiRequest, idSegment } from '../../transport';
import { enumRule, valid, invalid, type ItemValidator } from '../../validation';
import {
	categoryOptions,
	PERSON_CATEGORIES,
	PERSON_STATUSES,
	personIdProperties,
	readPersonId,
} from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	deprecationNotice(
		'The only way to set status, category or snoozes: Replace and Update cannot change them. It uses the person update v1, which the service marks deprecated. Attributes are not sent; use Update for them.',
	),
	...personIdProperties,
	{
		displayName: 'Fields to Set',
		name: 'setFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Category',
				name: 'category',
				type: 'options',
				options: categoryOptions,
				default: 'CUSTOMER',
				description: 'Whether the person is one of your customers or a counterparty',
			},
			{
				displayName: 'Scenario Snooze Configurations (JSON)',
				name: 'scenarioSnoozeConfigurations',
				type: 'json',
				default: '[]',
				description:
					'JSON array of scenario snoozes (ApiSnoozeConfiguration objects: scenarioHandle, endTime, amount, totalAmount, note …), replacing the stored ones',
			},
			{
				displayName: 'Snooze Configuration (JSON)',
				name: 'snoozeConfiguration',
				type: 'json',
				default: '{}',
				description:
					'JSON object of the person-wide snooze (ApiSnoozeConfiguration: endTime, amount, totalAmount, note …)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				// Alphabetical by name.
				options: [
					{ name: 'Monitoring', value: 'MONITORING' },
					{ name: 'New', value: 'NEW' },
					{ name: 'Reviewed', value: 'REVIEWED' },
					{ name: 'Suspended', value: 'SUSPENDED' },
					{ name: 'Terminated', value: 'TERMINATED' },
					{ name: 'Terminated and Reported', value: 'TERMINATED_AND_REPORTED' },
				],
				default: 'REVIEWED',
				description: 'New status of the person; the change appears in the status history',
			},
		],
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['setStatus'] } },
	properties,
);

function readJson(
	ctx: IExecuteFunctions,
	i: number,
	field: string,
	raw: unknown,
	shape: 'object' | 'array',
): IDataObject | IDataObject[] {
	const value = typeof raw === 'string' ? parseJson(raw).value : raw;
	const ok =
		shape === 'array'
			? Array.isArray(value)
			: value !== null && typeof value === 'object' && !Array.isArray(value);
	if (!ok)
		throw invalid(
			ctx,
			i,
			field,
			raw,
			shape === 'array' ? 'must be a JSON array of objects' : 'must be a JSON object',
		);
	return value as IDataObject | IDataObject[];
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const id = readPersonId(this, i);
			const fields = (itemParameter(this, 'setFields', i, {}) ?? {}) as IDataObject;
			const body: IDataObject = { id };
			if (fields.status !== undefined)
				body.status = valid<string>(this, i, 'Status', fields.status, (v) =>
					enumRule(v, PERSON_STATUSES),
				);
			if (fields.category !== undefined)
				body.category = valid<string>(this, i, 'Category', fields.category, (v) =>
					enumRule(v, PERSON_CATEGORIES),
				);
			if (fields.snoozeConfiguration !== undefined) {
				body.snoozeConfiguration = readJson(
					this,
					i,
					'Snooze Configuration',
					fields.snoozeConfiguration,
					'object',
				);
			}
			if (fields.scenarioSnoozeConfigurations !== undefined) {
				body.scenarioSnoozeConfigurations = readJson(
					this,
					i,
					'Scenario Snooze Configurations',
					fields.scenarioSnoozeConfigurations,
					'array',
				);
			}
			if (Object.keys(body).length === 1) {
				throw invalid(
					this,
					i,
					'Fields to Set',
					fields,
					'must contain at least one field (Status, Category or a snooze)',
				);
			}
			return { id, body };
		},
		key: ({ id }) => id,
		send: async ({ id, body }, i) => {
			const person = await amlApiRequest.call(
				this,
				{ method: 'PATCH', path: `/v1/persons/${idSegment(id)}`, body, retry: 'safe' },
				i,
			);
			if (person && typeof person === 'object' && Object.keys(person).length > 0)
				return person as IDataObject;
			return { ...body, result: 'updated' };
		},
	});
}
