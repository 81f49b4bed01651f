import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { KnownAttribute } from '../../helpers/attributes';
import { itemId } from '../../helpers/itemParameter';
import { locatorProperty, personIdLocator, personIdProperty } from '../../helpers/locators';
import { hiddenInToolUse, type ToolOutput } from '../../helpers/toolOutput';

export const PERSON_TYPES = ['INDIVIDUAL', 'LEGAL', 'UNDEFINED', 'PRIVATE', 'BUSINESS'] as const;

/** The Person ID of an existing person: a resource locator (From List, By ID). */
export const personIdProperties: INodeProperties[] = [
	locatorProperty(personIdProperty, personIdLocator),
];

export const personTypeProperty: INodeProperties = {
	displayName: 'Type',
	name: 'personType',
	type: 'options',
	required: true,
	options: [
		{
			name: 'Business (Deprecated)',
			value: 'BUSINESS',
			description: 'Deprecated by the service: use Legal',
		},
		{ name: 'Individual', value: 'INDIVIDUAL', description: 'A natural person' },
		{ name: 'Legal', value: 'LEGAL', description: 'A company or other legal entity' },
		{
			name: 'Private (Deprecated)',
			value: 'PRIVATE',
			description: 'Deprecated by the service: use Individual',
		},
		{ name: 'Undefined', value: 'UNDEFINED' },
	],
	default: 'INDIVIDUAL',
};

/** The spec's typical attributes of individuals and legal persons. */
export const PERSON_ATTRIBUTES: KnownAttribute[] = [
	{
		name: 'first_name',
		displayName: 'First Name',
		description: 'Individual: first name (screened, usable for online monitoring)',
		placeholder: 'e.g. Anna',
	},
	{
		name: 'last_name',
		displayName: 'Last Name',
		description: 'Individual: last name (screened, usable for online monitoring)',
		placeholder: 'e.g. Schmidt',
	},
	{
		name: 'company_name',
		displayName: 'Company Name',
		description: 'Legal person: registered name (screened)',
		placeholder: 'e.g. Acme Trading GmbH',
	},
	{
		name: 'dob',
		displayName: 'Date of Birth',
		description: 'ISO-8601 date',
		placeholder: 'e.g. 1985-04-12',
	},
	{
		name: 'email',
		displayName: 'Email',
		description: 'Contact email',
		placeholder: 'e.g. name@email.com',
	},
	{
		name: 'phone_number',
		displayName: 'Phone Number',
		description: 'Contact phone number',
		placeholder: 'e.g. +49301234567',
	},
	{
		name: 'street_address',
		displayName: 'Street Address',
		description: 'Street and number',
		placeholder: 'e.g. Hauptstr. 1',
	},
	{
		name: 'city',
		displayName: 'City',
		description: 'City of residence or registration',
		placeholder: 'e.g. Berlin',
	},
	{
		name: 'country',
		displayName: 'Country',
		description: 'ISO country code of residence or registration',
		placeholder: 'e.g. DE',
	},
	{
		name: 'onboarding_date',
		displayName: 'Onboarding Date',
		description: 'ISO-8601 date the customer was onboarded',
		placeholder: 'e.g. 2024-01-15',
	},
	{ name: 'id_document', displayName: 'ID Document', description: 'Identity document number' },
	{
		name: 'id_country',
		displayName: 'ID Country',
		description: 'Country that issued the identity document',
		placeholder: 'e.g. DE',
	},
	{ name: 'gender', displayName: 'Gender', description: 'Individual: gender' },
	{ name: 'industry', displayName: 'Industry', description: 'Legal person: industry' },
	{
		name: 'business_reg_number',
		displayName: 'Business Registration Number',
		description: 'Legal person: registration number',
	},
	{
		name: 'expected_monthly_turnover',
		displayName: 'Expected Monthly Turnover',
		description: 'Legal person: expected monthly turnover, as text',
		placeholder: 'e.g. 50000.00',
	},
	{
		name: 'shareholders',
		displayName: 'Shareholders (JSON)',
		description:
			'Legal person: JSON array of shareholder objects, each with an "id" (screened as shareholders)',
		placeholder: 'e.g. [{"id":"sh-1","name":"Jane Doe"}]',
	},
];

