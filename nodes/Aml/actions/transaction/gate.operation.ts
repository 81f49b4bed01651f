import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	checkFailures,
	failedReason,
	mayHaveAppliedFields,
	TIMEOUT_REASON,
} from '../../helpers/checks';
import { optionsCollection, timeBudgetMs } from '../../helpers/descriptions';
import { itemParameter } from '../../helpers/itemParameter';
import { runItems } from '../../helpers/items';
import { deadlineIn, idSegment, isBudgetSpent, isTransientFailure } from '../../transport';
import { hasUnresolvedAlerts } from '../unresolvedAlerts';
import type { ItemValidator } from '../../validation';
import { BLOCK_OUTPUT, CLEAR_OUTPUT, runsAsTool } from '../outputs';
import {
	CHECK_BUDGET_MS,
	checkBudgetOption,
	routeOutputsProperty,
	transactionCheck,
	type CheckKey,
	type CheckPath,
} from './routedCheck';
import {
	readTransactionToStore,
	ReusedTransactionId,
	REUSED_ID_REASON,
	storeProperties,
	storeTransaction,
} from './store';

/**
 * Transaction → Gate: a payment decision in one node. Stores the transaction, then sends the monitoring and the
 * screening check side by side. Clear only when (a) the transaction is stored with this payment's data, (b) every
 * enabled check answered a present, empty list from the only attempt that may have run, (c) at least one check is
 * enabled and (d) all of it within the time budget. Anything else blocks, and `reason` says which failed.
 */

const CHECKS: Array<{
	step: 'monitoring' | 'screening';
	parameter: string;
	pathSegment: CheckPath;
	key: CheckKey;
}> = [
	{
		step: 'monitoring',
		parameter: 'runMonitoring',
		pathSegment: 'monitoring-checks',
		key: 'results',
	},
	{ step: 'screening', parameter: 'runScreening', pathSegment: 'screening-checks', key: 'matches' },
];

/** The reason of a payment stored before whose earlier alerts are still open. */
const EARLIER_ALERTS_REASON = 'earlier alerts unresolved';

/** A store refused for this transaction's data (unknown person, an existing ID with Error): a block, not a fault. */
const REFUSED_STORE = new Set(['400', '404', '409', '422']);

const properties: INodeProperties[] = [
	{
		displayName:
			"Clear only when the transaction is stored with this payment's data and every enabled check found nothing, in time. Hits, matches, a check whose answer was lost, a payment ID used with other data, a refused store and a spent time budget block. Keep Settings → Always Output Data and Retry On Fail off: the node refuses to run with them.",
		name: 'gateNotice',
		type: 'notice',
		default: '',
	},
	...storeProperties('skip'),
	{
		displayName: 'Run Monitoring Check',
		name: 'runMonitoring',
		type: 'boolean',
		default: true,
		description: "Whether to run the service's real-time monitoring scenarios on the transaction",
	},
	{
		displayName: 'Run Screening Check',
		name: 'runScreening',
		type: 'boolean',
		default: true,
		description: 'Whether to screen the transaction against the screening lists',
	},
	routeOutputsProperty,
	optionsCollection([checkBudgetOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['gate'] } },
	properties,
);

/** What a failed step reports: `timeout` or the failure, and whether its request may have been applied. */
function failedStep(error: unknown): IDataObject {
	return {
		status: isBudgetSpent(error) ? TIMEOUT_REASON : 'failed',
		reason: failedReason(error),
		message: (error as Error).message,
		...mayHaveAppliedFields(error),
	};
}

/** A store that failed or was refused: the step to report, or the error thrown on (a refused credential, bad input). */
function storeFailureOrThrow(error: unknown): IDataObject {
	if (error instanceof ReusedTransactionId) {
		return { status: 'refused', reason: REUSED_ID_REASON, differences: error.differences };
	}
	const httpCode = (error as NodeApiError).httpCode ?? undefined;
	if (error instanceof NodeApiError && httpCode && REFUSED_STORE.has(httpCode)) {
		return { status: 'refused', reason: `store refused: ${error.message}`, httpCode };
	}
	if (!isTransientFailure(error)) throw error;
	const step = failedStep(error);
	if (step.status !== TIMEOUT_REASON) step.reason = `store failed: ${step.message as string}`;
	return step;
}

