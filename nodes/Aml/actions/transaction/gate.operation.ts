import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	checkFailures,
	checkOutcome,
	failedReason,
	mayHaveAppliedFields,
	TIMEOUT_REASON,
	type Decision,
} from '../../helpers/checks';
import { optionsCollection, timeBudgetDeadline } from '../../helpers/descriptions';
import { itemParameter } from '../../helpers/itemParameter';
import { runItems, withItemFacts } from '../../helpers/items';
import {
	blocksPayment,
	isBudgetSpent,
	lateAnswerOf,
	reachedService,
	type Deadline,
} from '../../transport';
import { earlierAlerts } from '../unresolvedAlerts';
import { invalid, type ItemValidator } from '../../validation';
import { BLOCK_OUTPUT, CLEAR_OUTPUT, runsAsTool } from '../outputs';
import {
	awaitOtherRun,
	claimLive,
	CLAIM_ENDED_REASON,
	claimKey,
	isReleased,
	latestClaim,
	newClaim,
	recordKey,
	releaseStatuses,
	storedDecision,
	takeClaim,
	uncheckedRun,
	writeDecision,
	writeUnchecked,
	type Claim,
	type RecordedDecision,
} from './record';
import {
	CHECK_BUDGET_MS,
	checkBudgetOption,
	routeOutputsProperty,
	transactionCheck,
	type CheckKey,
	type CheckPath,
} from './routedCheck';
import {
	readStoredTransaction,
	readTransactionToStore,
	ReusedTransactionId,
	REUSED_ID_REASON,
	storeProperties,
	storeTransaction,
	type StoredTransaction,
	type TransactionToStore,
} from './store';

/**
 * Transaction → Gate: a payment decision in one node, and the one rule it keeps. A payment is answered clear only on
 * checks of its own whose every answer the Gate knows, inside its own claim, when no other check of it can have run
 * unseen: (a) the transaction is stored with this payment's data, (b) every enabled check answered a present, empty
 * list from the only attempt that may have run, (c) at least one check is enabled, (d) a payment stored before has no
 * open alert after those checks, and (e) all of it within the time budget and while this run's claim is live. A
 * decision is answered only when a Gate of this credential wrote it (record.ts: signed), from any execution or worker;
 * a block stands until a release made after it (a status set on the transaction after the block). A run that may have
 * learnt something never ends without a record of it: a block is written before the item is answered or fails, and a
 * claim past its time without a decision is a block of its own. A block on which no check reached the service (none
 * was sent, or each was refused a connection before the service could receive it) is not the payment's decision: the
 * item blocks, and the next copy takes a claim of its own and checks the payment itself, as a first submission (a copy
 * at the same time finds that claim and waits for its decision). Anything else blocks, and `reason` says which step
 * failed.
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

/** The reason of a payment found stored while another run decides it, when this item's time ran out first. */
const STILL_DECIDING_REASON = 'first submission still being decided';
/** The reason of a payment found stored when decisions are not written to transactions. */
const NOT_RECORDED_REASON = 'payment stored before; its decision is not recorded';

/** The reason of a payment whose stored claim is not one this credential's Gate signed. */
const UNREADABLE_CLAIM_REASON =
	"claim on the transaction unreadable (not signed by this credential's Gate): review the transaction and its alerts, then set a Release Status to have it checked again";
/** The reason of a payment whose first run's claim ended without a decision. */
const outcomeUnknownReason = (execution: string) =>
	`first submission's outcome unknown: its run${execution ? ` (execution ${execution})` : ''} ended without a decision; its checks may have raised alerts: review the transaction's alerts and that execution, then set a Release Status`;

/** Why a block on which no check reached the service is not written as the payment's decision. */
const NO_CHECK_REACHED_REASON =
	"no check reached the service: this block is not the payment's decision, and a copy sent again is checked as a first submission";

/** The reason of a run whose claim after an unchecked one is not in the service's answer to its write. */
const CLAIM_NOT_STORED_REASON =
	"claim failed: the service's answer to the claim's write does not hold it; no check was sent";

