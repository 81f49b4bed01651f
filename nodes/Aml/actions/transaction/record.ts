import { createHmac, randomUUID, timingSafeEqual } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { GATE_RECORD_KEYS } from '../../helpers/attributes';

import { amlRequest, failureOf, idSegment, type Deadline } from '../../transport';

/**
 * The Gate's record on the stored transaction: what makes a payment's decision hold across executions, resends and
 * queue-mode workers, which share nothing but the service. The service adds new attribute keys to a stored
 * transaction but never changes them (only `status`), so each key below is written once and the first writer wins:
 * - `n8n_gate_claim` `{run, execution, until, sig}`: sent with the store itself (no extra request). The run whose
 *   store created the transaction decides it; until `until` (its time budget plus RECORD_MS) no other run checks it.
 * - `n8n_gate_decision` `{decision, reason, alertIds, status, run, decidedAt, execution, sig}`: added by the run that
 *   decided. A block is written before the item is answered; a clear after it, so that a clean payment's answer waits
 *   for nothing. `status` is the transaction's status when it was written: it never releases the block.
 * - `n8n_gate_unchecked` `{run, execution, sig}`: added, after the item is answered, by a run that claimed the payment
 *   and whose checks never reached the service (none sent, or each refused a connection before the service could
 *   receive it): its block is not the payment's decision, and no decision is written. Lost, the claim ends without a
 *   decision and the payment blocks, as for any such claim.
 * - `n8n_gate_claim_<n>` and `n8n_gate_unchecked_<n>` (n = 1, 2, …): the claim after an unchecked one, and its own
 *   mark. A run that finds the latest claim marked unchecked takes the next one by adding its key (the first writer
 *   wins, and the service's answer says who did): that run checks the payment itself, as a first submission, and
 *   writes the decision; a run that finds the next claim another's waits for it as for a first submission's.
 * Only a Gate writes them: every other write path of the package refuses the keys, and `sig` (HMAC-SHA256 with a key
 * of the credential's client secret, over the transaction's person and ID and every value) tells a record this
 * credential's Gate wrote from any other, which is never answered as a decision. A run that finds the payment stored
 * reads both: a decision is answered as it is (a block until a Release Status set after it), another run's live claim
 * is waited for, a claim past its time without a decision or one that does not verify is a block of its own, and a
 * transaction with no claim (stored by Create or an upload) is checked by the run itself, with the open-alerts lookup
 * after its checks.
 */

export const CLAIM_ATTRIBUTE = GATE_RECORD_KEYS[0];
export const DECISION_ATTRIBUTE = GATE_RECORD_KEYS[1];
export const UNCHECKED_ATTRIBUTE = GATE_RECORD_KEYS[2];

/** Time a run has after its budget to write its block: part of its claim, so a waiting run sees the block. */
export const RECORD_MS = 5_000;
/** A claim's time when the item has no time budget. */
const UNBUDGETED_CLAIM_MS = 120_000;
/** How often a run waiting for another run's decision reads the transaction again. */
const POLL_MS = 250;

/**
 * How far the clocks of the workers deciding one payment may differ: a run answers clear only until its claim's `until`
 * less this margin, so that no other worker has read the claim as over meanwhile.
 */
export const CLOCK_MARGIN_MS = 2_000;

/** The reason of a run whose claim ended before it could answer clear. */
export const CLAIM_ENDED_REASON =
	'claim ended before the decision: the run outlived its claim (no Time Budget, or a slow store), so another run may have decided the payment';

/** Whether the claim is live with the clock margin to spare (`now`: this worker's clock). */
export function claimLive(claim: Pick<Claim, 'until'>, now = Date.now()): boolean {
	return now < claim.until - CLOCK_MARGIN_MS;
}

/** The credential type whose client secret keys the record's signature. */
const CREDENTIAL_TYPE = 'amlOAuth2Api';

export interface Claim {
	run: string;
	until: number;
	execution: string;
	/** 0 for the claim sent with the store, n for the n-th claim taken after an unchecked one. */
	generation: number;
}

/** The attribute key of the claim of `generation`. */
export function claimKey(generation: number): string {
	return generation ? `${CLAIM_ATTRIBUTE}_${generation}` : CLAIM_ATTRIBUTE;
}

/** The attribute key of the unchecked mark of the claim of `generation`. */
export function uncheckedKey(generation: number): string {
	return generation ? `${UNCHECKED_ATTRIBUTE}_${generation}` : UNCHECKED_ATTRIBUTE;
}

