/**
 * The Gate's rules, once: pure functions from what is stored on the transaction and what this run's requests
 * answered to the next step. Nothing here sends a request or reads a clock (test/unit/gateRules.test.ts, a row per
 * rule).
 */

export type CheckName = 'monitoring' | 'screening';
export const CHECK_NAMES: CheckName[] = ['monitoring', 'screening'];

/** Short, stable codes of a block (`reasonCode` on the item, beside its text for people). */
export type ReasonCode =
	| 'alerts-raised'
	| 'alerts-open'
	| 'person-held'
	| 'check-unanswered'
	| 'check-refused'
	| 'lookup-failed'
	| 'timeout'
	| 'store-refused'
	| 'store-failed'
	| 'id-reused'
	| 'stored-before-gate'
	| 'still-deciding'
	| 'record-unreadable'
	| 'record-full'
	| 'claim-not-taken'
	| 'not-recorded';

export interface Reason {
	code: ReasonCode;
	/** Said once, short, for people; never a service's body. */
	text: string;
}

const RELEASE_HINT = 'set a Release Status on the transaction to have it checked again';

/** The texts of the codes whose text is fixed. */
export const REASONS = {
	storedBeforeGate: {
		code: 'stored-before-gate',
		text: `stored before, not by a Gate (an import, Create): its earlier checks cannot be seen; ${RELEASE_HINT}`,
	},
	stillDeciding: {
		code: 'still-deciding',
		text: 'another run is deciding this payment: send it again later; if it stays so (that run died), review the transaction and set a Release Status',
	},
	stalled: {
		code: 'still-deciding',
		text: "the run that claimed this payment wrote no decision within a copy's whole time budget (it stopped, was cancelled or lost its record write); its checks may have raised alerts",
	},
	recordUnreadable: {
		code: 'record-unreadable',
		text: `the Gate's record on the transaction is not signed by a key of this credential; ${RELEASE_HINT}`,
	},
	recordFull: {
		code: 'record-full',
		text: 'the transaction holds the most decisions a Gate writes on one payment; review it and decide by hand',
	},
	claimNotTaken: {
		code: 'claim-not-taken',
		text: 'another run took the claim to check this payment; send it again later',
	},
	notRecorded: {
		code: 'not-recorded',
		text: 'payment stored before and decisions are not recorded (Record Decision on Transaction is off)',
	},
	alertsOpen: { code: 'alerts-open', text: 'alerts of the payment are open' },
	timeout: { code: 'timeout', text: 'timeout' },
} satisfies Record<string, Reason>;

/** The most generations (claim and decision pairs) a Gate writes on one transaction. */
export const MAX_GENERATIONS = 6;

/** A claim as read: this credential's Gate signed it, or not. */
export type ClaimRead =
	| { kind: 'valid'; run: string; execution: string; status: string }
	| { kind: 'unreadable' };

export interface RecordedDecision {
	/** `none`: the run decided nothing (no check ran), and the next copy checks. */
	decision: 'clear' | 'block' | 'none';
	code?: ReasonCode;
	reason?: string;
	/** The checks the run had enabled. */
	checks: CheckName[];
	/** Every enabled check answered 2xx within the budget. */
	answered: boolean;
	alertIds: number[];
	/** The transaction's status when the run claimed it: a release is a Release Status other than this one. */
	status: string;
	run: string;
	/** The manual alert the Gate raised for the block, or why it could not. */
	heldAlert?: HeldAlert;
}

/** The manual alert that puts a held payment in the analysts' queue, as the service answered its raise. */
export type HeldAlert =
	| { status: 'raised'; alertId: number }
	| { status: 'not raised'; reason: string };

export type DecisionRead = ({ kind: 'valid' } & RecordedDecision) | { kind: 'unreadable' };

/** One generation of the record: the claim of a run to check the payment, and that run's decision. */
export interface Generation {
	claim?: ClaimRead;
	decision?: DecisionRead;
}

