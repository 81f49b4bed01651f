import { randomUUID } from 'node:crypto';

import type { Json } from '../harness/client';
import { control, nodeItems, runAml, transactionCreateFromInput } from '../harness/context';
import { FULL, report, size, tally } from './helpers';

/**
 * Soak: transactions created through the AML node (Continue On Fail on) while the sandbox answers 10 % 5xx, 5 % 429
 * (half with Retry-After), drops 1 % of connections and every token expires every 30 s. Half of the persons get
 * their faults after the write (a lost answer: stored, then 5xx or dropped), so the node's repeat finds a stored
 * transaction. Afterwards the sandbox holds exactly the input transactions, and every input item has its result
 * or an error item naming why.
 *
 *   AML_FAULTS_SOAK_ITEMS   items (short 1,000; full 10,000)
 *   AML_FAULTS_SOAK_BATCH   items per execution (2,500)
 *   AML_FAULTS_TOKEN_EXPIRE_S  seconds between forced token expiries (short 5, full 30)
 */
const ITEMS = size('SOAK_ITEMS', 1000, 10_000);
const BATCH = size('SOAK_BATCH', 2500, 2500);
const EXPIRE_S = size('TOKEN_EXPIRE_S', 5, 30);
const PERSONS = 20;
const suffix = randomUUID().slice(0, 6);
const personId = (p: number) => `soak-${suffix}-${p % 2 ? 'a' : 'b'}${p}`;
const txId = (i: number) => `soak-${suffix}-t${i}`;

const FAULTS = {
	errorRate: 0.1,
	errorStatus: 503,
	rate429: 0.05,
	retryAfterRate: 0.5,
	dropRate: 0.01,
};

const createParams = (onExisting = 'error') =>
	transactionCreateFromInput({ onExisting, options: { parallelRequests: 8 } });

beforeAll(async () => {
	await control.post('/reset');
	// Persons under no faults; the seeded scenarios stay quiet below 5,000 (no alerts, no webhooks).
	const persons = Array.from({ length: PERSONS }, (_, p) => ({
		id: personId(p),
		first_name: `Soak${p}`,
		last_name: 'Test',
		country: 'DE',
	}));
	const run = await runAml(
		{
			resource: 'person',
			operation: 'create',
			personId: '={{ $json.id }}',
			personType: 'INDIVIDUAL',
			attributesMode: 'input',
			excludeInputFields: 'id',
		},
		persons,
	);
	expect(run.status).toBe('success');
});

afterAll(async () => {
	await control.del('/faults').catch(() => undefined);
	// Workflows (and so their executions) are kept: secrets.test.ts searches them; the suite's n8n is removed afterwards.
});