/** What a signature of a record of `generation` is over: its kind and generation, so that none stands for another. */
const kindOf = (kind: string, generation: number) => (generation ? `${kind} ${generation}` : kind);

/** A stored claim as read: none, one signed by this credential's key, or one that cannot be trusted. */
export type StoredClaim = { kind: 'none' } | { kind: 'unreadable' } | ({ kind: 'claim' } & Claim);

export interface RecordedDecision {
	decision: 'block' | 'clear';
	reason?: string;
	alertIds: number[];
	/** The transaction's status when the decision was written: never the status that releases it. */
	status?: string;
}

/** A decision as read from the transaction; `verified` when its signature is this credential's. */
export type StoredDecision = RecordedDecision & { verified: boolean };

/** The transaction a record belongs to: part of what is signed, so a record copied to another transaction fails. */
export interface RecordOwner {
	id: string;
	personId: string;
}

/**
 * The key that signs the record: HMAC-SHA256 of a fixed label, keyed by the credential's client secret (only its
 * owner holds it). A record signed under another secret (the credential's secret changed, another account's Gate, any
 * other writer) does not verify and is never answered as a decision.
 */
export async function recordKey(ctx: IExecuteFunctions): Promise<Buffer> {
	const credentials = await ctx.getCredentials<IDataObject>(CREDENTIAL_TYPE);
	const secret = typeof credentials.clientSecret === 'string' ? credentials.clientSecret : '';
	if (!secret)
		throw new NodeOperationError(
			ctx.getNode(),
			'The credential has no client secret: Transaction → Gate signs its record with it',
		);
	return createHmac('sha256', secret).update('n8n-nodes-aml gate record v1').digest();
}

function signature(key: Buffer, kind: string, owner: RecordOwner, fields: string[]): string {
	return createHmac('sha256', key)
		.update(JSON.stringify([kind, owner.personId, owner.id, ...fields]))
		.digest('hex');
}

function signed(key: Buffer, kind: string, owner: RecordOwner, fields: string[], sig: unknown) {
	if (typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig)) return false;
	const expected = Buffer.from(signature(key, kind, owner, fields), 'hex');
	return timingSafeEqual(expected, Buffer.from(sig, 'hex'));
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * This item's claim: written with the store (generation 0), or taken after the unchecked claim of `next.generation - 1`
 * by the same run.
 */
export function newClaim(
	ctx: IExecuteFunctions,
	key: Buffer,
	owner: RecordOwner,
	deadline: Deadline | undefined,
	next?: Pick<Claim, 'run' | 'generation'>,
): { claim: Claim; attribute: IDataObject } {
	const until = (deadline?.at ?? Date.now() + UNBUDGETED_CLAIM_MS) + RECORD_MS;
	const generation = next?.generation ?? 0;
	const claim = {
		run: next?.run ?? randomUUID(),
		until,
		execution: String(ctx.getExecutionId() ?? ''),
		generation,
	};
	const fields = [claim.run, claim.execution, new Date(until).toISOString()];
	return {
		claim,
		attribute: {
			[claimKey(generation)]: {
				run: fields[0],
				execution: fields[1],
				until: fields[2],
				sig: signature(key, kindOf('claim', generation), owner, fields),
			},
		},
	};
}

/**
 * The claim of `generation` stored on the transaction: `none` when there is none, `unreadable` for anything but a claim
 * this credential's Gate signed (a text, a claim without its signature or with another's, an `until` that is not a
 * time).
 */
export function storedClaim(
	stored: IDataObject,
	key: Buffer,
	owner: RecordOwner,
	generation = 0,
): StoredClaim {
	const value = stored[claimKey(generation)];
	if (value === undefined || value === null) return { kind: 'none' };
	if (typeof value !== 'object' || Array.isArray(value)) return { kind: 'unreadable' };
	const record = value as IDataObject;
	const [run, execution, untilText] = [
		text(record.run),
		text(record.execution),
		text(record.until),
	];
	if (run === undefined || execution === undefined || untilText === undefined)
		return { kind: 'unreadable' };
	if (!signed(key, kindOf('claim', generation), owner, [run, execution, untilText], record.sig))
		return { kind: 'unreadable' };
	const until = Date.parse(untilText);
	if (Number.isNaN(until)) return { kind: 'unreadable' };
	return { kind: 'claim', run, execution, until, generation };
}

/**
 * The latest claim stored on the transaction (the one of the highest generation whose key is there), as read; a later
 * claim's key holding anything but a claim (null included) is `unreadable`, never `none`.
 */
