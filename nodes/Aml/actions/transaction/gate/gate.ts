import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { checkFailures } from '../../../helpers/checks';
import { timeBudgetDeadline } from '../../../helpers/descriptions';
import { itemParameter } from '../../../helpers/itemParameter';
import { runItems, withItemFacts } from '../../../helpers/items';
import { failureOf, pollUntil, type Deadline } from '../../../transport';
import type { ItemValidator } from '../../../validation';
import { BLOCK_OUTPUT, CLEAR_OUTPUT, runsAsTool } from '../../outputs';
import { CHECK_BUDGET_MS, transactionCheck } from '../routedCheck';
import { readStoredTransaction, storeTransaction, type TransactionToStore } from '../store';
import { raiseHeldAlert, raiseStalledAlert, recordBlock } from './heldAlert';
import { bothHolds, firstHold, paymentAlerts, personHolds, type PersonHold } from './lookup';
import { DEFAULT_PERSON_STATUSES, DEFAULT_RELEASE_STATUSES } from './properties';
import {
	addRecord,
	claimAttribute,
	decisionAttribute,
	decidedNothing,
	newRun,
	readGenerations,
	releaseStatuses,
	signingKeys,
	type SigningKeys,
} from './record';
import {
	afterChecks,
	afterLookup,
	allClear,
	onFound,
	REASONS,
	type Reason,
	type RecordedDecision,
} from './rules';
import {
	waitPolicy,
	checkAnswer,
	enabledChecks,
	readPayment,
	shortFailure,
	storeFailure,
	upper,
	type Check,
	type Steps,
} from './steps';

/**
 * Transaction → Gate, one straight pipeline per payment: (1) store it with this run's claim (the create that succeeds
 * is the payment's one checker); (2) found stored: `onFound` says what follows (its recorded decision, a wait for
 * another run's, a claim of its own to check it); (3) the checks side by side, the person lookup beside them; (4) the
 * payment's open-alerts lookup after them; (5) `afterChecks` decides; a block that no check raised an alert for gets a
 * manual alert; the decision is added to the transaction after the answer (a claim without one holds every copy).
 */

interface Settings {
	transaction: TransactionToStore;
	checks: Check[];
	deadline?: Deadline;
	record: boolean;
	release: string[];
	storedBefore: boolean;
	person: PersonHold;
}

interface Answer {
	decision: 'clear' | 'block';
	reason?: Reason;
	alertIds: number[];
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	const asTool = runsAsTool(this);
	const routed = !asTool && itemParameter(this, 'routeOutputs', 0, true) !== false;
	const startedAt = Date.now();
	let keys: Promise<SigningKeys> | undefined;
	return await runItems(this, items, validate, {
		prepare: (i): Settings => {
			const release = releaseStatuses(
				itemParameter(this, 'options.releaseStatuses', i, DEFAULT_RELEASE_STATUSES),
			);
			return {
				transaction: readPayment(this, i, release),
				checks: enabledChecks(this, i),
				deadline: timeBudgetDeadline(this, i, CHECK_BUDGET_MS, startedAt),
				record: itemParameter(this, 'options.recordDecision', i, true) !== false,
				release,
				storedBefore: itemParameter(this, 'options.checkStoredBefore', i, false) === true,
				person: {
					statuses: releaseStatuses(
						itemParameter(this, 'options.personStatuses', i, DEFAULT_PERSON_STATUSES),
					),
					openAlerts: itemParameter(this, 'options.holdPersonAlerts', i, false) === true,
				},
			};
		},
		key: ({ transaction }) => transaction.id,
		send: async (settings, i) =>
			await gate(this, settings, i, async () => await (keys ??= signingKeys(this))),
		outputs: routed ? 2 : 1,
		route: routed ? (json) => (json.decision === 'clear' ? CLEAR_OUTPUT : BLOCK_OUTPUT) : undefined,
		...checkFailures<Settings>({
			idKey: 'transactionId',
			idOf: (prepared) => prepared.transaction.id,
			errorOutput: routed ? BLOCK_OUTPUT : 0,
			asTool,
		}),
	});
}

