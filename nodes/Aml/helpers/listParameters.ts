import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { walkPages, type Paged } from '../transport';
import { itemParameter } from './itemParameter';

/**
 * The parameters of list operations (Return All, Limit, Direction) and the reading of the pages they ask for, through
 * the transport's `walkPages`.
 */

/** Return All / Limit, as every n8n list operation has them. */
export const pagingProperties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** Sort direction of lists that take an Order By (person search, transactions of a person). */
export const sortDirectionProperty: INodeProperties = {
	displayName: 'Sort Direction',
	name: 'direction',
	type: 'options',
	options: [
		{ name: 'Ascending', value: 'ASC' },
		{ name: 'Descending', value: 'DESC' },
	],
	default: 'ASC',
	description: 'Sort direction (used with Order By)',
};

/**
 * Reads Return All / Limit for one item, walks the pages and adds an execution hint when the
 * service's 10,000-result cap cut the result.
 */
export async function readAllPages(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fetchPage: (page: number, size: number) => Promise<Paged<IDataObject>>,
	walkOptions: { cap?: number } = {},
): Promise<IDataObject[]> {
	const returnAll = itemParameter(ctx, 'returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (itemParameter(ctx, 'limit', itemIndex, 50) as number);
	const parallel = itemParameter(ctx, 'options.parallelRequests', 0, 4) as number;
	const walk = await walkPages(fetchPage, {
		returnAll,
		limit,
		concurrency: parallel,
		cap: walkOptions.cap,
	});
	if (walk.capped) {
		ctx.addExecutionHints({
			message: `The service reports at most 10,000 results and cannot page past them: ${walk.items.length} of ${walk.total}+ results were returned. Narrow the search (filters, query) to reach the rest.`,
			location: 'outputPane',
		});
	}
	return walk.items;
}
