import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isTransientFailure } from '../transport';
import { unreadableAnswer } from './answers';

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
		const shown =
			answer === undefined || answer === null || answer === ''
				? 'an empty answer'
				: `"${shortText(answer)}"`;
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

function shortText(answer: unknown): string {
	const text =
		typeof answer === 'string'
			? answer
			: Buffer.isBuffer(answer)
				? answer.toString('utf8')
				: JSON.stringify(answer);
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
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
		.map((entry) => entry.alertId)
		.filter((id): id is number => typeof id === 'number');
	return [...new Set(ids)];
}

/**
 * Fail-closed: when the check itself could not be completed (5xx, 429 after retries, timeout, dropped
 * connection) the transaction's safety is unknown, so the decision is "block" with the reason. Other
 * errors (400, 403, 404, bad input) are returned as undefined: the caller throws them.
 */
export function failClosed(
	error: unknown,
	key: 'results' | 'matches',
	transactionId: string,
): IDataObject | undefined {
	if (!isTransientFailure(error)) return undefined;
	const apiError = error as { message?: string; httpCode?: string; description?: string | null };
	const json: IDataObject = {
		transactionId,
		decision: 'block',
		reason: `check failed: ${apiError.message ?? 'no answer'}`,
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
