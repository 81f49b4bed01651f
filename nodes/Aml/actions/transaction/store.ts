import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	attributeProperties,
	readAttributes,
	withoutGateRecordKeys,
} from '../../helpers/attributes';
import { answerOrSent, lostAnswerFields } from '../../helpers/answers';
import { itemParameter } from '../../helpers/itemParameter';
import { amlRequest, idSegment, type Deadline } from '../../transport';
import { invalid } from '../../validation';
import {
	CORE_ATTRIBUTE,
	CORE_FIELDS,
	readOwnerId,
	readTransactionId,
	TRANSACTION_ATTRIBUTES,
	transactionIdProperty,
	transactionPersonIdProperties,
	validTransactionAttributes,
} from './shared';

/**
 * Storing a transaction, shared by Transaction → Create and Transaction → Gate: the fields, how an item is read into
 * a transaction, and the one request that stores it.
 */

const [modeProperty, ...otherAttributeProperties] = attributeProperties({
	known: TRANSACTION_ATTRIBUTES,
	reservedInputFields: ['id', 'personId', 'transactionId'],
});

/** What the JSON and input-item modes must carry (Define Below shows these fields by name). */
const expectedAttributesNotice: INodeProperties = {
	displayName:
		'Needs "amount" (decimal as text, e.g. "1250.00"); most scenarios also expect "type", "direction" (I or O) and "timestamp"',
	name: 'expectedAttributesNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { attributesMode: ['json', 'input'] } },
};

/** The fields of a transaction to store, and "If Transaction Already Exists" with the operation's default. */
export function storeProperties(
	onExistingDefault: 'error' | 'skip',
	onExistingTexts: { error: string; skip: string } = {
		error: 'Fail the item (the service answers 422)',
		skip: 'Leave the stored transaction unchanged and output it as skipped',
	},
): INodeProperties[] {
	return [
		...transactionPersonIdProperties,
		transactionIdProperty,
		modeProperty,
		expectedAttributesNotice,
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
				{ name: 'Error', value: 'error', description: onExistingTexts.error },
				{ name: 'Skip', value: 'skip', description: onExistingTexts.skip },
			],
			default: onExistingDefault,
			description:
				'What to do when a transaction with this ID is already stored; Skip makes re-running an import (or a retried payment) safe. A stored transaction cannot be replaced (use Update to add keys or change its status).',
		},
	];
}

export interface TransactionToStore {
	personId: string;
	id: string;
	attributes: IDataObject;
	onExisting: string;
}

/** Reads and validates the transaction of item `i` (before any request). */
export function readTransactionToStore(ctx: IExecuteFunctions, i: number): TransactionToStore {
	const personId = readOwnerId(ctx, i);
	const id = readTransactionId(ctx, i);
	const fromFields = (itemParameter(ctx, 'attributesMode', i, 'fields') as string) === 'fields';
	const attributes = readAttributes(ctx, i);
	if (fromFields) {
		for (const [parameter, attribute] of Object.entries(CORE_ATTRIBUTE)) {
			const value = itemParameter(ctx, parameter, i, '');
			if (value === '' || value === undefined || value === null) continue;
			if (typeof value === 'object') {
				// An object or list from an expression would otherwise be sent as the text "[object Object]".
				const field =
					CORE_FIELDS.find((property) => property.name === parameter)?.displayName ?? parameter;
				throw invalid(ctx, i, field, value, 'must be text or a number, not an object or a list');
			}
			attributes[attribute] = typeof value === 'string' ? value.trim() : String(value);
		}
	}
	validTransactionAttributes(ctx, i, attributes, fromFields);
	withoutGateRecordKeys(ctx, i, attributes);
	return {
		personId,
		id,
		attributes,
		onExisting: itemParameter(ctx, 'onExisting', i, 'error') as string,
	};
}

/** A stored transaction as the service holds it: its answer or `sent`, and its attributes as stored. */
export interface StoredTransaction {
	json: IDataObject;
	/** The attributes the service holds (from its answer, or read back when the ID was taken). */
	stored: IDataObject;
}

/**
 * Stores the transaction: `result` is `created`, `skipped` (it existed and Skip is chosen) or `exists` (a 422 after a
 * lost answer: stored by the lost attempt or before it, never claimed as created). A transaction found stored under
 * the ID (Skip, or a repeat after a lost answer) is read and compared with this one: the same ID with other data (its
 * person, or any attribute sent) fails with `ReusedTransactionId`, so that a payment is never taken for another.
 * `record` (the Gate's claim) is stored with the attributes and never compared.
 */
