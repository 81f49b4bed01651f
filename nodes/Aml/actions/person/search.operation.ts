import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../helpers/descriptions';
import { simplifyChosen, toolOutputProperties } from '../../helpers/toolOutput';
import { runItems } from '../../helpers/items';
import {
	pagingProperties,
	readAllPages,
	sortDirectionProperty,
} from '../../helpers/listParameters';
import { amlApiRequest, PAGE_ANSWER, type Paged } from '../../transport';
import { valid, invalid, type ItemValidator } from '../../validation';
import { categoryOptions, simplifyPerson, simplifyProperty, personToolOutput } from './shared';
import {
	buildSearchFilters,
	filtersProperty,
	MAX_QUERY_LENGTH,
	orderByRule,
	type FilterRow,
} from './searchFilters';
import { itemParameter } from '../../helpers/itemParameter';

const properties: INodeProperties[] = [
	{
		displayName: 'Category',
		name: 'category',
		type: 'options',
		required: true,
		options: categoryOptions,
		default: 'CUSTOMER',
		description: 'The service searches one category at a time',
	},
	filtersProperty,
	{
		displayName: 'Combine Filters',
		name: 'logicalOperator',
		type: 'options',
		options: [
			{ name: 'All Filters Must Match (AND)', value: 'AND' },
			{ name: 'Any Filter Must Match (OR)', value: 'OR' },
		],
		default: 'AND',
		description: 'Whether a person must meet every filter or at least one',
	},
	...pagingProperties,
	simplifyProperty(
		'Whether to return only ID, type, name, status, category, country and creation time of each person instead of the full person with all attributes',
	),
	...toolOutputProperties(personToolOutput),
	optionsCollection([
		{
			displayName: 'Order By',
			name: 'orderBy',
			type: 'string',
			default: '',
			placeholder: 'e.g. last_name',
			description: `Attribute or field to sort by, 1 to ${MAX_QUERY_LENGTH} characters`,
		},
		sortDirectionProperty,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['person'], operation: ['search'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const rows = itemParameter(this, 'filters.filter', i, []) as FilterRow[];
			const { filters, problem } = buildSearchFilters(rows);
			if (problem) throw invalid(this, i, problem.field, problem.value, problem.rule);
			const body: IDataObject = {
				filters,
				logicalOperator: itemParameter(this, 'logicalOperator', i, 'AND') as string,
				category: itemParameter(this, 'category', i) as string,
			};
			const orderBy = valid<string>(
				this,
				i,
				'Order By',
				itemParameter(this, 'options.orderBy', i, ''),
				orderByRule,
			);
			if (orderBy) {
				body.orderBy = orderBy;
				body.direction = itemParameter(this, 'options.direction', i, 'ASC') as string;
			}
			return { body, simplify: simplifyChosen(this, i, false) };
		},
		send: async ({ body, simplify }, i) => {
			const persons = await readAllPages(this, i, async (page, size) => {
				// A search stores nothing: safe to repeat after a timeout or 5xx.
				return (await amlApiRequest.call(
					this,
					{
						method: 'POST',
						answer: PAGE_ANSWER,
						path: '/v2/persons/search',
						body: { ...body, page, size },
						retry: 'safe',
					},
					i,
				)) as Paged<IDataObject>;
			});
			return simplify ? persons.map(simplifyPerson) : persons;
		},
	});
}

export const readOnly = true;

export const toolOutput = personToolOutput;