export function latestClaim(stored: IDataObject, key: Buffer, owner: RecordOwner): StoredClaim {
	let generation = 0;
	while (stored[claimKey(generation + 1)] !== undefined) generation++;
	const claim = storedClaim(stored, key, owner, generation);
	return generation > 0 && claim.kind === 'none' ? { kind: 'unreadable' } : claim;
}

/** The reason of a decision record that does not verify (see `recordKey`). */
export const UNVERIFIED_RECORD_REASON =
	"decision record not signed by this credential (written under another client secret, or not by a Gate): review the transaction's alerts, then set a Release Status to have it checked again";

/**
 * The decision stored on the transaction. Only a record this credential's Gate signed is read as written; any other
 * value there (unsigned, signed by another key, not an object) is a block that is not `verified`.
 */
export function storedDecision(
	stored: IDataObject,
	key: Buffer,
	owner: RecordOwner,
): StoredDecision | undefined {
	const value = stored[DECISION_ATTRIBUTE];
	if (value === undefined || value === null) return undefined;
	const record = (typeof value === 'object' && !Array.isArray(value) ? value : {}) as IDataObject;
	const fields = ['decision', 'reason', 'alertIds', 'status', 'run', 'decidedAt', 'execution'].map(
		(name) => text(record[name]) ?? '',
	);
	if (!signed(key, 'decision', owner, fields, record.sig))
		return { decision: 'block', reason: UNVERIFIED_RECORD_REASON, alertIds: [], verified: false };
	const [decision, reason, alertIds, status] = fields;
	const ids = alertIds
		.split(',')
		.map((id) => Number(id.trim()))
		.filter((id) => Number.isInteger(id) && id > 0);
	if (decision === 'clear') return { decision: 'clear', alertIds: ids, status, verified: true };
	return {
		decision: 'block',
		reason: reason || 'blocked',
		alertIds: ids,
		status,
		verified: true,
	};
}

/**
 * Reads the transaction until another run's claim ends: its decision once written, `expired` once the claim's time
 * has passed without one, `budget` when this item's own time runs out first.
 */
export async function awaitOtherRun<D>(
	read: (deadline?: Deadline) => Promise<IDataObject>,
	decisionOf: (stored: IDataObject) => D | undefined,
	claim: Claim,
	deadline: Deadline | undefined,
): Promise<
	{ kind: 'decided'; decision: D; stored: IDataObject } | { kind: 'expired' } | { kind: 'budget' }
> {
	for (;;) {
		const now = Date.now();
		if (now >= claim.until) return { kind: 'expired' };
		if (deadline && now >= deadline.at) return { kind: 'budget' };
		await sleep(Math.min(POLL_MS, claim.until - now, deadline ? deadline.at - now : POLL_MS));
		if (deadline && Date.now() >= deadline.at) return { kind: 'budget' };
		const stored = await read(deadline);
		const decision = decisionOf(stored);
		if (decision) return { kind: 'decided', decision, stored };
	}
}

/**
 * Adds the decision to the stored transaction. Adding a key is safe to repeat (a key the transaction has is left
 * as it is), so the request is repeated after a lost answer.
 */
export async function writeDecision(
	ctx: IExecuteFunctions,
	key: Buffer,
	transaction: RecordOwner,
	decision: RecordedDecision & { run: string },
	i: number,
): Promise<void> {
	const attribute = decisionAttribute(key, transaction, decision, {
		execution: String(ctx.getExecutionId() ?? ''),
		decidedAt: new Date().toISOString(),
	});
	await patchAttributes(
		ctx,
		transaction,
		attribute,
		{ at: Date.now() + RECORD_MS, ms: RECORD_MS },
		i,
	);
}

/**
 * The run of the claim of `generation` whose checks never reached the service, when this credential's Gate signed the
 * mark.
 */
export function uncheckedRun(
	stored: IDataObject,
	key: Buffer,
	owner: RecordOwner,
	generation = 0,
): string | undefined {
	const value = stored[uncheckedKey(generation)];
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
	const record = value as IDataObject;
	const [run, execution] = [text(record.run), text(record.execution)];
	if (run === undefined || execution === undefined) return undefined;
	return signed(key, kindOf('unchecked', generation), owner, [run, execution], record.sig)
		? run
		: undefined;
}

/** How often, and for how long, the mark is tried while the transaction is not found (its store may still land). */
const UNCHECKED_RETRY_MS = 250;