/** The checks the item enables; none enabled is refused before any request (a gate that checks nothing clears nothing). */
function enabledChecks(ctx: IExecuteFunctions, i: number) {
	const checks = CHECKS.filter((check) => itemParameter(ctx, check.parameter, i, true) !== false);
	if (checks.length === 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Turn on "Run Monitoring Check" or "Run Screening Check" (or both): a Gate with no check enabled cannot clear a payment',
			{ itemIndex: i },
		);
	}
	return checks;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	const asTool = runsAsTool(this);
	const routed = !asTool && itemParameter(this, 'routeOutputs', 0, true) !== false;
	return await runItems(this, items, validate, {
		prepare: (i) => ({
			transaction: readTransactionToStore(this, i),
			checks: enabledChecks(this, i),
			budgetMs: timeBudgetMs(this, i, CHECK_BUDGET_MS),
		}),
		key: ({ transaction }) => transaction.id,
		send: async ({ transaction, checks, budgetMs }, i) => {
			const deadline = deadlineIn(budgetMs);
			const transactionId = transaction.id;
			const reasons: IDataObject = {};
			const block = (reason: string, more: IDataObject = {}): IDataObject => ({
				transactionId,
				personId: transaction.personId,
				decision: 'block',
				reason,
				reasons,
				alertIds: [],
				...more,
			});

			try {
				const stored = await storeTransaction(this, transaction, i, deadline);
				reasons.store = {
					status: stored.result,
					...(stored.afterLostAnswer ? { afterLostAnswer: true } : {}),
				};
				// Stored before (a payment sent again, or a lost answer): its checks may have run already and raised
				// alerts, which a repeated check does not report again. An alert still open on it blocks.
				if (
					stored.result !== 'created' &&
					(await hasUnresolvedAlerts(
						this,
						`/v1/transactions/${idSegment(transactionId)}`,
						i,
						deadline,
					))
				) {
					(reasons.store as IDataObject).unresolvedAlerts = true;
					for (const check of CHECKS) reasons[check.step] = { status: 'not sent' };
					return block(EARLIER_ALERTS_REASON);
				}
			} catch (error) {
				// Not stored (or not known to be): no check is sent.
				const step = storeFailureOrThrow(error);
				reasons.store = step;
				for (const check of CHECKS) reasons[check.step] = { status: 'not sent' };
				return block(step.reason as string);
			}

			// Side by side: the gate takes as long as the slower check, not the sum.
			const answers = await Promise.all(
				checks.map(async (check) => {
					try {
						const { outcome } = await transactionCheck(this, transactionId, check, i, deadline);
						return {
							check,
							outcome,
							step: {
								status: outcome.decision,
								...(outcome.reason ? { reason: outcome.reason } : {}),
							} as IDataObject,
						};
					} catch (error) {
						return { check, step: failedStep(error) };
					}
				}),
			);
			const json: IDataObject = { transactionId, personId: transaction.personId };
			const alertIds = new Set<number>();
			let reason: string | undefined;
			for (const check of CHECKS) {
				const answer = answers.find((entry) => entry.check === check);
				if (!answer) {
					reasons[check.step] = { status: 'off' };
					continue;
				}
				reasons[check.step] = answer.step;
				json[check.key] = answer.outcome?.list ?? [];
				for (const id of answer.outcome?.alertIds ?? []) alertIds.add(id);
				if (answer.step.status !== 'clear') reason ??= answer.step.reason as string;
			}
			return {
				...json,
				decision: reason === undefined ? 'clear' : 'block',
				...(reason === undefined ? {} : { reason }),
				reasons,
				alertIds: [...alertIds],
			};
		},
		outputs: routed ? 2 : 1,
		route: routed ? (json) => (json.decision === 'clear' ? CLEAR_OUTPUT : BLOCK_OUTPUT) : undefined,
		...checkFailures<{ transaction: { id: string } }>({
			idKey: 'transactionId',
			idOf: (prepared) => prepared.transaction.id,
			errorOutput: routed ? BLOCK_OUTPUT : 0,
			asTool,
		}),
	});
}

/** Its items carry `decision`. */
export const decides = true;
