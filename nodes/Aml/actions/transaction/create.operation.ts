import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { attributeProperties, readAttributes } from '../../helpers/attributes';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { itemParameter } from '../../helpers/itemParameter';
import { amlRequest, idSegment } from '../../transport';
import { invalid, type ItemValidator } from '../../validation';
import { answerOrSent, lostAnswerFields } from '../../helpers/answers';
import {
	validTransactionAttributes,
	CORE_ATTRIBUTE,
	CORE_FIELDS,
	readOwnerId,
	readTransactionId,
	TRANSACTION_ATTRIBUTES,
	transactionIdProperty,
	transactionPersonIdProperties,
} from './shared';

const [modeProperty, ...otherAttributeProperties] = attributeProperties({
	known: TRANSACTION_ATTRIBUTES,
	reservedInputFields: ['id', 'personId', 'transactionId'],
	hint: 'Needs "amount" (decimal as text, e.g. "1250.00"); most scenarios also expect "type", "direction" and "timestamp"',
});

const properties: INodeProperties[] = [
	...transactionPersonIdProperties,
	transactionIdProperty,
	modeProperty,
	...CORE_FIELDS.map((field) => ({
		...field,
		displayOptions: { show: { attributesMode: ['fields'] } },
	})),
	...otherAttributeProperties.map((property) =>
		property.name === 'attributeFields'
			? { ...property, displayName: 'Other Attributes' }
			: property,
	),
	{
		displayName: 'If Transaction Already Exists',
		name: 'onExisting',
		type: 'options',
		options: [
			{ name: 'Error', value: 'error', description: 'Fail the item (the service answers 422)' },
			{
				name: 'Skip',
				value: 'skip',
				description: 'Leave the stored transaction unchanged and output it as skipped',
			},
		],
		default: 'error',
		description:
			'What to do when a transaction with this ID is already stored; Skip makes re-running an import safe. A stored transaction cannot be replaced (use Update to add keys or change its status).',
	},
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const personId = readOwnerId(this, i);
			const id = readTransactionId(this, i);
			const fromFields =
				(itemParameter(this, 'attributesMode', i, 'fields') as string) === 'fields';
			const attributes = readAttributes(this, i);
			if (fromFields) {
				for (const [parameter, attribute] of Object.entries(CORE_ATTRIBUTE)) {
					const value = itemParameter(this, parameter, i, '');
					if (value === '' || value === undefined || value === null) continue;
					if (typeof value === 'object') {
						// An object or list from an expression would otherwise be sent as the text "[object Object]".
						const field =
							CORE_FIELDS.find((property) => property.name === parameter)?.displayName ?? parameter;
						throw invalid(
							this,
							i,
							field,
							value,
							'must be text or a number, not an object or a list',
						);
					}
					attributes[attribute] = typeof value === 'string' ? value.trim() : String(value);
				}
			}
			validTransactionAttributes(this, i, attributes, fromFields);
			return {
				personId,
				id,
				attributes,
				onExisting: itemParameter(this, 'onExisting', i, 'error') as string,
			};
		},
		send: async ({ personId, id, attributes, onExisting }, i) => {
			const response = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: `/v1/persons/${idSegment(personId)}/transactions`,
					body: { id, attributes },
					// Keyed by your ID: repeated after a lost answer; a 422 then means stored (by the lost attempt or before).
					retry: 'create',
					passStatuses: onExisting === 'skip' ? [422] : [],
				},
				i,
			);
			const sent: IDataObject = { id, personId, attributes };
			// A 422 after a lost answer: stored by the lost attempt or before it, so not claimed as created.
			if (response.status === 422)
				return {
					...sent,
					result: response.afterLostAnswer ? 'exists' : 'skipped',
					...lostAnswerFields(response),
				};
			return { ...answerOrSent(response.body, sent), result: 'created' };
		},
	});
}