test(
	`soak: ${ITEMS} transactions under 5xx, 429, dropped connections and token expiry — none lost, none duplicated`,
	async () => {
		const items: Json[] = Array.from({ length: ITEMS }, (_, i) => ({
			personId: personId(i % PERSONS),
			id: txId(i),
			amount: `${(i % 4000) + 1}.${String(i % 100).padStart(2, '0')}`,
			type: 'payment',
			direction: i % 2 ? 'I' : 'O',
			timestamp: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
			reference: `soak ${i}`,
		}));
		const statsBefore = await control.get('/stats');
		await control.post('/faults', {
			seed: 7,
			rules: [
				// persons "a…": the write happens, then the answer is replaced (lost answers); 429 is always before
				{
					method: 'POST',
					path: `^/api/v1/persons/soak-${suffix}-a\\d+/transactions$`,
					...FAULTS,
					when: 'after',
				},
				{ ...FAULTS },
			],
		});
		let expiries = 0;
		const timer = setInterval(() => {
			expiries++;
			control.post('/tokens/expire').catch(() => undefined);
		}, EXPIRE_S * 1000);
		const started = Date.now();
		const results: Json[] = new Array(ITEMS);
		const errors: Array<{ index: number; error: string; description?: string }> = [];
		try {
			for (let from = 0; from < ITEMS; from += BATCH) {
				const batch = items.slice(from, from + BATCH);
				const run = await runAml(
					createParams(),
					batch,
					{ continueOnFail: true },
					{ timeoutMs: 60 * 60_000 },
				);
				expect(run.status).toBe('success');
				const out = nodeItems(run.execution, 'AML');
				expect(out).toHaveLength(batch.length);
				for (const item of out) {
					const index = from + (item.pairedItem?.item as number);
					expect(results[index]).toBeUndefined();
					results[index] = item.json;
					if (item.json.error !== undefined)
						errors.push({ index, error: item.json.error, description: item.json.description });
				}
			}
		} finally {
			clearInterval(timer);
			await control.del('/faults');
		}
		const ms = Date.now() - started;

		// Every input item has exactly one output item: its result, or an error that says why.
		for (let i = 0; i < ITEMS; i++) {
			const json = results[i];
			expect(json).toBeDefined();
			if (json.error !== undefined) {
				expect(typeof json.error).toBe('string');
				expect(json.error).toMatch(
					/Service error|Rate limit|could not be reached|No answer from the AML service|Authentication/,
				);
				// a create an attempt of which reached the service without an answer may have been stored: it says so
				if (
					/^(Service error|No answer)/.test(json.error) &&
					/^POST /.test(String(json.description))
				)
					expect(json.error).toMatch(/may have been applied/);
				expect(json.itemIndex).toBe(i % BATCH);
			} else {
				expect(json).toMatchObject({ id: txId(i), personId: items[i].personId });
				// "created" only when the create itself answered; after a lost answer the repeat's 422 says "exists"
				if (json.result === 'created') expect(json.afterLostAnswer).toBeUndefined();
				else expect(json).toMatchObject({ result: 'exists', afterLostAnswer: true });
			}
		}

		const stats = await control.get('/stats');
		const log = await control.get<Json[]>('/requests');
		const creates = log.filter(
			(r) => r.method === 'POST' && /^\/api\/v1\/persons\/soak-[^/]+\/transactions$/.test(r.path),
		);
		const firstPass = {
			items: ITEMS,
			executions: Math.ceil(ITEMS / BATCH),
			seconds: Math.round(ms / 100) / 10,
			results: ITEMS - errors.length,
			existsAfterLostAnswer: results.filter((r) => r?.afterLostAnswer === true).length,
			errorItems: errors.length,
			createRequests: creates.length,
			retried: creates.length - ITEMS,
			answers: tally(creates.map((r) => r.status)),
			tokenExpiries: expiries,
			tokenRequests: stats.tokenRequests - statsBefore.tokenRequests,
			tokenRequests429: stats.tokenRequests429 - statsBefore.tokenRequests429,
		};

		// A second run over the items that failed (Skip if it exists): afterwards every transaction is stored once.
		let rerun = 0;
		if (errors.length) {
			const again = await runAml(
				createParams('skip'),
				errors.map((e) => items[e.index]),
				{ continueOnFail: true },
			);
			expect(again.outputs[0].filter((o) => o.error)).toEqual([]);
			rerun = errors.length;
		}
		const stored = (await control.get<Json[]>('/transactions')).filter((t) =>
			String(t.id).startsWith(`soak-${suffix}-`),
		);
		const ids = stored.map((t) => t.id as string);
		const unique = new Set(ids);
		report('soak', {
			...firstPass,
			rerun,
			stored: stored.length,
			storedUnique: unique.size,
			full: FULL,
			errors: errors.slice(0, 5),
		});
		expect(unique.size).toBe(ids.length);
		expect(stored).toHaveLength(ITEMS);
		for (let i = 0; i < ITEMS; i += 97) expect(unique.has(txId(i))).toBe(true);
		const sample = stored.find((t) => t.id === txId(ITEMS - 1))!;
		expect(sample.attributes).toEqual({
			amount: items[ITEMS - 1].amount,
			type: 'payment',
			direction: items[ITEMS - 1].direction,
			timestamp: items[ITEMS - 1].timestamp,
			reference: `soak ${ITEMS - 1}`,
		});
		// The faults really happened, and the token endpoint was never overrun.
		expect(firstPass.retried).toBeGreaterThan(ITEMS * 0.05);
		expect(firstPass.tokenRequests429).toBe(0);
		// One token request per forced expiry at most (plus the first after the reset).
		expect(firstPass.tokenRequests).toBeLessThanOrEqual(expiries + 2);
	},
	90 * 60_000,
);
