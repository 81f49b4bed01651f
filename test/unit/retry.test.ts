/** nodes/Aml/transport/retry.ts: backoff and `decide`, the one retry decision. */
import {
	backoffDelay,
	decide,
	DEFAULT_BACKOFF,
	MIN_ATTEMPT_MS,
	parseRetryAfter,
} from '../../nodes/Aml/transport';

describe('backoff', () => {
	test('Retry-After as seconds and as HTTP date', () => {
		expect(parseRetryAfter('3')).toBe(3000);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('soon')).toBeUndefined();
	});

	test('exponential delays stay within [ceiling/2, ceiling] and the cap', () => {
		for (let attempt = 1; attempt <= 10; attempt++) {
			const ceiling = Math.min(
				DEFAULT_BACKOFF.maxDelayMs,
				DEFAULT_BACKOFF.baseDelayMs * 2 ** (attempt - 1),
			);
			expect(backoffDelay(attempt, DEFAULT_BACKOFF, undefined, () => 0)).toBe(ceiling / 2);
			expect(backoffDelay(attempt, DEFAULT_BACKOFF, undefined, () => 1)).toBe(ceiling);
		}
		expect(backoffDelay(1, DEFAULT_BACKOFF, 10 * 60_000)).toBe(DEFAULT_BACKOFF.maxRetryAfterMs);
	});
});

