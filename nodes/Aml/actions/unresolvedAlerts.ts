import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deprecationNotice, optionsCollection } from '../helpers/descriptions';
import { itemId } from '../helpers/itemParameter';
import { runItems } from '../helpers/items';
import { amlApiRequest, failureOf, idSegment, type Deadline } from '../transport';
import { unreadableAnswer } from '../helpers/answers';
import { checkFailures, decisionFields, shortAnswer, TIMEOUT_REASON } from '../helpers/checks';
import { runsAsTool } from './outputs';
import type { ItemValidator } from '../validation';
import type { OperationModule } from './types';

/**
 * The deprecated "has unresolved alerts" look-up of persons or transactions: one
 * GET per item, answered `{hasUnresolvedAlerts}`.
 */
export function unresolvedAlertsOperation(options: {
	resource: 'person' | 'transaction';
	/** The ID parameter (one property, or one per node version) and its label in errors. */
	idProperties: INodeProperties[];
	idLabel: string;
	/** Path of the collection, e.g. `/v1/persons`. */
	collectionPath: string;
	/** Output key of the id, e.g. `personId`. */
	outputKey: string;
}): OperationModule {
	const properties: INodeProperties[] = [
		deprecationNotice(
			'The service marks this endpoint deprecated: decision rules configured in its web UI can push the same answer to an AML Trigger (PERSON / TRANSACTION decision events). This operation asks on demand.',
		),
		...options.idProperties,
		optionsCollection(),
	];
	return {
		readOnly: true,
		decides: true,
		description: updateDisplayOptions(
			{ show: { resource: [options.resource], operation: ['hasUnresolvedAlerts'] } },
			properties,
		),
		async execute(
			this: IExecuteFunctions,
			items: INodeExecutionData[],
			validate: ItemValidator,
		): Promise<INodeExecutionData[][]> {
			return await runItems(this, items, validate, {
				prepare: (i) => itemId(this, options.idProperties[0].name, i, options.idLabel),
				send: async (id, i) => {
					const has = await hasUnresolvedAlerts(
						this,
						`${options.collectionPath}/${idSegment(id)}`,
						i,
					);
					return {
						[options.outputKey]: id,
						...decisionFields({
							decision: has ? 'block' : 'clear',
							reason: has ? 'unresolved alerts' : undefined,
						}),
						hasUnresolvedAlerts: has,
					};
				},
				...checkFailures<string>({
					idKey: options.outputKey,
					idOf: (id) => id,
					asTool: runsAsTool(this),
				}),
			});
		},
	};
}

/**
 * Whether the person or transaction at `entityPath` (e.g. `/v1/transactions/tx-1`) has unresolved alerts. An answer
 * without the flag fails: `null` would read as "no alerts".
 */
export async function hasUnresolvedAlerts(
	ctx: IExecuteFunctions,
	entityPath: string,
	itemIndex: number,
	deadline?: Deadline,
): Promise<boolean> {
	const answer = await amlApiRequest.call(
		ctx,
		{ method: 'GET', path: `${entityPath}/unresolved-alerts`, deadline },
		itemIndex,
	);
	const has = (answer as IDataObject | undefined)?.hasUnresolvedAlerts;
	if (typeof has !== 'boolean') {
		throw unreadableAnswer(ctx, itemIndex, {
			message: "The AML service's unresolved-alerts answer could not be read",
			reason: `the service answered ${shortAnswer(answer)} without a "hasUnresolvedAlerts" flag`,
			retry: "run it again or ask the service's operator",
		});
	}
	return has;
}

/** The reason of a block because the transaction has open alerts. */
export const EARLIER_ALERTS_REASON = 'earlier alerts unresolved';

/**
 * The open-alerts lookup of a transaction as a step of a decision (the Gate, a routed check): `reason` when it
 * blocks, `step` for the item's report. It never fails the item: an answer it cannot get or read leaves the
 * payment's safety unknown, so it blocks with `earlier alerts unknown: …` (`timeout` when the budget was spent).
 */
export async function earlierAlerts(
	ctx: IExecuteFunctions,
	transactionId: string,
	itemIndex: number,
	deadline?: Deadline,
): Promise<{ reason?: string; step: IDataObject }> {
	try {
		const has = await hasUnresolvedAlerts(
			ctx,
			`/v1/transactions/${idSegment(transactionId)}`,
			itemIndex,
			deadline,
		);
		return has
			? { reason: EARLIER_ALERTS_REASON, step: { status: 'open' } }
			: { step: { status: 'none' } };
	} catch (error) {
		const httpCode = (error as { httpCode?: string | null }).httpCode ?? undefined;
		const message = (error as Error).message;
		if (failureOf(error)?.kind === 'budget')
			return { reason: TIMEOUT_REASON, step: { status: TIMEOUT_REASON, message } };
		return {
			reason: `earlier alerts unknown: ${message}`,
			step: { status: 'failed', message, ...(httpCode ? { httpCode } : {}) },
		};
	}
}
