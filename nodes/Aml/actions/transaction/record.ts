import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { amlRequest, idSegment, type Deadline } from '../../transport';

/**
 * The Gate's record on the stored transaction: what makes a payment's decision hold across executions, resends and
 * queue-mode workers, which share nothing but the service. The service adds new attribute keys to a stored
 * transaction but never changes them (only `status`), so each key below is written once and the first writer wins:
 * - `n8n_gate_claim` `{run, execution, until}`: sent with the store itself (no extra request). The run whose store
 *   created the transaction decides it; until `until` (its time budget plus RECORD_MS) no other run checks it.
 * - `n8n_gate_decision` `{decision, reason, alertIds, decidedAt, execution}`: added by the run that decided. A block is
 *   written before the item is answered; a clear after it, so that a clean payment's answer waits for nothing.
 * A run that finds the payment stored reads both: a decision is answered as it is (a block until the transaction's
 * `status` is one of the node's Release Statuses), another run's live claim is waited for, and anything else (a claim
 * past its time, no claim) is checked again by the run itself, with the open-alerts lookup after its checks.
 */

export const CLAIM_ATTRIBUTE = 'n8n_gate_claim';
export const DECISION_ATTRIBUTE = 'n8n_gate_decision';
/** Attribute names the Gate writes: refused in the user's own attributes. */
export const RECORD_ATTRIBUTES = [CLAIM_ATTRIBUTE, DECISION_ATTRIBUTE];

/** Time a run has after its budget to write its block: part of its claim, so a waiting run sees the block. */
export const RECORD_MS = 5_000;
/** A claim's time when the item has no time budget. */
const UNBUDGETED_CLAIM_MS = 120_000;
/** How often a run waiting for another run's decision reads the transaction again. */
const POLL_MS = 250;

export interface Claim {
	run: string;
	until: number;
}

export interface RecordedDecision {
	decision: 'block' | 'clear';
	reason?: string;
	alertIds: number[];
}

/** This item's claim, written with the store. */
export function newClaim(
	ctx: IExecuteFunctions,
	deadline: Deadline | undefined,
): { claim: Claim; attribute: IDataObject } {
	const until = (deadline?.at ?? Date.now() + UNBUDGETED_CLAIM_MS) + RECORD_MS;
	const claim = { run: randomUUID(), until };
	return {
		claim,
		attribute: {
			[CLAIM_ATTRIBUTE]: {
				run: claim.run,
				execution: String(ctx.getExecutionId() ?? ''),
				until: new Date(until).toISOString(),
			},
		},
	};
}

/** The claim stored on the transaction, if it is one the Gate wrote. */
export function storedClaim(stored: IDataObject): Claim | undefined {
	const value = stored[CLAIM_ATTRIBUTE] as IDataObject | undefined;
	if (!value || typeof value !== 'object') return undefined;
	const until = typeof value.until === 'string' ? Date.parse(value.until) : NaN;
	if (typeof value.run !== 'string' || Number.isNaN(until)) return undefined;
	return { run: value.run, until };
}

/** The decision stored on the transaction; anything there but exactly "clear" reads as a block. */
export function storedDecision(stored: IDataObject): RecordedDecision | undefined {
	const value = stored[DECISION_ATTRIBUTE];
	if (value === undefined || value === null) return undefined;
	const record = (typeof value === 'object' ? value : {}) as IDataObject;
	const alertIds = String(record.alertIds ?? '')
		.split(',')
		.map((id) => Number(id.trim()))
		.filter((id) => Number.isInteger(id) && id > 0);
	if (record.decision === 'clear') return { decision: 'clear', alertIds };
	const reason =
		typeof record.reason === 'string' && record.reason ? record.reason : 'unreadable record';
	return { decision: 'block', reason, alertIds };
}

/**
 * Reads the transaction until another run's claim ends: its decision once written, `expired` once the claim's time
 * has passed without one, `budget` when this item's own time runs out first.
 */
export async function awaitOtherRun(
	read: (deadline?: Deadline) => Promise<IDataObject>,
	claim: Claim,
	deadline: Deadline | undefined,
): Promise<
	| { kind: 'decided'; decision: RecordedDecision; stored: IDataObject }
	| { kind: 'expired' }
	| { kind: 'budget' }
> {
	for (;;) {
		const now = Date.now();
		if (now >= claim.until) return { kind: 'expired' };
		if (deadline && now >= deadline.at) return { kind: 'budget' };
		await sleep(Math.min(POLL_MS, claim.until - now, deadline ? deadline.at - now : POLL_MS));
		if (deadline && Date.now() >= deadline.at) return { kind: 'budget' };
		const stored = await read(deadline);
		const decision = storedDecision(stored);
		if (decision) return { kind: 'decided', decision, stored };
	}
}

/**
 * Adds the decision to the stored transaction. Adding a key is safe to repeat (a key the transaction has is left
 * as it is), so the request is repeated after a lost answer.
 */
export async function writeDecision(
	ctx: IExecuteFunctions,
	transaction: { id: string; personId: string },
	decision: RecordedDecision,
	i: number,
): Promise<void> {
	await amlRequest.call(
		ctx,
		{
			method: 'PATCH',
			path: `/v1/persons/${idSegment(transaction.personId)}/transactions/${idSegment(transaction.id)}`,
			body: {
				id: transaction.id,
				attributes: {
					[DECISION_ATTRIBUTE]: {
						decision: decision.decision,
						...(decision.reason ? { reason: decision.reason.slice(0, 1000) } : {}),
						alertIds: decision.alertIds.join(','),
						decidedAt: new Date().toISOString(),
						execution: String(ctx.getExecutionId() ?? ''),
					},
				},
			},
			retry: 'safe',
			deadline: { at: Date.now() + RECORD_MS, ms: RECORD_MS },
		},
		i,
	);
}

/** The Release Statuses option as a list (compared without regard to case). */
export function releaseStatuses(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((status) => status.trim().toUpperCase())
		.filter(Boolean);
}

/** Whether the stored transaction's `status` releases a recorded block. */
export function isReleased(stored: IDataObject, statuses: string[]): string | undefined {
	const status = typeof stored.status === 'string' ? stored.status.trim() : '';
	return status && statuses.includes(status.toUpperCase()) ? status : undefined;
}