async function gate(
	ctx: IExecuteFunctions,
	s: Settings,
	i: number,
	keysOf: () => Promise<SigningKeys>,
): Promise<IDataObject> {
	const { transaction, deadline } = s;
	const names = s.checks.map((check) => check.name);
	const run = newRun();
	const execution = String(ctx.getExecutionId() ?? '');
	const steps: Steps = {};
	for (const check of ['monitoring', 'screening'])
		steps[check] = names.includes(check as never) ? 'not sent' : 'off';
	const answer = (a: Answer, extra: IDataObject = {}): IDataObject => ({
		transactionId: transaction.id,
		personId: transaction.personId,
		decision: a.decision,
		...(a.reason ? { reasonCode: a.reason.code, reason: a.reason.text } : {}),
		alertIds: a.alertIds,
		...extra,
		steps,
	});
	const block = (reason: Reason, alertIds: number[] = []) =>
		answer({ decision: 'block', reason, alertIds });
	const keys = s.record ? await keysOf() : undefined;
	// 1. Store the payment with this run's claim of generation 0.
	let claimStatus = upper(transaction.attributes.status);
	let stored;
	try {
		stored = await storeTransaction(
			ctx,
			transaction,
			i,
			deadline,
			keys ? claimAttribute(keys, transaction, 0, { run, execution, status: claimStatus }) : {},
		);
	} catch (error) {
		let failed;
		try {
			failed = storeFailure(ctx, error, transaction, i);
		} catch (thrown) {
			// Refused for a reason to fix: the item fails, saying the store (never a check) was refused.
			steps.store = 'store-refused';
			const reason = {
				code: 'store-refused' as const,
				text: `store refused: ${shortFailure(thrown)}`,
			};
			throw withItemFacts(thrown as Error, answer({ decision: 'block', reason, alertIds: [] }));
		}
		steps.store = failed.reason.code;
		// It may be stored with this run's claim: that run decided nothing, so the next copy checks it.
		if (failed.reached && keys)
			void decidedNothing(ctx, keys, transaction, 0, run, execution, names, claimStatus, i);
		return answer(
			{ decision: 'block', reason: failed.reason, alertIds: [] },
			{
				...(failed.differences ? { differences: failed.differences } : {}),
				...(failed.reached ? { mayHaveApplied: true } : {}),
			},
		);
	}
	steps.store = String(stored.json.result);
	const facts: IDataObject = stored.json.afterLostAnswer ? { afterLostAnswer: true } : {};

	// 2. Found stored: the record says what follows.
	let generation = 0;
	if (stored.json.result !== 'created') {
		if (!keys) return block(REASONS.notRecorded);
		let [attributes, reads] = [stored.stored, 0];
		const found = (stored: IDataObject) =>
			onFound({
				generations: readGenerations(stored, keys, transaction),
				status: upper(stored.status),
				releaseStatuses: s.release,
				checks: names,
				run,
				checkStoredBefore: s.storedBefore,
			});
		for (;;) {
			const status = upper(attributes.status);
			const next = found(attributes);
			steps.record = {
				found: next.step,
				...('generation' in next ? { generation: next.generation } : {}),
				...(reads ? { reads } : {}),
			};
			if (next.step === 'block') {
				if (next.heldAlert) steps.heldAlert = next.heldAlert;
				if (next.record !== undefined) {
					const by = { checks: names, status, run, execution, release: s.release[0] };
					recordBlock(ctx, transaction, keys, next.record, next.reason, by, i);
					steps.record = { ...steps.record, written: 'after answer' };
					steps.heldAlert = { status: 'after answer' };
				}
				return block(next.reason, next.alertIds);
			}
			if (next.step === 'lookup') {
				const decided = afterLookup(await bothHolds(ctx, transaction, s.person, i, deadline));
				steps.lookup = decided.decision === 'clear' ? 'none' : (decided.reason?.code ?? '');
				return answer(
					{ ...decided, alertIds: [] },
					next.released ? { released: next.released } : {},
				);
			}
			if (next.step === 'wait') {
				// Another run's claim without a decision: read again, backing off, until the next step is another.
				const polled = await pollUntil(
					ctx,
					waitPolicy(deadline),
					async () => {
						reads++;
						return (await readStoredTransaction(ctx, transaction, i, deadline)) ?? {};
					},
					(read) => found(read).step !== 'wait',
				).catch(() => undefined);
				if (polled?.ended !== 'done' || !polled.value) {
					if (polled?.ended === 'timedOut' && polled.value)
						void raiseStalledAlert(
							ctx,
							transaction,
							next.generation,
							{ run, execution },
							s.release[0],
							i,
						);
					return block(REASONS.stillDeciding);
				}
				attributes = polled.value;
				continue;
			}
			generation = next.generation;
			if (!next.take) break;
			// Take the claim of this generation: the run whose claim the service's answer holds checks the payment.
			claimStatus = status;
			try {
				attributes = await addRecord(
					ctx,
					transaction,
					claimAttribute(keys, transaction, generation, { run, execution, status }),
					i,
					deadline,
				);
			} catch {
				void decidedNothing(ctx, keys, transaction, generation, run, execution, names, status, i);
				return block(REASONS.claimNotTaken);
			}
			// An answer without the claim says nothing of who holds it; another run's claim is waited for as any.
			const taken = readGenerations(attributes, keys, transaction)[generation]?.claim;
			if (!taken) return block(REASONS.claimNotTaken);
			if (taken.kind === 'valid' && taken.run === run) break;
		}
	}

	// 3. The checks side by side, the person lookup beside them.
	const person = personHolds(ctx, transaction.personId, s.person, i, deadline);
	const settled = await Promise.allSettled(
		s.checks.map(async (check) => await transactionCheck(ctx, transaction.id, check, i, deadline)),
	);
	// The execution cancelled: nothing more is sent (no alert, no record), and the item fails with the cancel.
	const cancelled = settled.find(
		(result) => result.status === 'rejected' && failureOf(result.reason)?.kind === 'cancelled',
	);
	if (cancelled) throw (cancelled as PromiseRejectedResult).reason;
	const answers = settled.map((result, k) => checkAnswer(result, s.checks[k].key));
	answers.forEach((a, k) => (steps[s.checks[k].name] = a.kind));

	// 4. The payment's open-alerts lookup after them: an alert another checker raised meanwhile is open by now.
	const lookup = allClear(answers)
		? firstHold(await paymentAlerts(ctx, transaction.id, i, deadline), await person)
		: undefined;
	void person.catch(() => undefined);
	if (lookup) steps.lookup = lookup.kind === 'open' ? lookup.reason.code : lookup.kind;

	// 5. The decision; a block no check raised an alert for goes to the analysts' queue.
	const checked = afterChecks(names, answers, lookup);
	const decided: RecordedDecision = {
		decision: checked.record,
		...(checked.reason ? { code: checked.reason.code, reason: checked.reason.text } : {}),
		checks: names,
		answered: checked.answered,
		alertIds: checked.alertIds,
		status: claimStatus,
		run,
	};
	if (keys) {
		// After the answer: the manual alert a block needs, then the decision naming it.
		const reason = checked.heldAlert ? checked.reason : undefined;
		void (async () => {
			if (reason)
				decided.heldAlert = await raiseHeldAlert(ctx, transaction, reason, s.release[0], i);
			await addRecord(
				ctx,
				transaction,
				decisionAttribute(keys, transaction, generation, decided, execution),
				i,
			);
		})().catch(() => undefined);
		steps.record = { ...steps.record, generation, written: 'after answer' };
		if (reason) steps.heldAlert = { status: 'after answer' };
	}
	// The checks' lists, and whether one may have run without an answer (it is never sent again).
	const lists: IDataObject = { ...facts };
	settled.forEach((result, k) => {
		lists[s.checks[k].key] = result.status === 'fulfilled' ? result.value.outcome.list : [];
		if (result.status === 'rejected' && failureOf(result.reason)?.mayHaveApplied)
			lists.mayHaveApplied = true;
	});
	const json = answer(
		{ decision: checked.decision, reason: checked.reason, alertIds: checked.alertIds },
		lists,
	);
	// A check refused for a reason to fix (403, 404, a refused credential) fails the item, which keeps the decision.
	const refusal = settled.find(
		(result, k) =>
			result.status === 'rejected' &&
			answers[k].kind === 'refused' &&
			(answers[k] as { fails: boolean }).fails,
	);
	if (refusal) throw withItemFacts((refusal as PromiseRejectedResult).reason as Error, json);
	return json;
}