describe('decide: the one retry decision, row by row (answer or failure, policy, attempt, time left)', () => {
	const answer = (status: number) =>
		({
			outcome: { kind: 'answer', status, body: {}, headers: {} },
		}) as const;
	/** The request's `refusals`-th 401, where n8n can renew the token (`renews`) or not. */
	const unauthorized = (refusals: number, renews: boolean) =>
		({ ...answer(401), refusals, renews }) as const;
	const base = {
		...answer(503),
		retry: 'safe',
		policy: {},
		attempt: 1,
		maxAttempts: 6,
		unanswered: false,
		refusals: 0,
		renews: true,
		waitMs: 250,
		remainingMs: Infinity,
	} as const;
	const network = (code: string) => ({ outcome: { kind: 'network', code } }) as const;
	const token = {
		outcome: { kind: 'tokenEndpoint', tokenFailure: { kind: 'http', status: 503 } },
	} as const;
	/** The token step's "ask again" while the token endpoint is paused. */
	const again = { at: 0, since: 0, before: 0 };
	const done = (afterLostAnswer: boolean, unanswered = afterLostAnswer) => ({
		action: 'done',
		afterLostAnswer,
		unanswered,
	});
	const retry = (unanswered: boolean, waitMs = 250) => ({ action: 'retry', waitMs, unanswered });
	const renew = (unanswered = false) => ({ action: 'retry', waitMs: 0, renew: true, unanswered });
	const fail = (as: 'answer' | 'budget', unanswered: boolean) => ({
		action: 'fail',
		as,
		unanswered,
	});
	test.each([
		// answers
		['200 on a first attempt', answer(200), done(false)],
		['200 on a repeat after a lost answer', { ...answer(200), unanswered: true }, done(true)],
		['a passStatus is returned', { ...answer(404), policy: { passStatuses: [404] } }, done(false)],
		[
			'a check answered after the budget: the budget’s error',
			{ ...answer(200), retry: 'check', remainingMs: -1 },
			fail('budget', true),
		],
		[
			'a check answered with exactly nothing left of the budget: the budget’s error',
			{ ...answer(200), retry: 'check', remainingMs: 0 },
			fail('budget', true),
		],
		['a check answered in time', { ...answer(200), retry: 'check', remainingMs: 5 }, done(false)],
		[
			'422 on a create repeat: done after a lost answer',
			{ ...answer(422), retry: 'create', unanswered: true },
			done(true),
		],
		[
			'422 on a first create: its failure',
			{ ...answer(422), retry: 'create' },
			fail('answer', false),
		],
		[
			'422 on a safe repeat: its failure',
			{ ...answer(422), unanswered: true },
			fail('answer', true),
		],
		[
			'doneOnRepeat 404 on a repeat',
			{ ...answer(404), unanswered: true, policy: { doneOnRepeat: [404] } },
			done(true),
		],
		[
			'doneOnRepeat 404 on a first attempt: its failure',
			{ ...answer(404), policy: { doneOnRepeat: [404] } },
			fail('answer', false),
		],
		['429 in every mode', { ...answer(429), retry: 'none' }, retry(false)],
		['429 with attempts used up', { ...answer(429), attempt: 6 }, fail('answer', false)],
		['5xx on safe: repeated, sent', answer(503), retry(true)],
		['5xx on create: repeated, sent', { ...answer(500), retry: 'create' }, retry(true)],
		['5xx on none: not repeated, sent', { ...answer(502), retry: 'none' }, fail('answer', true)],
		['5xx on check: not repeated, sent', { ...answer(503), retry: 'check' }, fail('answer', true)],
		[
			'408 on check (a gateway gave up): not repeated, sent',
			{ ...answer(408), retry: 'check' },
			fail('answer', true),
		],
		['408 on safe: repeated, sent', answer(408), retry(true)],
		// a 401: the token renewed (token.ts), then sent once more
		[
			'a first 401: renewed, sent once more at once, in every mode',
			{ ...unauthorized(1, true), retry: 'none' },
			renew(),
		],
		[
			'a first 401 where n8n cannot renew: sent once more as it is',
			{ ...unauthorized(1, false), retry: 'check' },
			renew(),
		],
		[
			'a later 401 where n8n renews: renewed again (token.ts stops a run whose fresh tokens are refused)',
			unauthorized(3, true),
			renew(),
		],
		[
			'a second 401 where n8n cannot renew: its failure',
			unauthorized(2, false),
			fail('answer', false),
		],
		[
			'a 401 after a lost answer keeps unanswered',
			{ ...unauthorized(1, true), retry: 'create', unanswered: true },
			renew(true),
		],
		[
			'a 401 with the budget spent: the budget’s error',
			{ ...unauthorized(1, true), remainingMs: 0 },
			fail('budget', false),
		],
		[
			'a 401 with the attempts used up: its failure',
			{ ...unauthorized(1, true), attempt: 6 },
			fail('answer', false),
		],
		[
			'the run stopped asking for tokens (its fresh tokens refused): that 401, not repeated',
			{ outcome: { kind: 'service', status: 401, body: {} } },
			fail('answer', false),
		],
		[
			'403: its failure even with the budget spent',
			{ ...answer(403), remainingMs: 0 },
			fail('answer', false),
		],
		// no answer
		[
			'refused connection on none: repeated, never sent',
			{ ...network('ECONNREFUSED'), retry: 'none' },
			retry(false),
		],
		['dropped on safe: repeated, sent', network('ECONNRESET'), retry(true)],
		[
			'dropped on create: repeated, sent',
			{ ...network('ECONNRESET'), retry: 'create' },
			retry(true),
		],
		[
			'dropped on none: not repeated, sent',
			{ ...network('ECONNRESET'), retry: 'none' },
			fail('answer', true),
		],
		[
			'dropped on check: not repeated, sent',
			{ ...network('ECONNRESET'), retry: 'check' },
			fail('answer', true),
		],
		[
			'dropped on a check with the budget spent',
			{ ...network('ECONNRESET'), retry: 'check', remainingMs: -5 },
			fail('budget', true),
		],
		[
			'dropped with the attempts used up',
			{ ...network('ECONNRESET'), attempt: 6 },
			fail('answer', true),
		],
		[
			'attempts used up with the budget spent',
			{ ...network('ECONNRESET'), attempt: 6, remainingMs: 0 },
			fail('budget', true),
		],
		// the token endpoint (the token step waited already)
		['token endpoint failure: not repeated on top', token, fail('answer', false)],
		[
			'token endpoint failure after a lost answer keeps unanswered',
			{ ...token, unanswered: true },
			fail('answer', true),
		],
		[
			'a paused token endpoint: the token asked for again when the token step says, no attempt counted',
			{ ...token, outcome: { ...token.outcome, again }, attempt: 6, waitMs: 800 },
			retry(false, 800),
		],
		[
			'a paused token endpoint with less than MIN_ATTEMPT_MS left after the wait',
			{ ...token, outcome: { ...token.outcome, again }, waitMs: 800, remainingMs: 850 },
			fail('budget', false),
		],
		[
			'token endpoint waited until the budget was spent',
			{ ...token, remainingMs: 0 },
			fail('budget', false),
		],
		// the time budget
		[
			'a wait beyond the deadline (Retry-After)',
			{ ...answer(429), waitMs: 60_000, remainingMs: 5_000 },
			fail('budget', false),
		],
		[
			'a wait ending exactly at the deadline',
			{ ...answer(503), waitMs: 500, remainingMs: 500 },
			fail('budget', true),
		],
		[
			'a wait leaving 1 ms for the repeat (less than MIN_ATTEMPT_MS): no repeat starts',
			{ ...answer(503), waitMs: 500, remainingMs: 501 },
			fail('budget', true),
		],
		[
			'a renewal with less than MIN_ATTEMPT_MS left',
			{ ...unauthorized(1, true), remainingMs: MIN_ATTEMPT_MS - 1 },
			fail('budget', false),
		],
		[
			'a wait leaving MIN_ATTEMPT_MS for a repeat',
			{ ...answer(503), waitMs: 500, remainingMs: 500 + MIN_ATTEMPT_MS },
			retry(true, 500),
		],
		// statuses the endpoint declares "not yet" (a 404 right after the run's own create)
		[
			'a "not yet" status is repeated with backoff, in every mode',
			{ ...answer(404), retry: 'none', policy: { notYet: [404] } },
			retry(false),
		],
		[
			'a "not yet" status after the last attempt fails as itself',
			{ ...answer(404), policy: { notYet: [404] }, attempt: 6 },
			fail('answer', false),
		],
		['a 404 not declared "not yet" is not repeated', answer(404), fail('answer', false)],
	] as const)('%s', (_name, change, expected) => {
		expect(decide({ ...base, ...change } as Parameters<typeof decide>[0])).toEqual(expected);
	});
});
