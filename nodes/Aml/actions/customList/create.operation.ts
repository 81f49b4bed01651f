import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/items';
import { answerOrSent } from '../../helpers/answers';
import { amlRequest } from '../../transport';
import { readRecordWrite, customListRecordKey, recordWriteProperties, recordsPath } from './shared';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = recordWriteProperties();

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => readRecordWrite(this, i),
		key: customListRecordKey,
		send: async ({ customListId, id, attributes }, i) => {
			const response = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: recordsPath(customListId),
					body: { id, attributes },
					retry: 'create',
				},
				i,
			);
			if (response.status === 422) {
				// Only after a lost answer (else a 422 fails the item): stored by the lost attempt or before it.
				return { customListId, id, attributes, result: 'exists', afterLostAnswer: true };
			}
			return {
				customListId,
				...answerOrSent(response.body, { id, attributes }),
				result: 'created',
			};
		},
	});
}
