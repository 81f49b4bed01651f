import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { answerOrSent } from '../../helpers/answers';
import { amlRequest, idSegment } from '../../transport';
import {
	valid,
	dateTimeRule,
	nonEmptyRule,
	numericIdRule,
	type ItemValidator,
} from '../../validation';
import { personIdProperties, readPersonId } from './shared';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	...personIdProperties,
	{
		displayName: 'Content',
		name: 'content',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder:
			'e.g. Called the customer: the large deposit is the proceeds of a house sale (contract on file)',
		description: 'Text of the note, shown on the person in the AML web UI',
	},
	optionsCollection([
		{
			displayName: 'Note ID',
			name: 'noteId',
			type: 'string',
			default: '',
			placeholder: 'e.g. 2024050101',
			description:
				'Your own numeric ID for the note (whole number from 1 to 9007199254740991). With an ID the node can safely repeat the request after a timeout; without it, a timed-out note is not re-sent, to avoid a duplicate.',
		},
		{
			displayName: 'Created Time',
			name: 'createdTime',
			type: 'string',
			default: '',
			placeholder: 'e.g. 2024-05-01T12:30:00Z',
			description:
				'When the note was written, as an ISO-8601 date and time (at most 6 fractional-second digits). Leave empty for now.',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['addNote'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const personId = readPersonId(this, i);
			const content = valid<string>(
				this,
				i,
				'Content',
				itemParameter(this, 'content', i, ''),
				nonEmptyRule,
			);
			const body: IDataObject = { content };
			const noteId = itemParameter(this, 'options.noteId', i, '') as unknown;
			if (noteId !== '' && noteId !== undefined && noteId !== null) {
				body.id = Number(valid(this, i, 'Note ID', noteId, numericIdRule));
			}
			const createdTime = itemParameter(this, 'options.createdTime', i, '') as unknown;
			if (createdTime !== '' && createdTime !== undefined && createdTime !== null) {
				body.createdTime = valid<string>(this, i, 'Created Time', createdTime, dateTimeRule);
			}
			return { personId, body };
		},
		key: ({ personId }) => personId,
		send: async ({ personId, body }, i) => {
			// Without an ID a repeated POST would store a second note: not repeated. With an ID a repeat
			// answered "already exists" means the first attempt stored it.
			const response = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: `/v1/persons/${idSegment(personId)}/notes`,
					body,
					retry: body.id !== undefined ? 'create' : 'none',
				},
				i,
			);
			// A 422 only after a lost answer: the note with this ID is stored (by the lost attempt or before it).
			if (response.status === 422) return { personId, ...body, afterLostAnswer: true };
			return { personId, ...answerOrSent(response.body, body) };
		},
	});
}
