import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	checkFailures,
	checkOutcome,
	decisionFields,
	failClosedOrThrow,
} from '../../helpers/checks';
import {
	optionsCollection,
	timeBudgetDeadline,
	timeBudgetOption,
} from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlRequest, idSegment, type Deadline } from '../../transport';
import { BLOCK_OUTPUT, CLEAR_OUTPUT, runsAsTool } from '../outputs';
import type { OperationModule } from '../types';
import { readTransactionId, transactionIdProperty } from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import { earlierAlerts } from '../unresolvedAlerts';
import type { ItemValidator } from '../../validation';

/** A payment system waits a few seconds for its gate: 10 s leaves room for a retry and still answers first. */
export const CHECK_BUDGET_MS = 10_000;

export type CheckKey = 'results' | 'matches';
export type CheckPath = 'monitoring-checks' | 'screening-checks';

/** One real-time check of a stored transaction: the item's decision fields, the list and the alert IDs. */
export async function transactionCheck(
	ctx: IExecuteFunctions,
	transactionId: string,
	check: { pathSegment: CheckPath; key: CheckKey },
	i: number,
	deadline?: Deadline,
) {
	const response = await amlRequest.call(
		ctx,
		{
			method: 'POST',
			path: `/v1/transactions/${idSegment(transactionId)}/${check.pathSegment}`,
			retry: 'check',
			deadline,
		},
		i,
	);
	const outcome = checkOutcome(response.body, check.key);
	return {
		outcome,
		json: {
			transactionId,
			...decisionFields(outcome),
			[check.key]: outcome.list,
			alertIds: outcome.alertIds,
		},
	};
}

/** The Time Budget option of a transaction check. */
export const checkBudgetOption = timeBudgetOption(
	CHECK_BUDGET_MS,
	'When it is spent the transaction goes to Block with reason "timeout"',
);

/** Route to Clear/Block Outputs: shared by the check operations and the Gate (actions/outputs.ts reads it). */
export const routeOutputsProperty: INodeProperties = {
	displayName: 'Route to Clear/Block Outputs',
	name: 'routeOutputs',
	type: 'boolean',
	noDataExpression: true,
	default: true,
	description:
		'Whether blocked transactions leave on the Block output (the first) and cleared ones on the Clear output. Off: one output; read the "decision" field.',
};

/**
 * A real-time check of a stored transaction (monitoring or screening) whose items go to Block (output 0) or Clear
 * (output 1; actions/outputs.ts). Fail-closed: a check that could not be completed blocks.
 */
export function routedCheckOperation(options: {
	operation: 'runMonitoringCheck' | 'runScreeningCheck';
	pathSegment: CheckPath;
	key: CheckKey;
	notice: string;
}): OperationModule {
	const properties: INodeProperties[] = [
		{ displayName: options.notice, name: 'checkNotice', type: 'notice', default: '' },
		{
			...transactionIdProperty,
			description:
				'ID of the stored transaction to check (create it first). Case-sensitive; allowed characters: a-z, A-Z, 0-9, - _ : .',
		},
		routeOutputsProperty,
		optionsCollection([checkBudgetOption]),
	];

	return {
		decides: true,
		description: updateDisplayOptions(
			{ show: { resource: ['transaction'], operation: [options.operation] } },
			properties,
		),
		async execute(
			this: IExecuteFunctions,
			items: INodeExecutionData[],
			validate: ItemValidator,
		): Promise<INodeExecutionData[][]> {
			// As an AI tool one output: the item's `decision` says clear or block (a blocked payment must reach the agent).
			const asTool = runsAsTool(this);
			const routed = !asTool && itemParameter(this, 'routeOutputs', 0, true) !== false;
			const startedAt = Date.now();
			return await runItems(this, items, validate, {
				prepare: (i) => ({
					transactionId: readTransactionId(this, i),
					deadline: timeBudgetDeadline(this, i, CHECK_BUDGET_MS, startedAt),
				}),
				key: ({ transactionId }) => transactionId,
				send: async ({ transactionId, deadline }, i) => {
					let checked;
					try {
						checked = await transactionCheck(this, transactionId, options, i, deadline);
					} catch (error) {
						return failClosedOrThrow(error, options.key, transactionId);
					}
					if (checked.outcome.decision !== 'clear') return checked.json;
					// An empty answer says only that this check raised no new alert: it clears once no alert of the
					// transaction is open (an earlier check's, or one raised meanwhile).
					const earlier = await earlierAlerts(this, transactionId, i, deadline);
					return earlier.reason === undefined
						? checked.json
						: {
								...checked.json,
								decision: 'block',
								reason: earlier.reason,
								unresolvedAlerts: earlier.step,
							};
				},
				outputs: routed ? 2 : 1,
				route: routed
					? (json) => (json.decision === 'clear' ? CLEAR_OUTPUT : BLOCK_OUTPUT)
					: undefined,
				// Failed items say block, and with Continue On Fail leave on Block: never cleared.
				...checkFailures<{ transactionId: string }>({
					idKey: 'transactionId',
					idOf: ({ transactionId }) => transactionId,
					listKey: options.key,
					errorOutput: routed ? BLOCK_OUTPUT : 0,
					asTool,
				}),
			});
		},
	};
}