/** What a found claim says when its run's checks never reached the service. */
const UNCHECKED_CLAIM = 'no check reached the service';

/** A store refused for this transaction's data (unknown person): a block, not a fault. */
const REFUSED_STORE = new Set(['400', '404', '409', '422']);

const DEFAULT_RELEASE_STATUSES = 'RELEASED';

const properties: INodeProperties[] = [
	{
		displayName:
			'Clear only when the payment is stored with its data, every enabled check found nothing in time and a payment stored before has no open alert (else: <code>earlier alerts unresolved</code>). The decision is written to the transaction: sent again, the payment gets the same answer. Always Output Data and Retry On Fail must stay off.',
		name: 'gateNotice',
		type: 'notice',
		default: '',
	},
	...storeProperties('skip', {
		error:
			'Fail the item as an error when its ID is already stored: never answered clear (with On Error set to continue, it carries decision "block")',
		skip: "Use the stored transaction when it has this payment's data: answered with the decision written to it, or checked again; other data under the ID blocks",
	}).map((property) =>
		property.name === 'onExisting'
			? {
					...property,
					hint: 'Error: a payment sent again fails as an error (never clear); Skip answers it with its recorded decision',
				}
			: property,
	),
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
	optionsCollection([
		checkBudgetOption,
		{
			displayName: 'Record Decision on Transaction',
			name: 'recordDecision',
			type: 'boolean',
			default: true,
			description:
				"Whether to write the run's claim and its decision to the transaction (attributes n8n_gate_claim and n8n_gate_decision), so that the payment sent again gets the same answer from any execution. Off: a payment found stored blocks.",
		},
		{
			displayName: 'Release Statuses',
			name: 'releaseStatuses',
			type: 'string',
			default: DEFAULT_RELEASE_STATUSES,
			placeholder: 'e.g. RELEASED, APPROVED',
			description:
				"Transaction statuses that release a payment the Gate blocked (comma-separated, any case). Set one on the transaction (the service's web app or Transaction → Update) after reviewing its alerts: sent again, it clears when no alert is open. Only a status set after the block releases it: a payment sent with one of these as its own status is refused, and a transaction that had one when it was blocked needs another.",
			hint: 'A block stands for every resend until one of these is set on the transaction after it',
		},
	]),
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

/**
 * A store that failed or was refused: the step to report, or the error thrown on (a refused credential, a lost read
 * back, bad input), whose failed item then reports the store as the step that failed, never a check.
 */
function storeStepOrThrow(
	ctx: IExecuteFunctions,
	error: unknown,
	transaction: TransactionToStore,
	i: number,
	reasons: IDataObject,
	notTaken: () => void,
): IDataObject {
	try {
		return storeFailureOrThrow(ctx, error, transaction, i);
	} catch (thrown) {
		const message = (thrown as Error).message;
		const reason = blocksPayment(thrown) ? `store failed: ${message}` : `store refused: ${message}`;
		reasons.store = {
			status: blocksPayment(thrown) ? 'failed' : 'refused',
			message,
			...mayHaveAppliedFields(thrown),
		};
		notTaken();
		throw withItemFacts(thrown as Error, { reason, reasons, alertIds: [] });
	}
}

/** A store that failed or was refused: the step to report, or the error thrown on (a refused credential, bad input). */
function storeFailureOrThrow(
	ctx: IExecuteFunctions,
	error: unknown,
	transaction: TransactionToStore,
	i: number,
): IDataObject {
	if (
		transaction.onExisting === 'error' &&
		error instanceof NodeApiError &&
		String(error.httpCode) === '422'
	) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Transaction ID "${transaction.id}" is already stored and "If Transaction Already Exists" is set to Error: the payment is not decided`,
			{
				itemIndex: i,
				description:
					'Choose Skip to answer a payment sent again with the decision recorded for it. With Error, the item fails (never clear): On Error set to continue gives it decision "block".',
			},
		);
	}
	if (error instanceof ReusedTransactionId) {
		return { status: 'refused', reason: REUSED_ID_REASON, differences: error.differences };
	}
	const httpCode = (error as NodeApiError).httpCode ?? undefined;
	if (error instanceof NodeApiError && httpCode && REFUSED_STORE.has(httpCode)) {
		return { status: 'refused', reason: `store refused: ${error.message}`, httpCode };
	}
	if (!blocksPayment(error)) throw error;
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

/**
 * The item's transaction (the Gate's record keys are refused when it is read), refused when its own status is a Release
 * Status: only a status set after a block releases it.
 */
function readPayment(ctx: IExecuteFunctions, i: number, release: string[]) {
	const transaction = readTransactionToStore(ctx, i);
	const status = transaction.attributes.status;
	if (typeof status === 'string' && release.includes(status.trim().toUpperCase())) {
		throw invalid(
			ctx,
			i,
			'attributes.status',
			status,
			"is one of the Release Statuses: a payment's own status never releases it (send it under another status, or leave status out)",
		);
	}
	return transaction;
}

type Check = (typeof CHECKS)[number];

/**
 * How a run that found the payment stored goes on: an answer already (`record`: a block of its own, to write), or its
 * own checks (`recordTaken`: a decision is stored already, so this run's cannot be).
 */
type Found =
	| { answer: IDataObject; record?: boolean; unchecked?: Claim }
	| { check: true; lookupAfter: boolean; recordTaken?: boolean; claim?: Claim };

/** The transaction's stored status, as recorded with a decision. */
function statusOf(stored: IDataObject): string {
	return typeof stored.status === 'string' ? stored.status : '';
}

/** Writes a block before it is answered; the record step as reported. */
async function recordBlock(
	ctx: IExecuteFunctions,
	key: Buffer,
	transaction: TransactionToStore,
	decided: RecordedDecision & { run: string },
	i: number,
): Promise<IDataObject> {
	try {
		await writeDecision(ctx, key, transaction, decided, i);
		return { status: 'written' };
	} catch (error) {
		return { status: 'failed', message: (error as Error).message };
	}
}

/**
 * A block on which no check reached the service: no decision is written; the claim is marked unchecked after the
 * answer (it never delays the block; lost, the claim ends without a decision and a copy blocks). The record step as
 * reported.
 */
function markUnchecked(
	ctx: IExecuteFunctions,
	key: Buffer | undefined,
	transaction: TransactionToStore,
	claim: Claim | undefined,
	i: number,
): IDataObject {
	if (key && claim) void writeUnchecked(ctx, key, transaction, claim, i);
	return { status: 'no decision', reason: NO_CHECK_REACHED_REASON };
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	const asTool = runsAsTool(this);
	const routed = !asTool && itemParameter(this, 'routeOutputs', 0, true) !== false;
	const startedAt = Date.now();
	let key: Promise<Buffer> | undefined;
	/** The record's signing key, read from the credential once per execution. */
	const signingKey = async () => await (key ??= recordKey(this));
	return await runItems(this, items, validate, {
		prepare: (i) => {
			const release = releaseStatuses(
				itemParameter(this, 'options.releaseStatuses', i, DEFAULT_RELEASE_STATUSES),
			);
			return {
				transaction: readPayment(this, i, release),
				checks: enabledChecks(this, i),
				deadline: timeBudgetDeadline(this, i, CHECK_BUDGET_MS, startedAt),
				record: itemParameter(this, 'options.recordDecision', i, true) !== false,
				release,
			};
		},
		key: ({ transaction }) => transaction.id,
		send: async ({ transaction, checks, deadline, record, release }, i) => {
			const transactionId = transaction.id;
			const reasons: IDataObject = {};
			/** The steps not taken: a check that is on was not sent, one that is off is off. */
			const notTaken = () => {
				for (const check of CHECKS)
					reasons[check.step] ??= { status: checks.includes(check) ? 'not sent' : 'off' };
			};
			const answer = (decision: Decision, reason?: string, alertIds: number[] = []) => {
				notTaken();
				return {
					transactionId,
					personId: transaction.personId,
					decision,
					...(reason === undefined ? {} : { reason }),
					reasons,
					alertIds,
				};
			};

			// 1. Store the payment, with this run's claim on its decision.
			const signing = record ? await signingKey() : undefined;
			const claim = signing ? newClaim(this, signing, transaction, deadline) : undefined;
			let stored: StoredTransaction;
			try {
				stored = await storeTransaction(this, transaction, i, deadline, claim?.attribute);
			} catch (error) {
				// Not stored (or not known to be): no check is sent.
				const step = storeStepOrThrow(this, error, transaction, i, reasons, notTaken);
				reasons.store = step;
				// Failed, not refused: it may have been stored, with this run's claim.
				if (step.status !== 'refused' && claim)
					reasons.record = markUnchecked(
						this,
						reachedService(error) ? signing : undefined,
						transaction,
						claim.claim,
						i,
					);
				return answer('block', step.reason as string);
			}
			const store: IDataObject = { status: stored.json.result };
			if (stored.json.afterLostAnswer) store.afterLostAnswer = true;
			reasons.store = store;

			// 2. Found stored: answered as decided before, after another run's decision, or checked again.
			let lookupAfter = false;
			let recordTaken = false;
			/** This run's claim: the one sent with the store, or the one it took after an unchecked one. */
			let own = claim?.claim;
			if (stored.json.result !== 'created') {
				const found: Found = await foundStored(this, {
					transaction,
					stored: stored.stored,
					claim: claim?.claim,
					key: signing,
					deadline,
					release,
					store,
					i,
				});
				if ('answer' in found) {
					const { decision, reason, alertIds, unresolvedAlerts } = found.answer as IDataObject;
					if (unresolvedAlerts) reasons.unresolvedAlerts = unresolvedAlerts;
					// The claim this run may have taken, and no check sent: the next copy checks the payment itself.
					if (found.unchecked)
						reasons.record = markUnchecked(this, signing, transaction, found.unchecked, i);
					if (found.record && signing && claim) {
						// A block this run decided on what it found (no decision stored): recorded before it is answered.
						reasons.record = await recordBlock(
							this,
							signing,
							transaction,
							{
								decision: 'block',
								reason: reason as string,
								alertIds: [],
								status: statusOf(stored.stored),
								run: claim.claim.run,
							},
							i,
						);
					}
					return answer(decision as Decision, reason as string | undefined, alertIds as number[]);
				}
				lookupAfter = found.lookupAfter;
				recordTaken = found.recordTaken ?? false;
				own = found.claim ?? own;
			}

			// 3. The checks, side by side: the gate takes as long as the slower check, not the sum.
			const settled = await Promise.allSettled(
				checks.map(
					async (check) => await transactionCheck(this, transactionId, check, i, deadline),
				),
			);
			// A check refused for a reason the user must fix (a credential refused after renewal, 403, 404) fails the
			// item, after both have settled and after the block is recorded (the other check may have raised an alert);
			// every failed item still carries decision "block", the steps and the alert IDs answered.
			const refusal = settled.find(
				(result) => result.status === 'rejected' && !blocksPayment(result.reason),
			) as PromiseRejectedResult | undefined;
			const json: IDataObject = { transactionId, personId: transaction.personId };
			const alertIds = new Set<number>();
			let reason: string | undefined;
			checks.forEach((check: Check, index) => {
				const result = settled[index];
				if (result.status === 'rejected') {
					json[check.key] = [];
					if (!blocksPayment(result.reason)) {
						// Refused: not applied, so no reason of its own to block; the item fails with it (below).
						const error = result.reason as NodeApiError;
						reasons[check.step] = {
							status: 'refused',
							message: error.message,
							...(error.httpCode ? { httpCode: error.httpCode } : {}),
						};
						return;
					}
					const step = failedStep(result.reason);
					// An answer after the budget is not the check's answer, but the alerts it names exist.
					const late = lateAnswerOf(result.reason);
					if (late) {
						const named = checkOutcome(late.body, check.key);
						step.lateAnswer = { status: named.decision, alertIds: named.alertIds };
						json[check.key] = named.list;
						for (const id of named.alertIds) alertIds.add(id);
					}
					reasons[check.step] = step;
					reason ??= step.reason as string;
					return;
				}
				const { outcome } = result.value;
				reasons[check.step] = {
					status: outcome.decision,
					...(outcome.reason ? { reason: outcome.reason } : {}),
				};
				json[check.key] = outcome.list;
				for (const id of outcome.alertIds) alertIds.add(id);
				if (outcome.decision !== 'clear') reason ??= outcome.reason;
			});
			if (refusal) {
				const refused = `check refused: ${(refusal.reason as Error).message}`;
				if (signing && own && !recordTaken) {
					reasons.record = await recordBlock(
						this,
						signing,
						transaction,
						{
							decision: 'block',
							reason: reason ?? refused,
							alertIds: [...alertIds],
							status: statusOf(stored.stored),
							run: own.run,
						},
						i,
					);
				}
				notTaken();
				throw withItemFacts(refusal.reason as Error, { reasons, alertIds: [...alertIds] });
			}

			// No check reached the service: nothing of this payment is there to review, so the block is this item's only.
			const unreached = settled.every(
				(result) => result.status === 'rejected' && !reachedService(result.reason),
			);

			// 4. A payment stored before: its own checks say only that they raised nothing new; any alert open now blocks.
			if (reason === undefined && lookupAfter) {
				const earlier = await earlierAlerts(this, transactionId, i, deadline);
				reasons.unresolvedAlerts = earlier.step;
				reason = earlier.reason;
			}

			// A clear only while this run's claim is live by every worker's clock: after it, another run may have decided.
			if (reason === undefined && own && !claimLive(own)) reason = CLAIM_ENDED_REASON;

			// 5. The decision on the transaction: a block before the answer, a clear after it.
			if (recordTaken) {
				reasons.record = { status: 'not written', reason: 'a decision record is stored already' };
			} else if (unreached) {
				reasons.record = markUnchecked(this, signing, transaction, own, i);
			} else if (signing && own) {
				const decided = {
					decision: reason === undefined ? ('clear' as const) : ('block' as const),
					reason,
					alertIds: [...alertIds],
					status: statusOf(stored.stored),
					run: own.run,
				};
				if (decided.decision === 'block') {
					reasons.record = await recordBlock(this, signing, transaction, decided, i);
				} else {
					reasons.record = { status: 'after answer' };
					void writeDecision(this, signing, transaction, decided, i).catch(() => undefined);
				}
			}
			notTaken();
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

/**
 * A payment found stored (sent again, or the store's answer lost): its recorded decision (a block until released),
 * this run's own claim (its store answer was lost: it decides), a claim marked unchecked (this run takes the next claim,
 * and decides when it is its own), another run's live claim (waited for within this item's time), or else (a claim past
 * its time, none, or an unreadable one) this run's own checks with the open-alerts lookup after them.
 */
async function foundStored(
	ctx: IExecuteFunctions,
	found: {
		transaction: TransactionToStore;
		stored: IDataObject;
		claim?: Claim;
		key?: Buffer;
		deadline?: Deadline;
		release: string[];
		store: IDataObject;
		i: number;
	},
): Promise<Found> {
	const { transaction, claim, key, deadline, release, store, i } = found;
	if (!claim || !key) return { answer: { decision: 'block', reason: NOT_RECORDED_REASON } };
	let stored = found.stored;
	let own = claim;
	let decision = storedDecision(stored, key, transaction);
	while (!decision) {
		const other = latestClaim(stored, key, transaction);
		if (other.kind === 'unreadable') {
			store.claim = 'unreadable';
			return { answer: { decision: 'block', reason: UNREADABLE_CLAIM_REASON }, record: true };
		}
		if (other.kind === 'none') return { check: true, lookupAfter: true };
		// This run's own claim: the one its store sent (its answer lost), or the one it took after an unchecked one.
		if (other.run === own.run && other.generation === own.generation)
			return { check: true, lookupAfter: other.generation > 0, claim: own };
		if (uncheckedRun(stored, key, transaction, other.generation) === other.run) {
			// The claim's run had no check reach the service: the next claim's run checks, as a first submission.
			store.claim = UNCHECKED_CLAIM;
			const next = newClaim(ctx, key, transaction, deadline, {
				run: claim.run,
				generation: other.generation + 1,
			});
			try {
				stored = await takeClaim(ctx, transaction, next.attribute, deadline, i);
			} catch (error) {
				return claimNotTaken(error, store, next.claim);
			}
			// An answer without the claim says nothing of who holds it: no check is sent.
			if (stored[claimKey(next.claim.generation)] === undefined)
				return { answer: { decision: 'block', reason: CLAIM_NOT_STORED_REASON } };
			own = next.claim;
			decision = storedDecision(stored, key, transaction);
			continue;
		}
		if (other.until <= Date.now()) {
			// The claim ended without a decision: what its run's checks did is unknown.
			store.claim = 'ended without a decision';
			return {
				answer: { decision: 'block', reason: outcomeUnknownReason(other.execution) },
				record: true,
			};
		}
		store.waitedFor = 'another run';
		let waited;
		try {
			waited = await awaitOtherRun(
				async (within) => (await readStoredTransaction(ctx, transaction, i, within)) ?? {},
				(read) =>
					storedDecision(read, key, transaction) ??
					(uncheckedRun(read, key, transaction, other.generation) === other.run
						? UNCHECKED_CLAIM
						: undefined),
				other,
				deadline,
			);
		} catch (error) {
			return stillDecidingOrThrow(error, store);
		}
		if (waited.kind === 'budget')
			return { answer: { decision: 'block', reason: STILL_DECIDING_REASON } };
		if (waited.kind === 'expired') continue;
		stored = waited.stored;
		decision = storedDecision(stored, key, transaction);
	}
	store.decidedBefore = {
		decision: decision.decision,
		...(decision.reason ? { reason: decision.reason } : {}),
		...(decision.alertIds.length ? { alertIds: decision.alertIds } : {}),
	};
	if (decision.decision === 'clear') return { answer: { decision: 'clear', alertIds: [] } };
	const released = isReleased(stored, release, decision);
	if (!released)
		return { answer: { decision: 'block', reason: decision.reason, alertIds: decision.alertIds } };
	store.released = released;
	// A record that does not verify says nothing of the payment: released, it is checked as a first submission.
	if (!decision.verified) return { check: true, lookupAfter: true, recordTaken: true };
	// Released by its status: it clears once no alert of it is open. The lookup names no alert, so the answer names
	// none (the old block's are in `store.decidedBefore`).
	const earlier = await earlierAlerts(ctx, transaction.id, i, deadline);
	return {
		answer: {
			decision: earlier.reason === undefined ? 'clear' : 'block',
			reason: earlier.reason,
			alertIds: [],
			unresolvedAlerts: earlier.step,
		},
	};
}

/**
 * The next claim's write failed: a block with no check sent. When the write may have landed, the claim may be this
 * run's: it is marked unchecked after the answer (`unchecked`), so that it does not end without a decision. Any error
 * but a transient failure is thrown on.
 */
function claimNotTaken(error: unknown, store: IDataObject, claim: Claim): Found {
	if (!blocksPayment(error)) throw error;
	const step = failedStep(error);
	store.claimWrite = step;
	return {
		answer: {
			decision: 'block',
			reason:
				step.status === TIMEOUT_REASON ? TIMEOUT_REASON : `claim failed: ${step.message as string}`,
		},
		...(reachedService(error) ? { unchecked: claim } : {}),
	};
}

/**
 * The other run's decision could not be read (a transient failure): still undecided, as far as this run knows. Any
 * other error is thrown on.
 */
function stillDecidingOrThrow(error: unknown, store: IDataObject): Found {
	if (!blocksPayment(error)) throw error;
	store.waitFailed = (error as Error).message;
	return { answer: { decision: 'block', reason: STILL_DECIDING_REASON } };
}

/** Its items carry `decision`. */
export const decides = true;
