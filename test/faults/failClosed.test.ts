import { randomUUID } from 'node:crypto';

import type { Json } from '../harness/client';
import { control, runAml } from '../harness/context';
import { report, size } from './helpers';

/**
 * Fail-closed: a transaction monitoring or screening check that answers 5xx, times out or drops the connection
 * routes the item to Block — in every case, not just usually. Each such check reached the service and may have run
 * (and raised its alert): it is sent once, never repeated, and blocks with `check outcome unknown` and
 * `mayHaveApplied`. Per check type one execution with N items of each
 * fault kind plus clean items (which must stay Clear); both check types run at the same time.
 *
 *   AML_FAULTS_CHECK_ITEMS  items per fault kind and check type (short 30, full 100)
 */
const N = size('CHECK_ITEMS', 30, 100);
const CLEAN = 10;
const suffix = randomUUID().slice(0, 6);
const owner = `fc-${suffix}-owner`;
const KINDS = ['e5xx', 'drop', 'hang'] as const;
const tx = (kind: string, i: number) => `fc-${suffix}-${kind}-${i}`;
const REASON: Record<(typeof KINDS)[number], RegExp> = {
	e5xx: /^check outcome unknown: Service error \(500\).*may have been applied/,
	drop: /^check outcome unknown: No answer from the AML service \(connection dropped\).*may have been applied/,
	// one 1 s attempt, not repeated: well inside the check's Time Budget (10 s by default)
	hang: /^check outcome unknown: No answer from the AML service \(timed out\).*may have been applied/,
};

beforeAll(async () => {
	await control.post('/reset');
	const person = await runAml({
		resource: 'person',
		operation: 'create',
		personId: owner,
		personType: 'INDIVIDUAL',
		attributesMode: 'json',
		attributesJson: '{"first_name":"Fail","last_name":"Closed","country":"DE"}',
	});
	expect(person.status).toBe('success');
	const ids = [
		...KINDS.flatMap((k) => Array.from({ length: N }, (_, i) => tx(k, i))),
		...Array.from({ length: CLEAN }, (_, i) => tx('ok', i)),
	];
	const created = await runAml(
		{
			resource: 'transaction',
			operation: 'create',
			personId: owner,
			transactionId: '={{ $json.id }}',
			attributesMode: 'input',
			excludeInputFields: 'id',
		},
		// Small amounts, one per hour: no scenario fires, so a clean check is Clear.
		ids.map((id, i) => ({
			id,
			amount: '25.00',
			type: 'payment',
			direction: 'O',
			timestamp: new Date(Date.UTC(2026, 1, 1) + i * 3_600_000).toISOString(),
			receiver_name: 'Ordinary Shop',
		})),
	);
	expect(created.status).toBe('success');
});

afterAll(async () => {
	await control.del('/faults').catch(() => undefined);
	// Workflows (and so their executions) are kept: secrets.test.ts searches them; the suite's n8n is removed afterwards.
});

test(
	`fail-closed: ${N} items × 5xx, timeout, dropped connection × monitoring and screening → 100 % Block`,
	async () => {
		const checks = '(monitoring|screening)-checks';
		await control.post('/faults', {
			rules: [
				{
					method: 'POST',
					path: `^/api/v1/transactions/fc-${suffix}-e5xx-\\d+/${checks}$`,
					errorRate: 1,
					errorStatus: 500,
				},
				{
					method: 'POST',
					path: `^/api/v1/transactions/fc-${suffix}-drop-\\d+/${checks}$`,
					dropRate: 1,
				},
				{
					method: 'POST',
					path: `^/api/v1/transactions/fc-${suffix}-hang-\\d+/${checks}$`,
					hangRate: 1,
				},
			],
		});
		// Interleaved, so every kind meets every other in flight.
		const items: Json[] = [];
		for (let i = 0; i < N; i++) for (const kind of KINDS) items.push({ id: tx(kind, i), kind });
		for (let i = 0; i < CLEAN; i++)
			items.splice(i * Math.floor(items.length / CLEAN), 0, { id: tx('ok', i), kind: 'ok' });
		const mark = await control.mark();
		const started = Date.now();
		let runs;
		try {
			runs = await Promise.all(
				(['runMonitoringCheck', 'runScreeningCheck'] as const).map((operation) =>
					runAml(
						{
							resource: 'transaction',
							operation,
							transactionId: '={{ $json.id }}',
							options: { timeout: 1000, parallelRequests: 32 },
						},
						items,
						{},
						{ timeoutMs: 30 * 60_000 },
					),
				),
			);
		} finally {
			await control.del('/faults');
		}
		const seconds = Math.round((Date.now() - started) / 100) / 10;
		const log = (await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api'));
		const counts: Json = { itemsPerKind: N, clean: CLEAN, seconds, requests: log.length };
		for (const [i, operation] of ['monitoring', 'screening'].entries()) {
			const run = runs[i];
			expect(run.status).toBe('success');
			// Block is output 0, Clear output 1
			const [block, clear] = run.outputs;
			const key = operation === 'monitoring' ? 'results' : 'matches';
			for (const kind of KINDS) {
				const expected = Array.from({ length: N }, (_, j) => tx(kind, j)).sort();
				const blocked = block.filter((b) =>
					String(b.transactionId).startsWith(`fc-${suffix}-${kind}-`),
				);
				counts[`${operation}.${kind}`] = `${blocked.length}/${N} blocked`;
				expect(blocked.map((b) => b.transactionId).sort()).toEqual(expected);
				for (const b of blocked) {
					expect(b).toMatchObject({
						decision: 'block',
						[key]: [],
						alertIds: [],
						mayHaveApplied: true,
					});
					expect(b.reason).toMatch(REASON[kind]);
				}
				// Each failing check was really sent, once (never repeated: it may have run), before the item was blocked.
				const sent = log.filter(
					(r) =>
						r.path.startsWith(`/api/v1/transactions/fc-${suffix}-${kind}-`) &&
						r.path.endsWith(`/${operation}-checks`),
				);
				expect(sent.map((r) => r.path).sort()).toEqual(
					expected.map((id) => `/api/v1/transactions/${id}/${operation}-checks`).sort(),
				);
			}
			expect(clear.map((c) => c.transactionId).sort()).toEqual(
				Array.from({ length: CLEAN }, (_, j) => tx('ok', j)).sort(),
			);
			expect(clear.every((c) => c.decision === 'clear' && c.mayHaveApplied === undefined)).toBe(
				true,
			);
			expect(block).toHaveLength(N * KINDS.length);
		}
		report('fail-closed', counts);
	},
	30 * 60_000,
);
