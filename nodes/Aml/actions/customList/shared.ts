// Longer than ~250 lines: the record fields and readers shared by every Custom List operation (one place for them).
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { fieldMapperProperty } from '../../../shared/n8n/resourceMapper';
import {
	attributeProperties,
	MAPPED_ATTRIBUTES,
	parseJson,
	readAttributes,
	type KnownAttribute,
} from '../../helpers/attributes';
import { lostAnswerFields } from '../../helpers/answers';
import { optionsCollection } from '../../helpers/descriptions';
import { itemId, itemLocatorValue } from '../../helpers/itemParameter';
import { customListIdLocator, locatorProperty } from '../../helpers/locators';
import {
	amlApiRequest,
	amlRequest,
	bodyMessage,
	idSegment,
	type AmlContext,
} from '../../transport';
import { valid, validAttributes, uuidRule } from '../../validation';

export const customListIdProperty: INodeProperties = {
	displayName: 'Custom List ID',
	name: 'customListId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
	description:
		'ID of the custom list (a UUID). Find it in the AML web UI under the custom list settings, or in the address bar when the list is open.',
};

/** Custom List ID: a resource locator (By ID, By URL). */
export const customListIdProperties: INodeProperties[] = [
	locatorProperty(customListIdProperty, customListIdLocator),
];

export const recordIdProperty: INodeProperties = {
	displayName: 'Record ID',
	name: 'recordId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. blk-1001',
	description:
		'Your own, case-sensitive ID of the record in the list. Allowed characters: a-z, A-Z, 0-9, - _ : .',
};

/** Typical record attributes. Which fields a list has is configured in the AML UI. */
export const RECORD_ATTRIBUTES: KnownAttribute[] = [
	{
		name: 'name',
		displayName: 'Name',
		description: 'Name of the person or company on the list (usually the screened field)',
		placeholder: 'e.g. Nordwind Shell Corp',
	},
	{
		name: 'bank_account_numbers',
		displayName: 'Bank Account Numbers (JSON)',
		description:
			'JSON array of account numbers (IBANs), e.g. ["DE89370400440532013000"]. A single number may be given as plain text.',
		placeholder: 'e.g. ["DE89370400440532013000"]',
	},
	{
		name: 'country',
		displayName: 'Country',
		description: 'ISO country code',
		placeholder: 'e.g. DE',
	},
];

const JSON_ATTRIBUTES = ['bank_account_numbers'];

/**
 * The attribute editor of records: the list's own fields through n8n's resource mapper (set below or mapped from the
 * input by name), named fields, JSON, or the input item's fields. `defaultMode` is what a new node starts with (and
 * what a saved workflow without the parameter means).
 */
export function recordAttributeProperties(
	defaultMode: 'fields' | 'input' = 'fields',
): INodeProperties[] {
	return attributeProperties({
		known: RECORD_ATTRIBUTES,
		reservedInputFields: ['id'],
		defaultMode,
		hint: "Attributes are the list's fields (Map List Fields shows them): text, arrays or objects; empty values are not sent",
		mapper: fieldMapperProperty({
			displayName: 'List Fields',
			name: MAPPED_ATTRIBUTES,
			method: 'getRecordFields',
			dependsOn: ['customListId.value'],
			autoMapByDefault: defaultMode === 'input',
			fieldWords: { singular: 'field', plural: 'fields' },
			description:
				"The list's fields as the service lists them. Map Automatically takes the input item's fields with these names (others, such as the ID, are left out).",
		}),
	});
}

export const recordOptions: INodeProperties = optionsCollection();

export function readListId(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = itemLocatorValue(ctx, 'customListId', itemIndex, 'Custom List ID');
	return valid<string>(
		ctx,
		itemIndex,
		'Custom List ID',
		typeof raw === 'string' ? raw.trim() : raw,
		uuidRule,
	);
}

export function readRecordId(ctx: IExecuteFunctions, itemIndex: number): string {
	// IDs read from a spreadsheet or CSV often arrive as numbers: 1001 means the ID "1001" (itemId).
	return itemId(ctx, 'recordId', itemIndex, 'Record ID');
}

/**
 * The record's attributes as the user entered them. The named "(JSON)" fields are text inputs: a
 * value written as a JSON array or object there is sent as that array or object.
 */
export function readRecordAttributes(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const attributes = readAttributes(ctx, itemIndex);
	let changed = false;
	for (const key of JSON_ATTRIBUTES) {
		const value = attributes[key];
		if (typeof value !== 'string') continue;
		const trimmed = value.trim();
		if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) continue;
		const parsed = parseJson(trimmed).value;
		if (parsed !== undefined) {
			attributes[key] = parsed as IDataObject;
			changed = true;
		}
	}
	return changed
		? (validAttributes(ctx, itemIndex, 'attributes', attributes) as IDataObject)
		: attributes;
}

/** The fields of a record write (Create, Replace, Create or Update): list, record ID, attributes, what the write does, options. */
export function recordWriteProperties(): INodeProperties[] {
	return [
		...customListIdProperties,
		recordIdProperty,
		...recordAttributeProperties(),
		recordOptions,
	];
}

