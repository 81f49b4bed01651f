import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { unreadableAnswer } from '../../helpers/answers';
import { runItems } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import {
	hiddenInToolUse,
	simplifyChosen,
	toolOutputProperties,
	type ToolOutput,
} from '../../helpers/toolOutput';
import { amlApiRequest } from '../../transport';
import { valid, invalid, type ItemValidator } from '../../validation';
import {
	buildConfigurations,
	MIN_SEARCH_NAME,
	simplifySearchResult,
	type ConfigurationInput,
} from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import { runsAsTool } from '../outputs';

/** Output in tool use of each match (a screening search result item: 14 fields), in the answer's `matches`. */
const searchToolOutput: ToolOutput = {
	id: 'id',
	fields: [
		'type',
		'recordDate',
		'screeningType',
		'matchData',
		'highlight',
		'score',
		'sanctionList',
		'matchProvider',
		'identities',
		'countryRelations',
		'representedInLists',
		'descriptions',
		'identificationDetails',
	],
	simplify: (result) => simplifySearchResult(result),
	list: 'matches',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Viktor Drabenko',
		description: `Name of a person or company to look up, at least ${MIN_SEARCH_NAME} characters. Fuzzy matching also finds spelling variants and transliterations.`,
	},
	{
		displayName: 'Record Type',
		name: 'recordEntityType',
		type: 'options',
		required: true,
		options: [
			{ name: 'All', value: 'ALL', description: 'Persons and entities' },
			{ name: 'Entity', value: 'ENTITY', description: 'Companies, vessels and other non-persons' },
			{ name: 'Person', value: 'PERSON', description: 'Natural persons only' },
		],
		default: 'ALL',
		description: 'Which kind of list records to search',
	},
	{
		displayName: 'Configurations',
		name: 'configurations',
		type: 'fixedCollection',
		placeholder: 'Add Configuration',
		typeOptions: { multipleValues: true },
		// A search needs at least one configuration; the default is a visible sanction search.
		default: { configuration: [{ type: 'SANCTION', matchType: 'FUZZY_MATCH' }] },
		required: true,
		description:
			'What to search and how: at least one configuration, one per kind of search. Empty fields are not sent.',
		options: [
			{
				displayName: 'Configuration',
				name: 'configuration',
				values: [
					{
						displayName: 'Check Type',
						name: 'type',
						type: 'options',
						options: [
							{ name: 'PEP', value: 'PEP', description: 'Politically exposed persons' },
							{ name: 'Sanction', value: 'SANCTION', description: 'Sanction lists' },
						],
						default: 'SANCTION',
						description:
							'Which kind of list to search. Another kind your account offers can be set with an expression.',
					},
					{
						displayName: 'Custom List ID',
						name: 'listId',
						type: 'string',
						default: '',
						placeholder: 'e.g. 5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
						description: 'UUID of a custom list to search. Leave empty to not send it.',
					},
					{
						displayName: 'List Group Names or IDs',
						name: 'selectorGroupCodes',
						type: 'multiOptions',
						typeOptions: { loadOptionsMethod: 'getListGroups' },
						default: [],
						description:
							'Limit the search to these active list groups of your organisation. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'Match Type',
						name: 'matchType',
						type: 'options',
						options: [
							{
								name: 'Fuzzy Match',
								value: 'FUZZY_MATCH',
								description: 'Also finds spelling variants and transliterations',
							},
						],
						default: 'FUZZY_MATCH',
						description:
							'How names are compared. Another match type your account offers can be set with an expression.',
					},
					{
						displayName: 'Minimum Score',
						name: 'score',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description: 'Only return matches scoring at least this much (e.g. 85). 0 = not sent.',
					},
					{
						displayName: 'Prefix Match Limit',
						name: 'prefixMatchLimit',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							"The service's prefix match limit for this search, as your account's documentation describes it. 0 = not sent: the service's own setting applies.",
					},
					{
						displayName: 'Usable Field Name or ID',
						name: 'usableFieldId',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getUsableFields' },
						default: '',
						description:
							'The custom list field to compare the name with: the list shows the fields of the Custom List IDs set in the configurations. Leave empty to not send it. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
				],
			},
		],
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		options: [
			{
				name: 'One Item per Search',
				value: 'perSearch',
				description:
					'One item per searched name with `matched`, `matchCount` and its `matches` (an empty list when nothing matches)',
			},
			{
				name: 'One Item per Match',
				value: 'perMatch',
				description: 'One item per matching list record; a name without matches outputs no item',
			},
		],
		default: 'perSearch',
		description:
			'Whether a search without matches still outputs an item (One Item per Search), so that the workflow goes on with it',
		// as a tool: one answer per name (an empty `matches` is an answer too); Output there chooses the match fields
		displayOptions: hiddenInToolUse,
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description:
			'Whether to return only ID, name, score, list, screening type, record type and countries of each match instead of the full list record',
		displayOptions: hiddenInToolUse,
	},
	...toolOutputProperties(searchToolOutput),
	optionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['screening'], operation: ['search'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const name = valid<string>(this, i, 'Name', itemParameter(this, 'name', i, ''), (value) =>
				typeof value === 'string' && value.trim().length >= MIN_SEARCH_NAME
					? undefined
					: `must have at least ${MIN_SEARCH_NAME} characters (has ${typeof value === 'string' ? value.trim().length : 0})`,
			);
			const rows = itemParameter(
				this,
				'configurations.configuration',
				i,
				[],
			) as ConfigurationInput[];
			if (!Array.isArray(rows) || rows.length === 0) {
				throw invalid(
					this,
					i,
					'Configurations',
					rows,
					'needs at least one configuration (what to search and how, e.g. Check Type SANCTION)',
				);
			}
			const { configurations, problem } = buildConfigurations(rows);
			if (problem) throw invalid(this, i, problem.field, problem.value, problem.rule);
			return {
				body: {
					name: name.trim(),
					recordEntityType: itemParameter(this, 'recordEntityType', i) as string,
					configurations,
				} as IDataObject,
				simplify: simplifyChosen(this, i, true),
				perSearch:
					runsAsTool(this) || itemParameter(this, 'output', i, 'perSearch') === 'perSearch',
			};
		},
		send: async ({ body, simplify, perSearch }, i) => {
			// A search stores nothing, so repeating it after a timeout or 5xx is safe.
			const results = await amlApiRequest.call(
				this,
				{ method: 'POST', path: '/v2/screening-searches', body, retry: 'safe' },
				i,
			);
			if (!Array.isArray(results)) {
				// Not a list: nothing can be concluded from it, least of all "no match".
				throw unreadableAnswer(this, i, {
					message: 'The AML service answered the screening search without a list of results',
					reason: `Answer: ${JSON.stringify(results ?? null).slice(0, 200)}`,
					retry: 'run the search again',
				});
			}
			const list = (results as IDataObject[]).map((result) =>
				simplify ? simplifySearchResult(result) : result,
			);
			if (!perSearch) return list;
			return {
				name: body.name,
				recordEntityType: body.recordEntityType,
				matched: list.length > 0,
				matchCount: list.length,
				matches: list,
			};
		},
	});
}

export const readOnly = true;

export const toolOutput = searchToolOutput;
