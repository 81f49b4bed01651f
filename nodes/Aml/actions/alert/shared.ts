import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { itemLocatorValue } from '../../helpers/itemParameter';
import { alertIdLocator, locatorProperty } from '../../helpers/locators';
import { valid, invalid, lengthRule } from '../../validation';
import { hiddenInToolUse, type ToolOutput } from '../../helpers/toolOutput';

/** The service's manual alert rationales (ApiManualAlertRationale). */
export const RATIONALES = [
	'SUSPICIOUS_ACTIVITY',
	'UNUSUAL_TRANSACTION',
	'INITIAL_DUE_DILIGENCE',
	'ONGOING_DUE_DILIGENCE',
	'ENHANCED_DUE_DILIGENCE',
	'CUSTOMER_REQUEST',
	'INTERNAL_INVESTIGATION',
	'REGULATORY_REQUIREMENT',
	'OTHER',
] as const;

export const MAX_RATIONALE_COMMENT = 1000;

/** Status codes the interface names as examples; the real set is configured per client. */
export const STATUS_CODE_HINT =
	'A status code configured in your AML web UI, e.g. NEW, CLOSED or CLOSED AS FALSE POSITIVE';

/**
 * Alert IDs are whole numbers (int64): digits only, no sign, decimals, exponent or hex, within the
 * range a workflow can carry exactly. Pure: returns the broken rule or undefined.
 */
export function alertIdRule(value: unknown, min: number): string | undefined {
	const text =
		typeof value === 'number'
			? String(value)
			: typeof value === 'string'
				? value.trim()
				: undefined;
	const rule = `must be a whole-number alert ID of at least ${min}, such as 1042`;
	if (text === undefined || !/^\d+$/.test(text)) return rule;
	const n = Number(text);
	if (!Number.isSafeInteger(n)) return `${rule} (the number is too large)`;
	if (n < min) return rule;
	return undefined;
}

/** Reads and checks an alert ID field; returns it as a number. */
export function validAlertId(
	ctx: IExecuteFunctions,
	i: number,
	field: string,
	value: unknown,
	min = 1,
): number {
	valid(ctx, i, field, value, (v) => alertIdRule(v, min));
	return Number(typeof value === 'string' ? value.trim() : value);
}

/** Optional text: '' means "not given"; anything else must not be only whitespace. */
export function optionalText(
	ctx: IExecuteFunctions,
	i: number,
	field: string,
	value: unknown,
	max?: number,
): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'object')
		throw invalid(ctx, i, field, value, 'must be text, not an object or a list');
	const text = typeof value === 'string' ? value : String(value);
	valid(ctx, i, field, text, (v) => {
		if (typeof v === 'string' && v.trim() === '')
			return 'must not consist of spaces only (leave it empty to not send it)';
		return max === undefined ? undefined : lengthRule(v, 1, max);
	});
	return text;
}

export function alertIdProperty(
	min: number,
	overrides: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'Alert ID',
		name: 'alertId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1042',
		description: `Numeric ID of the alert as shown in the AML web UI or in an alert webhook (whole number, ${min} or more)`,
		...overrides,
	};
}

/** Alert ID: a resource locator (By ID, By URL). */
export function alertIdProperties(
	min: number,
	overrides: Partial<INodeProperties> = {},
): INodeProperties[] {
	return [locatorProperty(alertIdProperty(min, overrides), alertIdLocator)];
}

/** Reads and checks the Alert ID of an item (plain text or resource locator); returns it as a number. */
export function readAlertId(ctx: IExecuteFunctions, i: number, min: number): number {
	return validAlertId(ctx, i, 'Alert ID', itemLocatorValue(ctx, 'alertId', i, 'Alert ID'), min);
}

