import {
	afterChecks,
	afterLookup,
	MAX_GENERATIONS,
	onFound,
	type CheckAnswer,
	type CheckName,
	type FoundState,
	type FoundStep,
	type Generation,
	type LookupAnswer,
	type RecordedDecision,
} from '../../nodes/Aml/actions/transaction/gate/rules';

/**
 * The Gate's rules (gate/rules.ts), a row each: what a run that found the payment stored does next, and the decision
 * from this run's own checks and the lookup after them.
 */

const BOTH: CheckName[] = ['monitoring', 'screening'];
const claim = (run: string, status = '') => ({
	claim: { kind: 'valid' as const, run, execution: '7', status },
});
const decided = (d: Partial<RecordedDecision>): Generation['decision'] => ({
	kind: 'valid',
	decision: 'block',
	checks: BOTH,
	answered: true,
	alertIds: [],
	status: '',
	run: 'first',
	...d,
});
const state = (generations: Generation[], extra: Partial<FoundState> = {}): FoundState => ({
	generations,
	status: '',
	releaseStatuses: ['RELEASED'],
	checks: BOTH,
	run: 'me',
	checkStoredBefore: false,
	...extra,
});

describe('onFound: what a run that found the payment stored does next', () => {
	const rows: Array<[string, FoundState, Partial<FoundStep> & { step: FoundStep['step'] }]> = [
		// #65 point 2: stored before the Gate (no claim): blocked and recorded, or checked under a claim by option
		[
			'no Gate record: a block that stands, recorded as generation 0',
			state([]),
			{ step: 'block', record: 0 },
		],
		[
			'no Gate record, Check Payments Stored Before on: claim 0 taken, then checked',
			state([], { checkStoredBefore: true }),
			{ step: 'check', generation: 0, take: true },
		],
		[
			'its own claim (the store answer was lost): it checks',
			state([claim('me')]),
			{ step: 'check', generation: 0, take: false },
		],
		[
			"another run's claim without a decision: it waits (no clock ends a claim)",
			state([claim('first')]),
			{ step: 'wait', generation: 0 },
		],
		[
			"another run's claim without a decision, released after it: the next claim, then checked",
			state([claim('first')], { status: 'RELEASED' }),
			{ step: 'check', generation: 1, take: true },
		],
		[
			'a claim that had the Release Status when it was taken: not released by it',
			state([claim('first', 'RELEASED')], { status: 'RELEASED' }),
			{ step: 'wait' },
		],
		[
			'a decision that decided nothing (no check ran): the next copy checks under the next claim',
			state([{ ...claim('first'), decision: decided({ decision: 'none' }) }]),
			{ step: 'check', generation: 1, take: true },
		],
		// #65 point 4: a recorded clear is answered only after the lookup
		[
			'a recorded clear covering the enabled checks: the lookup, then its answer',
			state([{ ...claim('first'), decision: decided({ decision: 'clear' }) }]),
			{ step: 'lookup', generation: 0 },
		],
		// #65 point 5: a decision says which checks ran
		[
			'a recorded clear of a Gate without screening, this Gate screens: checked again',
			state([
				{ ...claim('first'), decision: decided({ decision: 'clear', checks: ['monitoring'] }) },
			]),
			{ step: 'check', generation: 1, take: true },
		],
		[
			'a recorded clear with both checks, this Gate only monitors: covered',
			state([{ ...claim('first'), decision: decided({ decision: 'clear' }) }], {
				checks: ['monitoring'],
			}),
			{ step: 'lookup' },
		],
		[
			'a recorded block, not released: answered as recorded, with its code and alerts',
			state([
				{
					...claim('first'),
					decision: decided({
						code: 'alerts-raised',
						reason: 'monitoring: 1 scenario',
						alertIds: [5],
					}),
				},
			]),
			{
				step: 'block',
				reason: { code: 'alerts-raised', text: 'monitoring: 1 scenario' },
				alertIds: [5],
			},
		],
		[
			'a recorded block released, its checks all answered: the lookup only',
			state([{ ...claim('first'), decision: decided({ alertIds: [5] }) }], { status: 'RELEASED' }),
			{ step: 'lookup', released: 'RELEASED' },
		],
		// #65 point 6: a release of a block whose checks did not all answer checks again
		[
			'a recorded block released, a check never answered: checked again under claim 1',
			state([{ ...claim('first'), decision: decided({ answered: false }) }], {
				status: 'RELEASED',
			}),
			{ step: 'check', generation: 1, take: true },
		],
		[
			'a released block of a Gate without screening, this Gate screens: checked again',
			state([{ ...claim('first'), decision: decided({ checks: ['monitoring'] }) }], {
				status: 'RELEASED',
			}),
			{ step: 'check', generation: 1 },
		],
		[
			'a block recorded with the Release Status as its status: that status does not release it',
			state([{ ...claim('first'), decision: decided({ status: 'RELEASED' }) }], {
				status: 'RELEASED',
			}),
			{ step: 'block' },
		],
		// #65 point 3: a record that does not verify, then a release: checked under the next claim (its block recorded)
		[
			'a decision not signed by a key of this credential: a block of its own',
			state([{ ...claim('first'), decision: { kind: 'unreadable' } }]),
			{ step: 'block', reason: { code: 'record-unreadable', text: expect.any(String) as never } },
		],
		[
			'a decision not signed by a key of this credential, released: the next claim, checked and recorded',
			state([{ ...claim('first'), decision: { kind: 'unreadable' } }], { status: 'RELEASED' }),
			{ step: 'check', generation: 1, take: true },
		],
		[
			'an unreadable claim without a decision: a block',
			state([{ claim: { kind: 'unreadable' } }]),
			{ step: 'block' },
		],
		[
			'the latest generation rules: generation 1 decided clear after a released block',
			state(
				[
					{ ...claim('first'), decision: decided({ answered: false }) },
					{ ...claim('second'), decision: decided({ decision: 'clear', run: 'second' }) },
				],
				{ status: 'RELEASED' },
			),
			{ step: 'lookup', generation: 1 },
		],
		[
			'generation 1 claimed by another run after a release: wait for it',
			state(
				[
					{ ...claim('first'), decision: decided({ answered: false }) },
					claim('second', 'RELEASED'),
				],
				{ status: 'RELEASED' },
			),
			{ step: 'wait', generation: 1 },
		],
		[
			'the record full: a block, never another claim',
			state(
				Array.from({ length: MAX_GENERATIONS }, () => ({
					...claim('x'),
					decision: decided({ decision: 'none' }),
				})),
			),
			{ step: 'block', reason: { code: 'record-full', text: expect.any(String) as never } },
		],
	];
	test.each(rows)('%s', (_name, input, expected) => {
		expect(onFound(input)).toMatchObject(expected);
	});
});