/** Replace and Create or Update: the service stores a record whole (PUT), so what is not sent is gone. */
export const replaceNotice: INodeProperties = {
	displayName:
		'The record is stored as sent: attributes not given here are removed from it. To change one field, read the record with Get first and send all its attributes.',
	name: 'replaceNotice',
	type: 'notice',
	default: '',
};

/** A record's key among the items of one run: its list and its ID. */
export function customListRecordKey({
	customListId,
	id,
}: {
	customListId: string;
	id: string;
}): string {
	return `${customListId}/${id}`;
}

/** List ID, record ID and attributes of a record write, each checked against the interface's rules. */
export function readRecordWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
): { customListId: string; id: string; attributes: IDataObject } {
	return {
		customListId: readListId(ctx, itemIndex),
		id: readRecordId(ctx, itemIndex),
		attributes: readRecordAttributes(ctx, itemIndex),
	};
}

export function recordsPath(customListId: string, recordId?: string): string {
	const base = `/v1/custom-lists/${idSegment(customListId)}/records`;
	return recordId === undefined ? base : `${base}/${idSegment(recordId)}`;
}

/** Whether a listed record is marked archived (the service may add such a flag to list answers). */
export function isArchivedRecord(record: IDataObject): boolean {
	if (record.archived === true || record.isArchived === true) return true;
	for (const key of ['status', 'state']) {
		const value = record[key];
		if (typeof value === 'string' && value.toUpperCase() === 'ARCHIVED') return true;
	}
	for (const key of ['archivedTime', 'archivedAt', 'archivedDate']) {
		if (record[key] !== undefined && record[key] !== null && record[key] !== '') return true;
	}
	return false;
}

/** The service's 409 on a record write: the record is archived and can no longer be changed. */
export function archivedRecordError(
	node: INode,
	customListId: string,
	recordId: string,
	serviceText: string,
	itemIndex?: number,
): NodeApiError {
	const message = `Record "${recordId}" is archived and cannot be updated`;
	const description =
		`The custom list ${customListId} keeps record "${recordId}" only as archived, and the service refuses changes to archived records (HTTP 409${serviceText ? `: ${serviceText}` : ''}). ` +
		'To put it back on the list, add it again with Create (or use Create or Update / Sync Records).';
	return new NodeApiError(
		node,
		{ message, description, httpCode: '409' },
		{ message, description, httpCode: '409', itemIndex },
	);
}

/** The list's fields that a screening search can match against (`{id, name}`). */
export async function fetchUsableFields(
	this: AmlContext,
	customListId: string,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const answer = await amlApiRequest.call(
		this,
		{
			method: 'GET',
			path: `/v1/custom-lists/${idSegment(customListId)}/screening-fields`,
			answer: { list: true, listField: 'content' },
		},
		itemIndex,
	);
	if (Array.isArray(answer)) return answer as IDataObject[];
	const content = (answer as IDataObject | undefined)?.content;
	return Array.isArray(content) ? (content as IDataObject[]) : [];
}

/**
 * Create, or replace when the list already has an active record with this ID: POST (422 passed
 * through) then PUT. Shared by Create or Update and Sync Records (which creates a record it did not see listed,
 * e.g. one added concurrently). A 409 on the PUT means the record is archived.
 */
export async function upsertRecord(
	ctx: IExecuteFunctions,
	customListId: string,
	id: string,
	attributes: IDataObject,
	itemIndex?: number,
): Promise<{ result: 'created' | 'updated'; body?: IDataObject; afterLostAnswer?: boolean }> {
	const created = await amlRequest.call(
		ctx,
		{
			method: 'POST',
			path: recordsPath(customListId),
			body: { id, attributes },
			retry: 'create',
			passStatuses: [422],
		},
		itemIndex,
	);
	if (created.status !== 422) return { result: 'created', body: asObject(created.body) };
	// Exists: before this request, or stored by an attempt whose answer was lost. The update is idempotent either way.
	return {
		result: 'updated',
		body: await updateRecord(ctx, customListId, id, attributes, itemIndex),
		...lostAnswerFields(created),
	};
}

/** PUT a record; the service's 409 becomes an error saying the record is archived. */
export async function updateRecord(
	ctx: IExecuteFunctions,
	customListId: string,
	id: string,
	attributes: IDataObject,
	itemIndex?: number,
): Promise<IDataObject | undefined> {
	const response = await amlRequest.call(
		ctx,
		{
			method: 'PUT',
			path: recordsPath(customListId, id),
			body: { id, attributes },
			passStatuses: [409],
		},
		itemIndex,
	);
	if (response.status === 409)
		throw archivedRecordError(
			ctx.getNode(),
			customListId,
			id,
			bodyMessage(response.body),
			itemIndex,
		);
	return asObject(response.body);
}

function asObject(body: unknown): IDataObject | undefined {
	return body && typeof body === 'object' && !Array.isArray(body)
		? (body as IDataObject)
		: undefined;
}