/** Person statuses (returned on reads; settable only through the deprecated v1 patch). */
export const PERSON_STATUSES = [
	'NEW',
	'REVIEWED',
	'MONITORING',
	'SUSPENDED',
	'TERMINATED',
	'TERMINATED_AND_REPORTED',
] as const;

export const PERSON_CATEGORIES = ['CUSTOMER', 'COUNTERPARTY'] as const;

export const categoryOptions = [
	{
		name: 'Counterparty',
		value: 'COUNTERPARTY',
		description: 'Someone your customers deal with, not your own customer',
	},
	{ name: 'Customer', value: 'CUSTOMER', description: 'One of your own customers' },
];

export const simplifyProperty = (description: string): INodeProperties => ({
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description,
	displayOptions: hiddenInToolUse,
});

/** Reads and checks the Person ID parameter of an item. */
export function readPersonId(ctx: IExecuteFunctions, itemIndex: number): string {
	return itemId(ctx, 'personId', itemIndex, 'Person ID');
}

/** Display name of a person: first and last name of an individual, else the company name. */
export function personName(attributes: IDataObject | undefined): string | null {
	if (!attributes) return null;
	const full = [attributes.first_name, attributes.last_name]
		.filter((part) => typeof part === 'string' && part !== '')
		.join(' ');
	if (full) return full;
	return typeof attributes.company_name === 'string' ? attributes.company_name : null;
}

/** The key fields of a person (search results). */
export function simplifyPerson(person: IDataObject): IDataObject {
	const attributes = (person.attributes ?? {}) as IDataObject;
	return {
		id: person.id,
		type: person.type,
		name: personName(attributes),
		status: person.status ?? null,
		category: person.category ?? null,
		country: attributes.country ?? null,
		createdTime: person.createdTime ?? null,
	};
}

/** Output in tool use of a person's record (Get, Search): 8 fields and the attributes. */
export const personToolOutput: ToolOutput = {
	id: 'id',
	fields: [
		'type',
		'status',
		'category',
		'createdTime',
		'snoozeConfiguration',
		'scenarioSnoozeConfigurations',
		'attributes',
		...[
			'first_name',
			'last_name',
			'company_name',
			'dob',
			'gender',
			'country',
			'city',
			'street_address',
			'email',
			'phone_number',
			'id_document',
			'id_country',
			'onboarding_date',
			'industry',
			'business_reg_number',
			'expected_monthly_turnover',
			'shareholders',
		].map((key) => `attributes.${key}`),
	],
	simplify: simplifyPerson,
};

/** The key fields of a person's risk. */
export function simplifyRisk(personId: string, risk: IDataObject): IDataObject {
	const risks = Array.isArray(risk.risks) ? (risk.risks as IDataObject[]) : [];
	return {
		personId,
		finalRisk: risk.finalRisk ?? null,
		finalRiskScore: risk.finalRiskScore ?? null,
		overrideLevel: risk.activeOverrideLevel ?? null,
		riskFactors: risks.map((entry) => ({
			factor: entry.factor,
			level: entry.level,
			details: entry.details,
		})),
		finalRiskCreatedTime: risk.finalRiskCreatedTime ?? null,
	};
}

/** The key fields of a status history: current status and the list of statuses with their times. */
export function simplifyStatusHistory(personId: string, history: IDataObject): IDataObject {
	const statuses = Array.isArray(history.statuses) ? (history.statuses as IDataObject[]) : [];
	const current =
		statuses.find((entry) => entry.endTime === null || entry.endTime === undefined) ??
		statuses[statuses.length - 1];
	return {
		personId,
		currentStatus: current?.status ?? null,
		statuses: statuses.map((entry) => ({
			status: entry.status,
			startTime: entry.startTime ?? null,
			endTime: entry.endTime ?? null,
		})),
		latestSanctionCheck: history.latestSanctionCheck ?? null,
	};
}
