import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { failureOf, quoteServiceText } from '../transport';
import { unreadableAnswer } from './answers';
import type { ItemOperation } from './items';

/**
 * Pieces shared by the check operations of persons and transactions (monitoring checks, screening
 * checks).
 */

export type Decision = 'clear' | 'block';

/** What a monitoring check (`results`) or screening check (`matches`) answered, and what it means. */
export interface CheckOutcome {
	decision: Decision;
	/** Why the decision is block (absent for clear). */
	reason?: string;
	list: IDataObject[];
	alertIds: number[];
	/** The answer had no `results` / `matches` list: nothing can be concluded from it. */
	malformed: boolean;
}

/**
 * The one reading of a check's answer. Only an answer whose list is present and empty is clear; a non-empty list
 * blocks (the service's rule), and so does an answer without the list (an empty body, an HTML page, an object
 * without the array): a check whose answer cannot be read has not shown the transaction to be safe.
 */
export function checkOutcome(answer: unknown, key: 'results' | 'matches'): CheckOutcome {
	const value =
		answer !== null && typeof answer === 'object' && !Array.isArray(answer)
			? (answer as IDataObject)[key]
			: undefined;
	if (!Array.isArray(value)) {
		const shown = shortAnswer(answer);
		return {
			decision: 'block',
			reason: `check answer not understood: the service answered ${shown} without a "${key}" list`,
			list: [],
			alertIds: [],
			malformed: true,
		};
	}
	const list = value as IDataObject[];
	if (list.length === 0) return { decision: 'clear', list, alertIds: [], malformed: false };
	const reason =
		key === 'results'
			? `${list.length} monitoring scenario(s) triggered`
			: `${list.length} screening match(es)`;
	return { decision: 'block', reason, list, alertIds: alertIdsOf(list), malformed: false };
}

/** An answer as quoted in a reason: "an empty answer", or its first 120 characters in quotes. */
export function shortAnswer(answer: unknown): string {
	return answer === undefined || answer === null || answer === ''
		? 'an empty answer'
		: `"${shortText(answer)}"`;
}

/** The decision fields of an item: `decision`, and `reason` when it blocks. */
export function decisionFields(outcome: { decision: Decision; reason?: string }): IDataObject {
	return outcome.reason
		? { decision: outcome.decision, reason: outcome.reason }
		: { decision: outcome.decision };
}

function shortText(answer: unknown): string {
	const text =
		typeof answer === 'string'
			? answer
			: Buffer.isBuffer(answer)
				? answer.toString('utf8')
				: JSON.stringify(answer);
	return quoteServiceText(text, 120);
}

/**
 * A person check's answer as a list: a person check routes nothing, so an answer without the list fails the item
 * (NodeApiError) instead of reporting "no alert".
 */
export function checkListOrThrow(
	ctx: IExecuteFunctions,
	answer: unknown,
	key: 'results' | 'matches',
	itemIndex: number,
): CheckOutcome {
	const outcome = checkOutcome(answer, key);
	if (outcome.malformed) {
		throw unreadableAnswer(ctx, itemIndex, {
			message: `The AML service's ${key === 'results' ? 'monitoring' : 'screening'} check answer could not be read`,
			reason: outcome.reason ?? '',
			retry: "run the check again or ask the service's operator",
		});
	}
	return outcome;
}

/** Alert IDs named by monitoring results or screening matches, without repeats. */
export function alertIdsOf(list: IDataObject[]): number[] {
	const ids = list
		.map((entry) => (entry !== null && typeof entry === 'object' ? entry.alertId : undefined))
		.filter((id): id is number => typeof id === 'number');
	return [...new Set(ids)];
}

/** The reason of a block because the item's time budget was spent. */
export const TIMEOUT_REASON = 'timeout';

/**
 * Why a check that could not be completed blocks: `timeout` when the time budget was spent, `check outcome unknown`
 * when an attempt reached the service without an answer (the check may have run and raised its alert: it is not
 * repeated), else the error's message (never a secret: errors are built clean).
 */
export function failedReason(error: unknown): string {
	const failure = failureOf(error);
	if (failure?.kind === 'budget') return TIMEOUT_REASON;
	const message = (error as { message?: string }).message ?? 'no answer';
	return failure?.mayHaveApplied ? `check outcome unknown: ${message}` : `check failed: ${message}`;
}

/** `{ mayHaveApplied: true }` when an attempt of the failed request reached the service without an answer. */
export function mayHaveAppliedFields(error: unknown): IDataObject {
	return failureOf(error)?.mayHaveApplied ? { mayHaveApplied: true } : {};
}

/**
 * Fail-closed: when the check itself could not be completed (5xx, 429 after retries, timeout, dropped
 * connection, a busy or unreachable token endpoint) the transaction's safety is unknown, so the decision is "block"
 * with the reason. Other errors (400, 403, 404, a refused credential, bad input) are returned as undefined: the caller
 * throws them, and `checkFailures` gives their items the same decision.
 */
export function failClosed(
	error: unknown,
	key: 'results' | 'matches',
	transactionId: string,
): IDataObject | undefined {
	if (!failureOf(error)?.transient) return undefined;
	const apiError = error as { httpCode?: string; description?: string | null };
	const json: IDataObject = {
		transactionId,
		decision: 'block',
		reason: failedReason(error),
		...mayHaveAppliedFields(error),
		[key]: [],
		alertIds: [],
	};
	if (apiError.httpCode) json.httpCode = apiError.httpCode;
	if (apiError.description) json.errorDescription = apiError.description;
	return json;
}

/** The fail-closed decision for a check that could not be completed; any other error is thrown on. */
export function failClosedOrThrow(
	error: unknown,
	key: 'results' | 'matches',
	transactionId: string,
): IDataObject {
	const blocked = failClosed(error, key, transactionId);
	if (blocked) return blocked;
	throw error;
}

/**
 * How every check operation (monitoring and screening checks, Has Unresolved Alerts) outputs an item that failed: it
 * carries `decision: "block"` and the reason wherever it goes, so that a downstream test of `decision` never lets it
 * through. With Continue On Fail it goes to `errorOutput` (Block when routed), with "Continue (using error output)" to
 * n8n's error output, and as an AI tool it is answered instead of failing the call (the agent must read the block).
 */
export function checkFailures<P>(options: {
	/** The output field of the checked ID and how to read it from the prepared item. */
	idKey: string;
	idOf: (prepared: P) => string;
	/** The list a check answers (empty on a failure), if any. */
	listKey?: 'results' | 'matches';
	errorOutput?: number;
	asTool: boolean;
}): Pick<ItemOperation<P>, 'failed' | 'errorOutput' | 'answerFailures'> {
	return {
		failed: (error, _itemIndex, prepared) => ({
			...(prepared === undefined ? {} : { [options.idKey]: options.idOf(prepared) }),
			decision: 'block',
			reason: failedReason(error),
			...mayHaveAppliedFields(error),
			...(options.listKey ? { [options.listKey]: [], alertIds: [] } : {}),
		}),
		errorOutput: options.errorOutput,
		answerFailures: options.asTool,
	};
}