export const rationaleProperty: INodeProperties = {
	displayName: 'Rationale',
	name: 'rationale',
	type: 'options',
	required: true,
	// Alphabetical by name.
	options: [
		{ name: 'Customer Request', value: 'CUSTOMER_REQUEST' },
		{ name: 'Enhanced Due Diligence', value: 'ENHANCED_DUE_DILIGENCE' },
		{ name: 'Initial Due Diligence', value: 'INITIAL_DUE_DILIGENCE' },
		{ name: 'Internal Investigation', value: 'INTERNAL_INVESTIGATION' },
		{ name: 'Ongoing Due Diligence', value: 'ONGOING_DUE_DILIGENCE' },
		{ name: 'Other', value: 'OTHER' },
		{ name: 'Regulatory Requirement', value: 'REGULATORY_REQUIREMENT' },
		{ name: 'Suspicious Activity', value: 'SUSPICIOUS_ACTIVITY' },
		{ name: 'Unusual Transaction', value: 'UNUSUAL_TRANSACTION' },
	],
	default: 'SUSPICIOUS_ACTIVITY',
	description: 'Why the alert is raised',
};

export const rationaleCommentProperty: INodeProperties = {
	displayName: 'Rationale Comment',
	name: 'rationaleComment',
	type: 'string',
	typeOptions: { rows: 3 },
	default: '',
	placeholder:
		'e.g. Customer received 12 cash deposits just under the reporting limit within 3 days',
	description: `Free-text explanation for the alert, at most ${MAX_RATIONALE_COMMENT} characters. Leave empty to not send it.`,
};

export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
	displayOptions: hiddenInToolUse,
};

/** Output in tool use of a monitoring alert (13 fields). */
export const monitoringAlertToolOutput: ToolOutput = {
	id: 'id',
	fields: [
		'priority',
		'status',
		'statusId',
		'person',
		'score',
		'assignee',
		'createdTime',
		'assignments',
		'statuses',
		'notes',
		'transaction',
		'entityType',
	],
	simplify: (alert) => simplifyMonitoringAlert(alert),
};

/** Output in tool use of a screening alert's hit (6 fields and the list record's attributes). */
export const hitToolOutput: ToolOutput = {
	id: 'id',
	fields: [
		'listName',
		'listProvider',
		'listType',
		'score',
		'attributes',
		...[
			'name',
			'aliases',
			'associations',
			'descriptions',
			'identificationDetails',
			'mainList',
			'referenceGroupCodes',
			'providers',
			'notes',
			'overview',
			'recordDate',
			'roles',
			'type',
		].map((key) => `attributes.${key}`),
	],
	simplify: (hit) => simplifyHit(hit),
};

export function simplifyMonitoringAlert(alert: IDataObject): IDataObject {
	const person = (alert.person ?? {}) as IDataObject;
	const transaction = (alert.transaction ?? {}) as IDataObject;
	const score = (alert.score ?? {}) as IDataObject;
	return {
		id: alert.id,
		status: alert.status,
		priority: alert.priority,
		personId: person.id ?? null,
		transactionId: transaction.id ?? null,
		results: (score.results as IDataObject[] | undefined) ?? [],
		createdTime: alert.createdTime,
	};
}

export function simplifyHit(hit: IDataObject): IDataObject {
	const attributes = (hit.attributes ?? {}) as IDataObject;
	return {
		id: hit.id,
		name: attributes.name ?? null,
		listName: hit.listName,
		listType: hit.listType,
		score: hit.score,
	};
}

/**
 * A 404 of a status change means the alert or the status code is unknown: say which two things to
 * check. Returns the (augmented) error for the caller to throw.
 */
export function explainStatusNotFound(
	error: unknown,
	alert: string,
	status: string | undefined,
): unknown {
	const apiError = error as { httpCode?: string; description?: string | null };
	if (status !== undefined && apiError && String(apiError.httpCode) === '404') {
		const hint = `Either ${alert} does not exist, or the status code "${status}" is not configured for your organisation (status codes are per client and must be written exactly as in the AML web UI, e.g. CLOSED AS FALSE POSITIVE)`;
		apiError.description = apiError.description ? `${hint}. ${apiError.description}` : hint;
	}
	return error;
}
