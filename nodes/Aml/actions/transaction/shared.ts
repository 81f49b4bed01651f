import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { KnownAttribute } from '../../helpers/attributes';
import { itemId } from '../../helpers/itemParameter';
import { locatorProperty, personIdLocator, personIdProperty } from '../../helpers/locators';

import { amountRule, invalid, timestampRule } from '../../validation';

export const transactionIdProperty: INodeProperties = {
	displayName: 'Transaction ID',
	name: 'transactionId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. tx-2024-000123',
	description:
		'Your own, case-sensitive ID of the transaction. Allowed characters: a-z, A-Z, 0-9, - _ : .',
};

/** The person who made the transaction: a resource locator (From List, By ID). */
export const transactionPersonIdProperties: INodeProperties[] = [
	locatorProperty(
		{
			...personIdProperty,
			description:
				'ID of the person who made the transaction (case-sensitive). Allowed characters: a-z, A-Z, 0-9, - _ : .',
		},
		personIdLocator,
	),
];

/** The four attributes every transaction is expected to have, offered as their own fields. */
export const CORE_FIELDS: INodeProperties[] = [
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1250.00',
		description:
			'Amount as a decimal number written as text, e.g. 1250.00 (no currency sign or thousands separator)',
	},
	{
		displayName: 'Transaction Type',
		name: 'transactionType',
		type: 'string',
		default: '',
		placeholder: 'e.g. wire_transfer',
		description:
			'Kind of transaction, e.g. wire_transfer, payment, deposit or mcc (card payment). Free text: use the values your scenarios expect.',
	},
	{
		displayName: 'Direction',
		name: 'direction',
		type: 'options',
		options: [
			{ name: 'Not Set', value: '' },
			{ name: 'Incoming', value: 'I', description: 'Money received (sent as I)' },
			{ name: 'Outgoing', value: 'O', description: 'Money sent (sent as O)' },
		],
		default: '',
		description: 'Whether money was received or sent: the service expects I or O',
	},
	{
		displayName: 'Timestamp',
		name: 'timestamp',
		type: 'string',
		default: '',
		placeholder: 'e.g. 2024-05-01T12:30:00Z',
		description:
			'When the transaction happened, ISO-8601 with at most 6 fractional-second digits, e.g. 2024-05-01T12:30:00.123456Z',
	},
];

/** Parameter name of each core field → the attribute it sets. */
export const CORE_ATTRIBUTE: Record<string, string> = {
	amount: 'amount',
	transactionType: 'type',
	direction: 'direction',
	timestamp: 'timestamp',
};

/** Other attribute names the interface mentions. */
export const TRANSACTION_ATTRIBUTES: KnownAttribute[] = [
	{
		name: 'reference',
		displayName: 'Reference',
		description: 'Payment reference or purpose text',
		placeholder: 'e.g. Invoice 2024-117',
	},
	{
		name: 'receiver_account',
		displayName: 'Receiver Account',
		description: 'Account (e.g. IBAN) the money went to',
		placeholder: 'e.g. DE89370400440532013000',
	},
	{
		name: 'receiver_name',
		displayName: 'Receiver Name',
		description: 'Name of the receiver (screened)',
		placeholder: 'e.g. Acme Trading GmbH',
	},
	{
		name: 'sender_account',
		displayName: 'Sender Account',
		description: 'Account (e.g. IBAN) the money came from',
		placeholder: 'e.g. FR1420041010050500013M02606',
	},
	{
		name: 'sender_name',
		displayName: 'Sender Name',
		description: 'Name of the sender (screened)',
		placeholder: 'e.g. Anna Schmidt',
	},
	{
		name: 'status',
		displayName: 'Status',
		description: 'Your status of the transaction, e.g. completed or rejected',
		placeholder: 'e.g. completed',
	},
];

export function readTransactionId(ctx: IExecuteFunctions, itemIndex: number): string {
	return itemId(ctx, 'transactionId', itemIndex, 'Transaction ID');
}

export function readOwnerId(ctx: IExecuteFunctions, itemIndex: number): string {
	return itemId(ctx, 'personId', itemIndex, 'Person ID');
}

/**
 * Pure: the rules of transaction attributes on create — `amount` present and a decimal written as
 * text; `timestamp`, when present, ISO-8601 with at most 6 fractional digits. Returns the broken rule.
 */
export function transactionAttributesProblem(
	attributes: IDataObject,
	names: { amount: string; timestamp: string },
): { field: string; value: unknown; rule: string } | undefined {
	if (attributes.amount === undefined || attributes.amount === '') {
		return {
			field: names.amount,
			value: attributes.amount,
			rule: 'is required: every transaction needs an amount, e.g. "1250.00"',
		};
	}
	const amountBroken = amountRule(attributes.amount);
	if (amountBroken) return { field: names.amount, value: attributes.amount, rule: amountBroken };
	if (attributes.timestamp !== undefined) {
		const broken = timestampRule(attributes.timestamp);
		if (broken) return { field: names.timestamp, value: attributes.timestamp, rule: broken };
	}
	return undefined;
}

export function validTransactionAttributes(
	ctx: IExecuteFunctions,
	i: number,
	attributes: IDataObject,
	fromFields: boolean,
): IDataObject {
	const problem = transactionAttributesProblem(
		attributes,
		fromFields
			? { amount: 'Amount', timestamp: 'Timestamp' }
			: { amount: 'attributes.amount', timestamp: 'attributes.timestamp' },
	);
	if (problem) throw invalid(ctx, i, problem.field, problem.value, problem.rule);
	return attributes;
}
