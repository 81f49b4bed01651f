import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { amlRequest, failureOf } from '../../../transport';
import {
	addRecord,
	decisionAttribute,
	decisionKey,
	RECORD_MS,
	stalledKey,
	type SigningKeys,
} from './record';
import { REASONS, type HeldAlert, type Reason, type RecordedDecision } from './rules';

/**
 * The manual alert that puts a held payment in the analysts' queue: raised for a block that stands as the payment's
 * decision and that no check raised an alert for, by the run that decided it (once per decision), after the block is
 * answered (a claim without a decision holds every other copy meanwhile). Closing it runs the account's decision
 * rules like any alert. One that could not be raised is logged as a warning and kept in the decision record, so a
 * resend's item says why.
 */

/** The comment of the alert: why the payment is held and how to release it (at most 1,000 characters). */
export function heldComment(reason: Reason, releaseStatus = 'RELEASED'): string {
	return `Payment held by the n8n AML Gate (${reason.code}): ${reason.text}. Review the transaction, then close this alert and set the transaction's status to ${releaseStatus} (a decision rule can do that when the alert closes): sent again, the payment is checked again where its checks did not all answer, and clears once no alert of it is open.`.slice(
		0,
		1000,
	);
}

export async function raiseHeldAlert(
	ctx: IExecuteFunctions,
	payment: { id: string; personId: string },
	reason: Reason,
	releaseStatus: string | undefined,
	i: number,
): Promise<HeldAlert> {
	try {
		const response = await amlRequest.call(
			ctx,
			{
				method: 'POST',
				path: '/v1/manual-alerts',
				body: {
					personId: payment.personId,
					transactionId: payment.id,
					rationale: 'OTHER',
					rationaleComment: heldComment(reason, releaseStatus),
				},
				// A repeat after a lost answer could raise it twice.
				retry: 'none',
				deadline: { at: Date.now() + RECORD_MS, ms: RECORD_MS },
				answer: { fields: ['id'] },
			},
			i,
		);
		const id = (response.body as IDataObject).id;
		return typeof id === 'number'
			? { status: 'raised', alertId: id }
			: { status: 'not raised', reason: 'the answer named no alert ID' };
	} catch (error) {
		const failure = failureOf(error);
		const forbidden = failure?.kind === 'service' && failure.status === 403;
		const reason = forbidden
			? 'the credential may not raise manual alerts (403: credentials created before 16 May 2023 cannot; create a new pair)'
			: (error as Error).message;
		ctx.logger?.warn(`AML Gate: payment ${payment.id} is held without its manual alert: ${reason}`);
		return { status: 'not raised', reason };
	}
}

/**
 * A copy whose whole wait ended with another run's claim still without a decision (that run stopped, was cancelled or
 * lost its record write, or is slower than the copy's budget) puts the payment in the analysts' queue: it adds its mark
 * for that claim, and the copy whose mark the service keeps raises the alert, so one alert per stalled claim. Off the
 * answer's path; a failure leaves the payment blocked as it is.
 */
export async function raiseStalledAlert(
	ctx: IExecuteFunctions,
	payment: { id: string; personId: string },
	generation: number,
	mark: { run: string; execution: string },
	releaseStatus: string | undefined,
	i: number,
): Promise<void> {
	const key = stalledKey(generation);
	try {
		const stored = await addRecord(ctx, payment, { [key]: JSON.stringify(mark) }, i);
		if ((JSON.parse(String(stored[key] ?? '{}')) as IDataObject).run !== mark.run) return;
		await raiseHeldAlert(ctx, payment, REASONS.stalled, releaseStatus, i);
	} catch {
		// not marked or not raised: the payment stays blocked, and the next copy whose wait ends tries again
	}
}

/**
 * A block the rules make the payment's decision without a check (a payment stored before the Gate), after its answer
 * (every copy meanwhile blocks the same way): its decision is written, and the run whose decision the service's answer
 * holds raises the manual alert (once per payment). A failure leaves the payment blocked as it is.
 */
export function recordBlock(
	ctx: IExecuteFunctions,
	payment: { id: string; personId: string },
	keys: SigningKeys,
	generation: number,
	reason: Reason,
	by: Pick<RecordedDecision, 'checks' | 'status' | 'run'> & { execution: string; release?: string },
	i: number,
): void {
	const { execution, release, ...of } = by;
	const decision: RecordedDecision = {
		decision: 'block',
		code: reason.code,
		reason: reason.text,
		answered: false,
		alertIds: [],
		...of,
	};
	void (async () => {
		const written = decisionAttribute(keys, payment, generation, decision, execution);
		const stored = await addRecord(ctx, payment, written, i);
		if ((stored[decisionKey(generation)] as IDataObject | undefined)?.run === of.run)
			await raiseHeldAlert(ctx, payment, reason, release, i);
	})().catch(() => undefined);
}
