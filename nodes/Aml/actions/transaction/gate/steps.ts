import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { checkOutcome } from '../../../helpers/checks';
import { itemParameter } from '../../../helpers/itemParameter';
import { failureOf, type Deadline, type PollPolicy } from '../../../transport';
import { invalid } from '../../../validation';
import type { CheckKey, CheckPath } from '../routedCheck';
import {
	readTransactionToStore,
	ReusedTransactionId,
	REUSED_ID_REASON,
	type TransactionToStore,
} from '../store';
import type { CheckAnswer, CheckName, Reason } from './rules';

/** The steps of one payment: what the Gate reads from the item and what each request gave. */

export const CHECKS: Array<{
	name: CheckName;
	parameter: string;
	pathSegment: CheckPath;
	key: CheckKey;
}> = [
	{
		name: 'monitoring',
		parameter: 'runMonitoring',
		pathSegment: 'monitoring-checks',
		key: 'results',
	},
	{ name: 'screening', parameter: 'runScreening', pathSegment: 'screening-checks', key: 'matches' },
];
export type Check = (typeof CHECKS)[number];

/** The checks the item enables; none is refused before any request (a gate that checks nothing clears nothing). */
export function enabledChecks(ctx: IExecuteFunctions, i: number): Check[] {
	const checks = CHECKS.filter((check) => itemParameter(ctx, check.parameter, i, true) !== false);
	if (checks.length === 0)
		throw new NodeOperationError(
			ctx.getNode(),
			'Turn on "Run Monitoring Check" or "Run Screening Check" (or both): a Gate with no check enabled cannot clear a payment',
			{ itemIndex: i },
		);
	return checks;
}

/** The item's transaction, refused when its own status is a Release Status (only a status set after a block releases). */
export function readPayment(
	ctx: IExecuteFunctions,
	i: number,
	release: string[],
): TransactionToStore {
	const transaction = readTransactionToStore(ctx, i);
	const status = transaction.attributes.status;
	if (typeof status === 'string' && release.includes(status.trim().toUpperCase()))
		throw invalid(
			ctx,
			i,
			'attributes.status',
			status,
			"is one of the Release Statuses: a payment's own status never releases it (send it under another status, or leave status out)",
		);
	return transaction;
}

/** A failure in a few words for a reason (never a service's body: the item's error says the rest). */
export function shortFailure(error: unknown): string {
	const failure = failureOf(error);
	switch (failure?.kind) {
		case 'budget':
			return 'timeout';
		case 'service':
			return `the service answered ${failure.status}`;
		case 'network':
			return failure.reached === false
				? `could not be reached (${failure.code})`
				: `no answer (${failure.code})`;
		case 'tokenEndpoint':
			return 'no token from the token endpoint';
		case 'unreadable':
			return 'unreadable answer';
		case 'cancelled':
			return 'the execution was cancelled';
		default:
			return ((error as Error).message ?? 'failed').slice(0, 120);
	}
}

/** What a check's settled request gave, as the rules read it. */
export function checkAnswer(
	result: PromiseSettledResult<{ outcome: ReturnType<typeof checkOutcome> }>,
	key: CheckKey,
): CheckAnswer {
	if (result.status === 'fulfilled') {
		const { outcome } = result.value;
		if (outcome.decision === 'clear') return { kind: 'clear' };
		if (outcome.malformed)
			return { kind: 'unknown', alertIds: [], text: 'unreadable answer', timeout: false };
		return { kind: 'hits', alertIds: outcome.alertIds, text: outcome.reason ?? 'alerts raised' };
	}
	const error = result.reason as unknown;
	const failure = failureOf(error);
	const late = failure?.kind === 'budget' ? failure.lateAnswer : undefined;
	// An answer after the budget is not the check's answer, but the alerts it names exist.
	if (late)
		return {
			kind: 'unknown',
			alertIds: checkOutcome(late.body, key).alertIds,
			text: 'timeout',
			timeout: true,
		};
	if (failure?.mayHaveApplied)
		return {
			kind: 'unknown',
			alertIds: [],
			text: shortFailure(error),
			timeout: failure.kind === 'budget',
		};
	return { kind: 'refused', text: shortFailure(error), fails: !failure?.transient };
}

/** A store refused for this transaction's data (unknown person, the ID reused): a block, not a fault. */
const REFUSED_STORE = new Set(['400', '404', '409', '422']);

/**
 * A store that failed: the block's reason (`reached`: it may have been stored, with this run's claim), or the error
 * thrown on (a refused credential, "If Transaction Already Exists" → Error).
 */
export function storeFailure(
	ctx: IExecuteFunctions,
	error: unknown,
	transaction: TransactionToStore,
	i: number,
): { reason: Reason; reached: boolean; differences?: string[] } {
	if (
		transaction.onExisting === 'error' &&
		error instanceof NodeApiError &&
		String(error.httpCode) === '422'
	)
		throw new NodeOperationError(
			ctx.getNode(),
			`Transaction ID "${transaction.id}" is already stored and "If Transaction Already Exists" is set to Error: the payment is not decided`,
			{
				itemIndex: i,
				description:
					'Choose Skip to answer a payment sent again with the decision recorded for it. With Error, the item fails (never clear): On Error set to continue gives it decision "block".',
			},
		);
	if (error instanceof ReusedTransactionId)
		return {
			reason: { code: 'id-reused', text: REUSED_ID_REASON },
			reached: false,
			differences: error.differences,
		};
	const httpCode = error instanceof NodeApiError ? (error.httpCode ?? '') : '';
	if (REFUSED_STORE.has(httpCode))
		return {
			reason: { code: 'store-refused', text: `store refused: ${shortFailure(error)}` },
			reached: false,
		};
	const failure = failureOf(error);
	if (!failure?.transient) throw error;
	return {
		reason:
			failure.kind === 'budget'
				? { code: 'timeout', text: 'timeout' }
				: { code: 'store-failed', text: `store failed: ${shortFailure(error)}` },
		reached: failure.mayHaveApplied !== undefined,
	};
}

/**
 * How a run that found another run's claim without a decision reads again: after 100 ms, doubling, at most 2 s apart,
 * never past the item's time (a 10 s budget reads at most 8 times; without a budget until 15 s have passed).
 */
export function waitPolicy(deadline: Deadline | undefined): PollPolicy {
	return {
		firstMs: 100,
		factor: 2,
		maxMs: 2_000,
		endsAt: deadline ? deadline.at - 50 : Date.now() + 15_000,
	};
}

/** A value as text, upper case ('' for none). */
export const upper = (value: unknown) =>
	typeof value === 'string' ? value.trim().toUpperCase() : '';

/** The steps report of an item: typed statuses, no long texts. */
export type Steps = IDataObject & {
	store?: string;
	record?: IDataObject;
	lookup?: string;
	heldAlert?: IDataObject;
};
