import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { OperationModule } from '../actions/types';
import { amlApiRequest, isTransientFailure, seg } from '../transport';
import { checkId } from '../validation';
import { itemParameter } from './itemParameter';
import { requestOptions, runItems } from './items';

/**
 * Pieces shared by the check operations of persons and transactions (monitoring checks, screening
 * checks, the deprecated unresolved-alerts look-up).
 */

export type Decision = 'clear' | 'block';

/** `results` of a monitoring check or `matches` of a screening check; anything but an array counts as empty. */
export function listOf(answer: unknown, key: 'results' | 'matches'): IDataObject[] {
	const value = answer !== null && typeof answer === 'object' ? (answer as IDataObject)[key] : undefined;
	return Array.isArray(value) ? (value as IDataObject[]) : [];
}

/** The spec: a non-empty list of results or matches means the transaction is to be blocked. */
export function decisionOf(list: unknown[]): Decision {
	return list.length > 0 ? 'block' : 'clear';
}

/** Alert IDs named by monitoring results or screening matches, without repeats. */
export function alertIdsOf(list: IDataObject[]): number[] {
	const ids = list.map((entry) => entry.alertId).filter((id): id is number => typeof id === 'number');
	return [...new Set(ids)];
}

/**
 * Fail-closed: when the check itself could not be completed (5xx, 429 after retries, timeout, dropped
 * connection) the transaction's safety is unknown, so the decision is "block" with the reason. Other
 * errors (400, 403, 404, bad input) are returned as undefined: the caller throws them.
 */
export function failClosed(error: unknown, key: 'results' | 'matches', transactionId: string): IDataObject | undefined {
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
export function failClosedOrThrow(error: unknown, key: 'results' | 'matches', transactionId: string): IDataObject {
	const blocked = failClosed(error, key, transactionId);
	if (blocked) return blocked;
	throw error;
}

export const deprecationNotice = (replacement: string): INodeProperties => ({
	displayName: `Deprecated by the AML service. ${replacement}`,
	name: 'deprecatedNotice',
	type: 'notice',
	default: '',
});

/**
 * The deprecated "has unresolved alerts" look-up (operation 31) of persons or transactions: one
 * GET per item, answered `{hasUnresolvedAlerts}`.
 */
export function unresolvedAlertsOperation(options: {
	resource: 'person' | 'transaction';
	idProperty: INodeProperties;
	idLabel: string;
	/** Path of the collection, e.g. `/v1/persons`. */
	collectionPath: string;
	/** Output key of the id, e.g. `personId`. */
	outputKey: string;
}): OperationModule {
	const properties: INodeProperties[] = [
		deprecationNotice(
			'Decision rules configured in the AML web UI replace this check; their results arrive through the AML Trigger (PERSON / TRANSACTION decision events).',
		),
		options.idProperty,
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [...requestOptions],
		},
	];
	return {
		description: updateDisplayOptions(
			{ show: { resource: [options.resource], operation: ['hasUnresolvedAlerts'] } },
			properties,
		),
		async execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
			return await runItems(this, items, {
				prepare: (i) => checkId(this, i, options.idLabel, itemParameter(this, options.idProperty.name, i)),
				send: async (id, i) => {
					const answer = (await amlApiRequest.call(
						this,
						{ method: 'GET', path: `${options.collectionPath}/${seg(id)}/unresolved-alerts` },
						i,
					)) as IDataObject | undefined;
					return { [options.outputKey]: id, hasUnresolvedAlerts: answer?.hasUnresolvedAlerts ?? null };
				},
			});
		},
	};
}