export interface FoundState {
	/** Generation n at index n (0: sent with the store); trailing empty ones left out. */
	generations: Generation[];
	/** The transaction's stored status, upper case ('' for none). */
	status: string;
	releaseStatuses: string[];
	checks: CheckName[];
	/** This run's ID (its store's claim, or one it took). */
	run: string;
	/** Check a payment stored before the Gate at once (option; default: block). */
	checkStoredBefore: boolean;
}

/**
 * What a run that found the payment stored does next: check it under its own claim of `generation` (`take`: the
 * claim is added first), wait for another run's decision, answer it after the open-alerts lookup (a recorded clear,
 * or a released block whose checks all answered), or answer a block (`record`: the block is the payment's decision,
 * written as generation `generation`).
 */
export type FoundStep =
	| { step: 'check'; generation: number; take: boolean }
	| { step: 'wait'; generation: number }
	| { step: 'lookup'; generation: number; released?: string }
	| { step: 'block'; reason: Reason; alertIds: number[]; record?: number; heldAlert?: HeldAlert };

const covers = (decision: RecordedDecision, checks: CheckName[]) =>
	checks.every((check) => decision.checks.includes(check));

/** The Release Status set after `status` (the one the claim or block had), or undefined. */
export function releasedBy(
	state: Pick<FoundState, 'status' | 'releaseStatuses'>,
	status?: string,
): string | undefined {
	const now = state.status;
	return now && state.releaseStatuses.includes(now) && now !== (status ?? '').toUpperCase()
		? now
		: undefined;
}

/** The next step of a run that found the payment stored. */
export function onFound(state: FoundState): FoundStep {
	const latest = state.generations.length - 1;
	const next = (): FoundStep =>
		latest + 1 >= MAX_GENERATIONS
			? { step: 'block', reason: REASONS.recordFull, alertIds: [] }
			: { step: 'check', generation: latest + 1, take: true };
	if (latest < 0)
		return state.checkStoredBefore
			? { step: 'check', generation: 0, take: true }
			: { step: 'block', reason: REASONS.storedBeforeGate, alertIds: [], record: 0 };
	const { claim, decision } = state.generations[latest];
	if (decision?.kind === 'unreadable' || (!decision && claim?.kind === 'unreadable'))
		// Not this credential's record: it says nothing of the payment; a Release Status has it checked.
		return releasedBy(state)
			? next()
			: { step: 'block', reason: REASONS.recordUnreadable, alertIds: [] };
	if (!decision) {
		const own = claim as Extract<ClaimRead, { kind: 'valid' }>;
		if (own.run === state.run) return { step: 'check', generation: latest, take: false };
		// A claim without a decision holds every other copy, until its decision or a release made after it.
		return releasedBy(state, own.status) ? next() : { step: 'wait', generation: latest };
	}
	if (decision.decision === 'none') return next();
	if (decision.decision === 'clear')
		return covers(decision, state.checks) ? { step: 'lookup', generation: latest } : next();
	const released = releasedBy(state, decision.status);
	if (!released)
		return {
			step: 'block',
			reason: { code: decision.code ?? 'check-unanswered', text: decision.reason ?? 'blocked' },
			alertIds:
				decision.heldAlert?.status === 'raised'
					? [...decision.alertIds, decision.heldAlert.alertId]
					: decision.alertIds,
			...(decision.heldAlert ? { heldAlert: decision.heldAlert } : {}),
		};
	// Released: a block whose enabled checks all answered needs only the lookup; any other is checked again.
	return decision.answered && covers(decision, state.checks)
		? { step: 'lookup', generation: latest, released }
		: next();
}

/**
 * What one check gave: a 2xx list (`clear` or `hits`), `unknown` (it may have run without an answer the Gate can
 * use: no answer in time, a 5xx, an unreadable 2xx) or `refused` (the service did not run it: 429, 401, another 4xx,
 * not sent, a refused connection; `fails`: the item fails as an error to fix).
 */
