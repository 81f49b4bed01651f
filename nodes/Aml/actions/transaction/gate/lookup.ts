import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { amlApiRequest, failureOf, idSegment, type Deadline } from '../../../transport';
import { hasUnresolvedAlerts } from '../../unresolvedAlerts';
import { REASONS, type LookupAnswer } from './rules';

/**
 * The lookups beside a decision: the payment's open alerts (after its checks: an alert another checker raised
 * meanwhile is open by then), and the person's (started beside the checks: no round trip of its own).
 */

/** A failed lookup as the rules read it (`timeout` when the budget was spent). */
function failed(error: unknown): LookupAnswer {
	return {
		kind: 'failed',
		text: (error as Error).message,
		timeout: failureOf(error)?.kind === 'budget',
	};
}

/** Whether the payment has an open alert (the service's unresolved-alerts answer). */
export async function paymentAlerts(
	ctx: IExecuteFunctions,
	transactionId: string,
	i: number,
	deadline?: Deadline,
): Promise<LookupAnswer> {
	try {
		const open = await hasUnresolvedAlerts(
			ctx,
			`/v1/transactions/${idSegment(transactionId)}`,
			i,
			deadline,
		);
		return open ? { kind: 'open', reason: REASONS.alertsOpen } : { kind: 'none' };
	} catch (error) {
		return failed(error);
	}
}

export interface PersonHold {
	/** Person statuses that hold every payment of the person (upper case). */
	statuses: string[];
	/** Hold a payment while the person has an open alert. */
	openAlerts: boolean;
}

/** Whether the person's status or open alerts hold the payment: the person read and its open-alerts answer. */
export async function personHolds(
	ctx: IExecuteFunctions,
	personId: string,
	hold: PersonHold,
	i: number,
	deadline?: Deadline,
): Promise<LookupAnswer> {
	const path = `/v1/persons/${idSegment(personId)}`;
	try {
		const [person, open] = await Promise.all([
			hold.statuses.length
				? (amlApiRequest.call(ctx, { method: 'GET', path, deadline }, i) as Promise<IDataObject>)
				: Promise.resolve({} as IDataObject),
			hold.openAlerts ? hasUnresolvedAlerts(ctx, path, i, deadline) : Promise.resolve(false),
		]);
		const status = typeof person?.status === 'string' ? person.status.toUpperCase() : '';
		if (status && hold.statuses.includes(status))
			return {
				kind: 'open',
				reason: { code: 'person-held', text: `the person's status is ${status}` },
			};
		if (open)
			return {
				kind: 'open',
				reason: { code: 'person-held', text: 'alerts of the person are open' },
			};
		return { kind: 'none' };
	} catch (error) {
		return failed(error);
	}
}

/** Both lookups as one answer: the payment's first, then the person's. */
export function firstHold(payment: LookupAnswer, person: LookupAnswer | undefined): LookupAnswer {
	if (payment.kind !== 'none') return payment;
	return person ?? payment;
}

/** The payment's open alerts and the person's holds side by side (a recorded decision's lookup), as one answer. */
export async function bothHolds(
	ctx: IExecuteFunctions,
	payment: { id: string; personId: string },
	hold: PersonHold,
	i: number,
	deadline?: Deadline,
): Promise<LookupAnswer> {
	const [open, person] = await Promise.all([
		paymentAlerts(ctx, payment.id, i, deadline),
		personHolds(ctx, payment.personId, hold, i, deadline),
	]);
	return firstHold(open, person);
}
