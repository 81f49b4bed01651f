import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	optionsCollection,
	timeBudgetDeadline,
	timeBudgetOption,
} from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import type { ItemValidator } from '../../validation';
import { readTransactionToStore, storeProperties, storeTransaction } from './store';

/** No budget by default: an import waits out the service's rate limits. */
const DEFAULT_BUDGET_MS = 0;

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['create'] } },
	[
		...storeProperties('error'),
		optionsCollection([
			timeBudgetOption(
				DEFAULT_BUDGET_MS,
				'Set it when this node is part of a payment gate; when it is spent the item fails and says whether the transaction may have been stored',
			),
		]),
	],
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	const startedAt = Date.now();
	return await runItems(this, items, validate, {
		prepare: (i) => ({
			transaction: readTransactionToStore(this, i),
			deadline: timeBudgetDeadline(this, i, DEFAULT_BUDGET_MS, startedAt),
		}),
		key: ({ transaction }) => transaction.id,
		send: async ({ transaction, deadline }, i) =>
			(await storeTransaction(this, transaction, i, deadline)).json,
	});
}