const clear: CheckAnswer = { kind: 'clear' };
const hits: CheckAnswer = { kind: 'hits', alertIds: [9], text: '1 screening match(es)' };
const unknown: CheckAnswer = {
	kind: 'unknown',
	alertIds: [],
	text: 'the service answered 502',
	timeout: false,
};
const late: CheckAnswer = { kind: 'unknown', alertIds: [4], text: 'timeout', timeout: true };
const throttled: CheckAnswer = { kind: 'refused', text: 'the service answered 429', fails: false };
const none: LookupAnswer = { kind: 'none' };
const open: LookupAnswer = {
	kind: 'open',
	reason: { code: 'alerts-open', text: 'alerts of the payment are open' },
};
const person: LookupAnswer = {
	kind: 'open',
	reason: { code: 'person-held', text: "the person's status is SUSPENDED" },
};
const lookupFailed: LookupAnswer = {
	kind: 'failed',
	text: 'the service answered 503',
	timeout: false,
};

describe("afterChecks: the decision from this run's own checks and the lookup after them", () => {
	const rows: Array<
		[string, CheckAnswer[], LookupAnswer | undefined, Partial<ReturnType<typeof afterChecks>>]
	> = [
		[
			'every check clear and no alert open: Clear, recorded',
			[clear, clear],
			none,
			{ decision: 'clear', record: 'clear', answered: true, heldAlert: false },
		],
		// #65 point 1: the creator's lookup after its checks sees another checker's alert
		[
			'every check clear, an alert of the payment open: Block, its alerts already in the queue',
			[clear, clear],
			open,
			{ decision: 'block', reason: open.reason, record: 'block', answered: true, heldAlert: false },
		],
		// #66 point 2: the person's status or open alerts
		[
			"every check clear, the person's status holds payments: Block with a manual alert",
			[clear, clear],
			person,
			{ reason: person.reason, record: 'block', heldAlert: true },
		],
		[
			'a check raised an alert: Block, no manual alert (the check raised one)',
			[clear, hits],
			undefined,
			{
				reason: { code: 'alerts-raised', text: 'screening: 1 screening match(es)' },
				alertIds: [9],
				record: 'block',
				answered: true,
				heldAlert: false,
			},
		],
		// #65 point 7: a check not answered in time stands as the decision and goes to the queue
		[
			'a check not answered (502): Block that stands, with a manual alert; a release checks again',
			[clear, unknown],
			undefined,
			{
				reason: { code: 'check-unanswered', text: 'screening: the service answered 502' },
				record: 'block',
				answered: false,
				heldAlert: true,
			},
		],
		[
			'a check answered after the budget naming its alert: Block timeout with that alert, no manual alert',
			[late, clear],
			undefined,
			{
				reason: { code: 'timeout', text: 'timeout' },
				alertIds: [4],
				record: 'block',
				heldAlert: false,
			},
		],
		// #65 point 8: a check answered only 429/401/4xx decided nothing
		[
			'a check answered only 429, the other clear: Block that decides nothing (the next copy checks), no alert',
			[throttled, clear],
			undefined,
			{
				reason: { code: 'check-refused', text: 'monitoring: the service answered 429' },
				record: 'none',
				heldAlert: false,
			},
		],
		[
			'a check refused while the other raised an alert: the alert decides, a release checks again',
			[throttled, hits],
			undefined,
			{
				reason: { code: 'alerts-raised', text: expect.any(String) as never },
				record: 'block',
				answered: false,
			},
		],
		[
			'the lookup failed: Block that stands, with a manual alert; its checks answered (a release needs the lookup only)',
			[clear, clear],
			lookupFailed,
			{
				reason: { code: 'lookup-failed', text: expect.any(String) as never },
				record: 'block',
				answered: true,
				heldAlert: true,
			},
		],
		[
			'the lookup ran out of time: Block timeout',
			[clear],
			{ kind: 'failed', text: 'timeout', timeout: true },
			{ reason: { code: 'timeout', text: 'timeout' }, record: 'block' },
		],
	];
	test.each(rows)('%s', (_name, answers, lookup, expected) => {
		const names: CheckName[] = answers.length === 1 ? ['monitoring'] : BOTH;
		expect(afterChecks(names, answers, lookup)).toMatchObject(expected);
	});

	test('no clear without the lookup: every check clear and no lookup answer is refused', () => {
		expect(() => afterChecks(BOTH, [clear, clear])).toThrow(/lookup missing/);
	});
});

describe('afterLookup: a recorded clear or a released block answered on the lookup alone', () => {
	test.each([
		['nothing open: clear', none, { decision: 'clear' }],
		[
			'an alert raised after the clear (a manual alert, an OFFLINE scenario): block',
			open,
			{ decision: 'block', reason: open.reason },
		],
		[
			'the lookup failed: block',
			lookupFailed,
			{ decision: 'block', reason: { code: 'lookup-failed', text: expect.any(String) as never } },
		],
	] as Array<[string, LookupAnswer, object]>)('%s', (_name, lookup, expected) => {
		expect(afterLookup(lookup)).toMatchObject(expected);
	});
});