/**
 * Marks `claim` as unchecked (see the header): written after the item is answered, never delaying it. A store whose
 * answer was lost may land after the run gave up: a 404 is tried again within RECORD_MS. Whether it was written (a mark
 * not written leaves the claim to end without a decision: a copy then blocks).
 */
export async function writeUnchecked(
	ctx: IExecuteFunctions,
	key: Buffer,
	transaction: RecordOwner,
	claim: Pick<Claim, 'run' | 'generation'>,
	i: number,
): Promise<boolean> {
	const attribute = uncheckedAttribute(
		key,
		transaction,
		claim.run,
		String(ctx.getExecutionId() ?? ''),
		claim.generation,
	);
	const until = Date.now() + RECORD_MS;
	for (;;) {
		try {
			await patchAttributes(ctx, transaction, attribute, { at: until, ms: RECORD_MS }, i);
			return true;
		} catch (error) {
			const failure = failureOf(error);
			const notFound = failure?.kind === 'service' && failure.status === 404;
			if (!notFound || Date.now() + UNCHECKED_RETRY_MS >= until) return false;
			await sleep(UNCHECKED_RETRY_MS);
		}
	}
}

/** The unchecked mark of `run`'s claim of `generation` as the attribute written, signed for its transaction. */
export function uncheckedAttribute(
	key: Buffer,
	transaction: RecordOwner,
	run: string,
	execution: string,
	generation = 0,
): IDataObject {
	const sig = signature(key, kindOf('unchecked', generation), transaction, [run, execution]);
	return { [uncheckedKey(generation)]: { run, execution, sig } };
}

/**
 * Takes the claim after an unchecked one: adds its key (the first writer wins) within the item's time. The
 * transaction's attributes as the service answers them: the claim there is this run's, or the run's that took it first.
 */
export async function takeClaim(
	ctx: IExecuteFunctions,
	transaction: RecordOwner,
	attribute: IDataObject,
	deadline: Deadline | undefined,
	i: number,
): Promise<IDataObject> {
	const answer = await patchAttributes(
		ctx,
		transaction,
		attribute,
		deadline ?? { at: Date.now() + RECORD_MS, ms: RECORD_MS },
		i,
		['attributes'],
	);
	return answer.attributes as IDataObject;
}

/** Adds record attributes to the stored transaction by the deadline (adding a key is safe to repeat); its answer. */
async function patchAttributes(
	ctx: IExecuteFunctions,
	transaction: RecordOwner,
	attributes: IDataObject,
	deadline: Deadline,
	i: number,
	fields?: string[],
): Promise<IDataObject> {
	const response = await amlRequest.call(
		ctx,
		{
			method: 'PATCH',
			path: `/v1/persons/${idSegment(transaction.personId)}/transactions/${idSegment(transaction.id)}`,
			body: { id: transaction.id, attributes },
			retry: 'safe',
			deadline,
			...(fields ? { answer: { fields } } : {}),
		},
		i,
	);
	return (response.body ?? {}) as IDataObject;
}

/** The decision as the attribute written: every value text, signed for its transaction. */
export function decisionAttribute(
	key: Buffer,
	transaction: RecordOwner,
	decision: RecordedDecision & { run: string },
	written: { execution: string; decidedAt: string },
): IDataObject {
	const values = {
		decision: decision.decision,
		reason: (decision.reason ?? '').slice(0, 1000),
		alertIds: decision.alertIds.join(','),
		status: decision.status ?? '',
		run: decision.run,
		decidedAt: written.decidedAt,
		execution: written.execution,
	};
	const sig = signature(key, 'decision', transaction, Object.values(values));
	return { [DECISION_ATTRIBUTE]: { ...values, sig } };
}

/** The Release Statuses option as a list (compared without regard to case). */
export function releaseStatuses(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((status) => status.trim().toUpperCase())
		.filter(Boolean);
}

/**
 * Whether the stored transaction's `status` releases a recorded block: one of the Release Statuses, set after the
 * block (a status the transaction had when the block was written never releases it).
 */
export function isReleased(
	stored: IDataObject,
	statuses: string[],
	decision: Pick<RecordedDecision, 'status'>,
): string | undefined {
	const status = typeof stored.status === 'string' ? stored.status.trim() : '';
	const atBlock = (decision.status ?? '').trim().toUpperCase();
	return status && statuses.includes(status.toUpperCase()) && status.toUpperCase() !== atBlock
		? status
		: undefined;
}
