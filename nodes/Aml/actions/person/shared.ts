import type { INodeProperties } from 'n8n-workflow';

import type { KnownAttribute } from '../../helpers/attributes';

export const PERSON_TYPES = ['INDIVIDUAL', 'LEGAL', 'UNDEFINED', 'PRIVATE', 'BUSINESS'] as const;

export const personIdProperty: INodeProperties = {
	displayName: 'Person ID',
	name: 'personId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'cust-10023',
	description: 'External, case-sensitive ID of the person. Allowed characters: a-z, A-Z, 0-9, - _ : .',
};

export const personTypeProperty: INodeProperties = {
	displayName: 'Type',
	name: 'personType',
	type: 'options',
	required: true,
	options: [
		{ name: 'Business (Deprecated)', value: 'BUSINESS', description: 'Deprecated by the service: use Legal' },
		{ name: 'Individual', value: 'INDIVIDUAL', description: 'A natural person' },
		{ name: 'Legal', value: 'LEGAL', description: 'A company or other legal entity' },
		{ name: 'Private (Deprecated)', value: 'PRIVATE', description: 'Deprecated by the service: use Individual' },
		{ name: 'Undefined', value: 'UNDEFINED' },
	],
	default: 'INDIVIDUAL',
};

/** The spec's typical attributes of individuals and legal persons. */
export const PERSON_ATTRIBUTES: KnownAttribute[] = [
	{ name: 'first_name', displayName: 'First Name', description: 'Individual: first name (screened, usable for online monitoring)', placeholder: 'Anna' },
	{ name: 'last_name', displayName: 'Last Name', description: 'Individual: last name (screened, usable for online monitoring)', placeholder: 'Schmidt' },
	{ name: 'company_name', displayName: 'Company Name', description: 'Legal person: registered name (screened)', placeholder: 'Acme Trading GmbH' },
	{ name: 'dob', displayName: 'Date of Birth', description: 'ISO-8601 date', placeholder: '1985-04-12' },
	{ name: 'email', displayName: 'Email', description: 'Contact email', placeholder: 'name@email.com' },
	{ name: 'phone_number', displayName: 'Phone Number', description: 'Contact phone number', placeholder: '+49301234567' },
	{ name: 'street_address', displayName: 'Street Address', description: 'Street and number', placeholder: 'Hauptstr. 1' },
	{ name: 'city', displayName: 'City', description: 'City of residence or registration', placeholder: 'Berlin' },
	{ name: 'country', displayName: 'Country', description: 'ISO country code of residence or registration', placeholder: 'DE' },
	{ name: 'onboarding_date', displayName: 'Onboarding Date', description: 'ISO-8601 date the customer was onboarded', placeholder: '2024-01-15' },
	{ name: 'id_document', displayName: 'ID Document', description: 'Identity document number' },
	{ name: 'id_country', displayName: 'ID Country', description: 'Country that issued the identity document', placeholder: 'DE' },
	{ name: 'gender', displayName: 'Gender', description: 'Individual: gender' },
	{ name: 'industry', displayName: 'Industry', description: 'Legal person: industry' },
	{ name: 'business_reg_number', displayName: 'Business Registration Number', description: 'Legal person: registration number' },
	{ name: 'expected_monthly_turnover', displayName: 'Expected Monthly Turnover', description: 'Legal person: expected monthly turnover, as text', placeholder: '50000.00' },
	{
		name: 'shareholders',
		displayName: 'Shareholders (JSON)',
		description: 'Legal person: JSON array of shareholder objects, each with an "id" (screened as shareholders)',
		placeholder: '[{"id":"sh-1","name":"Jane Doe"}]',
	},
];
