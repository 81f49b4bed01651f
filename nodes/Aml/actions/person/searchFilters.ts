import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { lengthRule } from '../../validation';

/** Limits of the person search body (the service's limits). */
export const MAX_FILTERS = 5;
export const MAX_QUERY_LENGTH = 200;

/** ApiSearchOperator, with the words an analyst reads in the UI (alphabetical by name). */
export const SEARCH_OPERATORS = [
	{ name: 'Contains', value: 'CONTAINS', description: 'The value contains the text' },
	{
		name: 'Contains Word',
		value: 'CONTAINS_WORD',
		description: 'The value contains the text as a whole word',
	},
	{ name: 'Ends With', value: 'ENDS_WITH', description: 'The value ends with the text' },
	{
		name: 'Exists',
		value: 'EXISTS',
		description: 'The person has a value for the attribute (no text needed)',
	},
	{
		name: 'Greater Than',
		value: 'GT',
		description: 'The value is greater than the text (numbers, dates)',
	},
	{
		name: 'Greater Than or Equal',
		value: 'GTE',
		description: 'The value is greater than or equal to the text',
	},
	{ name: 'Is Exactly', value: 'IS_EXACTLY', description: 'The value equals the text exactly' },
	{
		name: 'Less Than',
		value: 'LT',
		description: 'The value is less than the text (numbers, dates)',
	},
	{
		name: 'Less Than or Equal',
		value: 'LTE',
		description: 'The value is less than or equal to the text',
	},
	{
		name: 'Not Exists',
		value: 'NOT_EXISTS',
		description: 'The person has no value for the attribute (no text needed)',
	},
	{ name: 'Starts With', value: 'STARTS_WITH', description: 'The value starts with the text' },
];

export const OPERATOR_VALUES = SEARCH_OPERATORS.map((operator) => operator.value);
const NO_QUERY = ['EXISTS', 'NOT_EXISTS'];

export const filtersProperty: INodeProperties = {
	displayName: 'Filters',
	name: 'filters',
	type: 'fixedCollection',
	placeholder: 'Add Filter',
	typeOptions: { multipleValues: true },
	default: {},
	description: `Conditions the persons must meet, at most ${MAX_FILTERS}. Without any filter every person of the category is returned.`,
	options: [
		{
			displayName: 'Filter',
			name: 'filter',
			values: [
				{
					displayName: 'Attribute',
					name: 'attribute',
					type: 'string',
					default: '',
					required: true,
					placeholder: 'e.g. last_name',
					description: 'Name of the attribute to compare, e.g. last_name, country, company_name',
				},
				{
					displayName: 'Attribute Identifier',
					name: 'attributeIdentifier',
					type: 'string',
					default: '',
					description:
						'Identifier of the attribute as configured in the AML web UI, when your organisation uses one. Leave empty to not send it.',
				},
				{
					displayName: 'Attribute Type',
					name: 'attributeType',
					type: 'string',
					default: '',
					placeholder: 'e.g. GENERAL',
					description: 'Kind of attribute, e.g. GENERAL. Leave empty to not send it.',
				},
				{
					displayName: 'Negate (NOT)',
					name: 'not',
					type: 'boolean',
					default: false,
					description: 'Whether to return the persons that do NOT meet this condition',
				},
				{
					displayName: 'Operator',
					name: 'operator',
					type: 'options',
					options: SEARCH_OPERATORS,
					default: 'IS_EXACTLY',
					description: 'How the attribute is compared with the text',
				},
				{
					displayName: 'Text',
					name: 'query',
					type: 'string',
					default: '',
					placeholder: 'e.g. Schmidt',
					description: `Text to compare the attribute with, 1 to ${MAX_QUERY_LENGTH} characters`,
					displayOptions: { hide: { operator: NO_QUERY } },
				},
			],
		},
	],
};

export interface FilterRow {
	attribute?: string;
	operator?: string;
	query?: string;
	not?: boolean;
	attributeIdentifier?: string;
	attributeType?: string;
}

export interface Problem {
	field: string;
	value: unknown;
	rule: string;
}

/** Pure: the rows of the Filters editor as the ApiSearchFilter list, or the first broken rule. */
export function buildSearchFilters(rows: FilterRow[] | undefined): {
	filters: IDataObject[];
	problem?: Problem;
} {
	const list = Array.isArray(rows) ? rows : [];
	if (list.length > MAX_FILTERS) {
		return {
			filters: [],
			problem: {
				field: 'Filters',
				value: `${list.length} filters`,
				rule: `may have at most ${MAX_FILTERS} conditions (has ${list.length}); remove some or run several searches`,
			},
		};
	}
	const filters: IDataObject[] = [];
	for (let index = 0; index < list.length; index++) {
		const row = list[index] ?? {};
		const where = `Filters[${index + 1}]`;
		const attribute = typeof row.attribute === 'string' ? row.attribute.trim() : '';
		if (!attribute)
			return {
				filters: [],
				problem: { field: `${where}.Attribute`, value: row.attribute, rule: 'must not be empty' },
			};
		const operator = row.operator ?? 'IS_EXACTLY';
		if (!OPERATOR_VALUES.includes(operator)) {
			return {
				filters: [],
				problem: {
					field: `${where}.Operator`,
					value: operator,
					rule: `must be one of ${OPERATOR_VALUES.join(', ')}`,
				},
			};
		}
		const filter: IDataObject = { attribute, operator, not: row.not === true };
		const query = row.query === undefined || row.query === null ? '' : String(row.query);
		if (!NO_QUERY.includes(operator)) {
			const broken = lengthRule(query, 1, MAX_QUERY_LENGTH);
			if (broken)
				return { filters: [], problem: { field: `${where}.Text`, value: query, rule: broken } };
			filter.query = query;
		} else if (query !== '') {
			filter.query = query;
		}
		const identifier =
			typeof row.attributeIdentifier === 'string' ? row.attributeIdentifier.trim() : '';
		if (identifier) filter.attributeIdentifier = identifier;
		const type = typeof row.attributeType === 'string' ? row.attributeType.trim() : '';
		if (type) filter.attributeType = type;
		filters.push(filter);
	}
	return { filters };
}

/** Pure: Order By is optional; when given it has 1..200 characters. */
export function orderByRule(value: unknown): string | undefined {
	if (value === undefined || value === '') return undefined;
	return lengthRule(value, 1, MAX_QUERY_LENGTH);
}
