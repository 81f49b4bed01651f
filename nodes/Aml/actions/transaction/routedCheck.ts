import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	checkFailures,
	checkOutcome,
	decisionFields,
	failClosedOrThrow,
} from '../../helpers/checks';
import { optionsCollection } from '../../helpers/descriptions';
import { runItems } from '../../helpers/items';
import { amlRequest, idSegment } from '../../transport';
import { lostAnswerFields } from '../../helpers/answers';
import { BLOCK_OUTPUT, CLEAR_OUTPUT, runsAsTool } from '../outputs';
import type { OperationModule } from '../types';
import { readTransactionId, transactionIdProperty } from './shared';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

/**
 * A real-time check of a stored transaction (monitoring or screening) whose items go
 * to Clear (output 0) or Block (output 1). Fail-closed: a check that could not be completed blocks.
 */
export function routedCheckOperation(options: {
	operation: 'runMonitoringCheck' | 'runScreeningCheck';
	pathSegment: 'monitoring-checks' | 'screening-checks';
	key: 'results' | 'matches';
	notice: string;
}): OperationModule {
	const properties: INodeProperties[] = [
		{ displayName: options.notice, name: 'checkNotice', type: 'notice', default: '' },
		{
			...transactionIdProperty,
			description:
				'ID of the stored transaction to check (create it first). Case-sensitive; allowed characters: a-z, A-Z, 0-9, - _ : .',
		},
		{
			displayName: 'Route to Clear/Block Outputs',
			name: 'routeOutputs',
			type: 'boolean',
			noDataExpression: true,
			default: true,
			description:
				'Whether to send clear transactions to the Clear output and transactions to block to the Block output. Off: one output; read the "decision" field.',
		},
		optionsCollection(),
	];

	return {
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
			return await runItems(this, items, validate, {
				prepare: (i) => readTransactionId(this, i),
				send: async (transactionId, i) => {
					try {
						const response = await amlRequest.call(
							this,
							// Checks may be repeated after a timeout or 5xx.
							{
								method: 'POST',
								path: `/v1/transactions/${idSegment(transactionId)}/${options.pathSegment}`,
								retry: 'safe',
							},
							i,
						);
						const outcome = checkOutcome(response.body, options.key);
						return {
							transactionId,
							...decisionFields(outcome),
							[options.key]: outcome.list,
							alertIds: outcome.alertIds,
							// repeated after a lost answer: the service may have raised its alert twice (README)
							...lostAnswerFields(response),
						};
					} catch (error) {
						return failClosedOrThrow(error, options.key, transactionId);
					}
				},
				outputs: routed ? 2 : 1,
				route: routed
					? (json) => (json.decision === 'clear' ? CLEAR_OUTPUT : BLOCK_OUTPUT)
					: undefined,
				// Failed items say block, and with Continue On Fail leave on Block: never cleared.
				...checkFailures<string>({
					idKey: 'transactionId',
					idOf: (transactionId) => transactionId,
					listKey: options.key,
					errorOutput: routed ? BLOCK_OUTPUT : 0,
					asTool,
				}),
			});
		},
	};
}