export type CheckAnswer =
	| { kind: 'clear' }
	| { kind: 'hits'; alertIds: number[]; text: string }
	| { kind: 'unknown'; alertIds: number[]; text: string; timeout: boolean }
	| { kind: 'refused'; text: string; fails: boolean };

/** What the open-alerts lookup and the person lookup gave. */
export type LookupAnswer =
	| { kind: 'none' }
	| { kind: 'open'; reason: Reason }
	| { kind: 'failed'; text: string; timeout: boolean };

/** The decision of a run that checked the payment. */
export interface Checked {
	decision: 'clear' | 'block';
	reason?: Reason;
	alertIds: number[];
	/** What the run writes as its generation: `none` decided nothing (the next copy checks). */
	record: 'clear' | 'block' | 'none';
	answered: boolean;
	/** The Gate raises a manual alert: a block that stands as the payment's decision and that no check raised one for. */
	heldAlert: boolean;
}

/** Whether the checks' answers allow the lookup: every enabled check answered an empty 2xx list. */
export const allClear = (answers: CheckAnswer[]) =>
	answers.every((answer) => answer.kind === 'clear');

/**
 * The decision from this run's own checks and, when they were all clear, the lookup after them (the payment's open
 * alerts, then the person's): Clear only when every enabled check answered 2xx with nothing and no alert is open.
 */
export function afterChecks(
	checks: CheckName[],
	answers: CheckAnswer[],
	lookup?: LookupAnswer,
): Checked {
	const alertIds = [...new Set(answers.flatMap((a) => ('alertIds' in a ? a.alertIds : [])))];
	const answered = answers.every((a) => a.kind === 'clear' || a.kind === 'hits');
	const block = (reason: Reason, record: 'block' | 'none', heldAlert: boolean): Checked => ({
		decision: 'block',
		reason,
		alertIds,
		record,
		answered,
		heldAlert: heldAlert && alertIds.length === 0,
	});
	const named = (i: number, text: string) => `${checks[i]}: ${text}`;
	const hit = answers.findIndex((a) => a.kind === 'hits');
	if (hit >= 0)
		return block(
			{ code: 'alerts-raised', text: named(hit, (answers[hit] as { text: string }).text) },
			'block',
			false,
		);
	const unknown = answers.findIndex((a) => a.kind === 'unknown');
	if (unknown >= 0) {
		const answer = answers[unknown] as Extract<CheckAnswer, { kind: 'unknown' }>;
		return block(
			answer.timeout
				? REASONS.timeout
				: { code: 'check-unanswered', text: named(unknown, answer.text) },
			'block',
			true,
		);
	}
	const refused = answers.findIndex((a) => a.kind === 'refused');
	if (refused >= 0) {
		// No check ran unseen: the block decides nothing, and the next copy checks the payment itself.
		const answer = answers[refused] as Extract<CheckAnswer, { kind: 'refused' }>;
		return block({ code: 'check-refused', text: named(refused, answer.text) }, 'none', false);
	}
	if (!lookup) throw new Error('afterChecks: checks all clear, lookup missing');
	if (lookup.kind === 'open')
		return block(lookup.reason, 'block', lookup.reason.code !== 'alerts-open');
	if (lookup.kind === 'failed')
		return block(
			lookup.timeout
				? REASONS.timeout
				: { code: 'lookup-failed', text: `open-alerts lookup failed: ${lookup.text}` },
			'block',
			true,
		);
	return { decision: 'clear', alertIds: [], record: 'clear', answered: true, heldAlert: false };
}

/** The answer of a recorded clear or a released block after the lookup alone (nothing is written). */
export function afterLookup(lookup: LookupAnswer): {
	decision: 'clear' | 'block';
	reason?: Reason;
} {
	if (lookup.kind === 'none') return { decision: 'clear' };
	if (lookup.kind === 'open') return { decision: 'block', reason: lookup.reason };
	return {
		decision: 'block',
		reason: lookup.timeout
			? REASONS.timeout
			: { code: 'lookup-failed', text: `open-alerts lookup failed: ${lookup.text}` },
	};
}