export async function storeTransaction(
	ctx: IExecuteFunctions,
	transaction: TransactionToStore,
	i: number,
	deadline?: Deadline,
	record: IDataObject = {},
): Promise<StoredTransaction> {
	const { personId, id, attributes, onExisting } = transaction;
	const response = await amlRequest.call(
		ctx,
		{
			method: 'POST',
			path: `/v1/persons/${idSegment(personId)}/transactions`,
			body: { id, attributes: { ...attributes, ...record } },
			// Keyed by your ID: repeated after a lost answer; a 422 then means stored (by the lost attempt or before).
			retry: 'create',
			passStatuses: onExisting === 'skip' ? [422] : [],
			deadline,
		},
		i,
	);
	const sent: IDataObject = { id, personId, attributes };
	if (response.status === 422) {
		const stored = await sameAsStored(ctx, transaction, i, deadline);
		return {
			json: {
				...sent,
				result: response.afterLostAnswer ? 'exists' : 'skipped',
				...lostAnswerFields(response),
			},
			stored,
		};
	}
	const json = answerOrSent(response.body, sent);
	const answered = json.attributes;
	const stored = (
		answered && typeof answered === 'object' ? answered : { ...attributes, ...record }
	) as IDataObject;
	for (const key of Object.keys(record)) delete (json.attributes as IDataObject | undefined)?.[key];
	return { json: { ...json, result: 'created' }, stored };
}

/** Reads the attributes of the stored transaction (404 when it is not there, or is another person's). */
export async function readStoredTransaction(
	ctx: IExecuteFunctions,
	transaction: { id: string; personId: string },
	i: number,
	deadline?: Deadline,
	passStatuses: number[] = [],
): Promise<IDataObject | undefined> {
	const response = await amlRequest.call(
		ctx,
		{
			method: 'GET',
			path: `/v1/persons/${idSegment(transaction.personId)}/transactions/${idSegment(transaction.id)}`,
			answer: { fields: ['id'] },
			passStatuses,
			deadline,
		},
		i,
	);
	if (response.status === 404) return undefined;
	const body = response.body as IDataObject;
	const storedPerson = body.personId;
	if (storedPerson !== undefined && storedPerson !== transaction.personId) return undefined;
	return (body.attributes ?? {}) as IDataObject;
}

/** The reason of a Gate that found the transaction ID taken by other data. */
export const REUSED_ID_REASON = 'transaction ID already used with other data';

/** The ID is stored with other data than the transaction to store (another person, other attribute values). */
export class ReusedTransactionId extends NodeOperationError {
	constructor(
		ctx: IExecuteFunctions,
		itemIndex: number,
		readonly transactionId: string,
		readonly differences: string[],
	) {
		super(
			ctx.getNode(),
			`Transaction ID "${transactionId}" is already used with other data (${differences.join(', ')}): nothing was stored, and the stored transaction was not changed`,
			{
				itemIndex,
				description:
					'A transaction ID names one payment. Send a new payment under a new ID; a payment sent again with the same data is skipped.',
			},
		);
	}
}

/**
 * Reads the transaction stored under the ID and fails with `ReusedTransactionId` when it differs from `transaction`;
 * returns its stored attributes.
 */
async function sameAsStored(
	ctx: IExecuteFunctions,
	transaction: TransactionToStore,
	i: number,
	deadline?: Deadline,
): Promise<IDataObject> {
	const stored = await readStoredTransaction(ctx, transaction, i, deadline, [404]);
	const differences =
		stored === undefined ? ['person'] : attributeDifferences(transaction.attributes, stored);
	if (differences.length) throw new ReusedTransactionId(ctx, i, transaction.id, differences);
	return stored as IDataObject;
}

/**
 * The attributes sent whose stored value differs. An attribute stored later by Update is not compared, nor is `status`:
 * the one attribute the service lets change after the store (a payment's status moves on; it is the same payment).
 */
export function attributeDifferences(sent: IDataObject, stored: IDataObject): string[] {
	return Object.keys(sent).filter((key) => key !== 'status' && !sameValue(sent[key], stored[key]));
}

/** Values equal as stored: texts and numbers by their text (a decimal also by its value), lists and objects deeply. */
function sameValue(a: unknown, b: unknown): boolean {
	if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
		if (Array.isArray(a) !== Array.isArray(b)) return false;
		const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
		return [...keys].every((key) => sameValue((a as IDataObject)[key], (b as IDataObject)[key]));
	}
	if (a === b) return true;
	const scalar = (value: unknown) => typeof value === 'string' || typeof value === 'number';
	if (!scalar(a) || !scalar(b)) return false;
	if (String(a) === String(b)) return true;
	const decimal = /^-?\d+(\.\d+)?$/;
	if (decimal.test(String(a)) && decimal.test(String(b))) return Number(a) === Number(b);
	const instantA = isoInstant(String(a));
	return instantA !== undefined && instantA === isoInstant(String(b));
}

const ISO_DATE_TIME =
	/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An ISO-8601 date-time as one comparable text (its instant in UTC to the nanosecond), so that `…:00Z`, `…:00.000Z`
 * and `…+00:00` are the same time; undefined for anything else.
 */
function isoInstant(value: string): string | undefined {
	const match = ISO_DATE_TIME.exec(value.trim());
	if (!match) return undefined;
	const [, dateTime, fraction = '', zone] = match;
	const offset = /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
	const ms = Date.parse(`${dateTime}${offset.toUpperCase()}`);
	return Number.isNaN(ms) ? undefined : `${ms}.${fraction.padEnd(9, '0')}`;
}
