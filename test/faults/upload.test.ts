import { randomUUID } from 'node:crypto';

import type { Json } from '../harness/client';
import { control, runAml } from '../harness/context';
import { apiRequestsSince, report, runOnCsv, tally } from './helpers';

/**
 * Data Upload under faults: the status polls of Wait for Completion meet 5xx, 429 and dropped connections (and
 * once a run of failures longer than the retries), yet FAILED and PARTIALLY_COMPLETED uploads surface their
 * reason and the first id not saved — as an error, or with Continue On Fail as an item with `success: false` —
 * and never as success. The file itself is sent exactly once.
 */
const suffix = randomUUID().slice(0, 6);
const personsCsv = (prefix: string, count: number, duplicateAt?: number) => {
	const rows = Array.from(
		{ length: count },
		(_, i) => `${prefix}-${duplicateAt === i ? 3 : i},INDIVIDUAL,F${i},Csv`,
	);
	return `id,type,first_name,last_name\n${rows.join('\n')}\n`;
};
const failingCsv = (prefix: string) =>
	`id,person_id,timestamp,amount,direction\n${prefix}-1,cust-1001,2026-01-01T00:00:00Z,1.00,I\n${prefix}-2,cust-1001,yesterday,2.00,O\n`;

const STATUS = '^/api/v1/data-upload/\\d+/status$';
const flaky = {
	method: 'GET',
	path: STATUS,
	errorRate: 0.3,
	errorStatus: 503,
	dropRate: 0.1,
	rate429: 0.1,
	retryAfterRate: 0.5,
};
// the first 8 status reads fail: more than one poll's 6 attempts, so waiting must outlast a failed poll
const flakyPolls = [
	{ method: 'GET', path: STATUS, errorRate: 1, errorStatus: 502, times: 8 },
	flaky,
];

afterAll(async () => {
	await control.del('/faults').catch(() => undefined);
	// Workflows (and so their executions) are kept: secrets.test.ts searches them; the suite's n8n is removed afterwards.
});

async function underFaults<T>(
	run: () => Promise<T>,
	rules: Json[] = flakyPolls,
): Promise<{ result: T; log: Json[] }> {
	const mark = await control.mark();
	await control.post('/faults', { seed: 11, rules });
	try {
		const result = await run();
		return { result, log: await apiRequestsSince(mark) };
	} finally {
		await control.del('/faults');
	}
}

const uploads = (log: Json[]) =>
	log.filter((r) => r.method === 'POST' && r.path === '/api/v1/data-upload');
const polls = (log: Json[]) => tally(log.filter((r) => r.method === 'GET').map((r) => r.status));

test(
	'Stop and Report: PARTIALLY_COMPLETED under flaky status polls: error with reason and first id not saved; Continue On Fail: success false',
	async () => {
		const prefix = `fp-${suffix}`;
		const csv = personsCsv(prefix, 1200, 1100);
		const stop = await underFaults(() =>
			runOnCsv(
				[{ csv }],
				{
					resource: 'dataUpload',
					operation: 'upload',
					uploadType: 'PERSON',
					waitForCompletion: true,
					options: { onRefusedRow: 'stop' },
				},
				{ timeoutMs: 15 * 60_000 },
			),
		);
		const { error, run, output } = stop.result;
		expect(run.status).toBe('error');
		expect(output).toEqual([]);
		expect(error?.message).toMatch(
			new RegExp(
				`ended with status PARTIALLY_COMPLETED: .*Duplicate person id ${prefix}-3\\b.*First id not saved: ${prefix}-1000`,
			),
		);
		expect(error?.description).toMatch(
			new RegExp(
				`offendingId: ${prefix}-3, lastSavedId: ${prefix}-999, firstIdNotSaved: ${prefix}-1000`,
			),
		);
		expect(uploads(stop.log).map((r) => r.status)).toEqual([202]);

		const cof = await underFaults(() =>
			runOnCsv(
				[{ csv: personsCsv(`${prefix}c`, 1200, 1100) }],
				{
					resource: 'dataUpload',
					operation: 'upload',
					uploadType: 'PERSON',
					options: { onRefusedRow: 'stop' },
				},
				{ continueOnFail: true, timeoutMs: 15 * 60_000 },
			),
		);
		expect(cof.result.run.status).toBe('success');
		expect(cof.result.output).toHaveLength(1);
		expect(cof.result.output[0]).toMatchObject({
			status: 'PARTIALLY_COMPLETED',
			success: false,
			firstIdNotSaved: `${prefix}c-1000`,
			lastSavedId: `${prefix}c-999`,
			offendingId: `${prefix}c-3`,
		});
		expect(cof.result.output[0].error).toMatch(/PARTIALLY_COMPLETED/);
		expect(uploads(cof.log).map((r) => r.status)).toEqual([202]);
		const stored = (await control.get<Json[]>('/persons')).filter((p) =>
			String(p.id).startsWith(`${prefix}-`),
		);
		expect(stored).toHaveLength(1000);
		report('upload-partially-completed', {
			error: error?.message,
			cofItem: cof.result.output[0],
			statusPolls: polls(stop.log),
			statusPollsCof: polls(cof.log),
		});
	},
	20 * 60_000,
);

test(
	'Skip It and Upload the Rest under flaky status polls: the rest is sent once, every row but the refused one stored once',
	async () => {
		const prefix = `fs-${suffix}`;
		const run = await underFaults(() =>
			runOnCsv(
				[{ csv: personsCsv(prefix, 2500, 1100) }],
				{ resource: 'dataUpload', operation: 'upload', uploadType: 'PERSON' },
				{ continueOnFail: true, timeoutMs: 15 * 60_000 },
			),
		);
		expect(run.result.output).toHaveLength(1);
		expect(run.result.output[0]).toMatchObject({
			success: false,
			rows: 2500,
			rowsStored: 2499,
			rowsNotStored: 1,
			refusedRows: [{ id: `${prefix}-3`, line: 1102 }],
		});
		expect(uploads(run.log).map((r) => r.status)).toEqual([202, 202]);
		const stored = (await control.get<Json[]>('/persons')).filter((p) =>
			String(p.id).startsWith(`${prefix}-`),
		);
		expect(stored).toHaveLength(2499);
		report('upload-skip-refused-row', { item: run.result.output[0], statusPolls: polls(run.log) });
	},
	20 * 60_000,
);

test(
	'FAILED under flaky status polls: error with reason and first id not saved (none stored); Get Status never says success',
	async () => {
		const prefix = `ff-${suffix}`;
		const stop = await underFaults(() =>
			runOnCsv(
				[{ csv: failingCsv(prefix) }],
				{ resource: 'dataUpload', operation: 'upload', uploadType: 'TRANSACTION' },
				{ timeoutMs: 15 * 60_000 },
			),
		);
		const { error, run } = stop.result;
		expect(run.status).toBe('error');
		expect(error?.message).toMatch(/ended with status FAILED: line 3: .*timestamp/i);
		expect(error?.description).toMatch(
			new RegExp(`none of its rows were stored \\(first id not saved: ${prefix}-1\\)`),
		);
		expect(uploads(stop.log).map((r) => r.status)).toEqual([202]);

		const cof = await underFaults(() =>
			runOnCsv(
				[{ csv: failingCsv(`${prefix}c`) }],
				{ resource: 'dataUpload', operation: 'upload', uploadType: 'TRANSACTION' },
				{ continueOnFail: true, timeoutMs: 15 * 60_000 },
			),
		);
		expect(cof.result.output[0]).toMatchObject({
			status: 'FAILED',
			success: false,
			line: 3,
			lastSavedId: null,
			firstIdNotSaved: `${prefix}c-1`,
		});
		expect(cof.result.output[0].reason).toMatch(/timestamp/);
		expect(
			(await control.get<Json[]>('/transactions', { personId: 'cust-1001' })).some((t) =>
				String(t.id).startsWith(prefix),
			),
		).toBe(false);

		// Get Status of both finished uploads, under the same faults: the state and reason, success false.
		const list = (await control.get<Json[]>('/uploads')).filter((u) =>
			['FAILED', 'PARTIALLY_COMPLETED'].includes(u.status),
		);
		expect(list.length).toBeGreaterThanOrEqual(4);
		// (a status read that fails all its retries is an error item: never a success)
		const status = await underFaults(
			() =>
				runAml(
					{ resource: 'dataUpload', operation: 'getStatus', uploadId: '={{ $json.id }}' },
					list.map((u) => ({ id: u.id })),
					{ continueOnFail: true },
				),
			[flaky],
		);
		expect(status.result.status).toBe('success');
		expect(status.result.outputs[0]).toHaveLength(list.length);
		for (const [i, item] of status.result.outputs[0].entries()) {
			if (item.error !== undefined) {
				expect(item.error).toMatch(/Service error|Rate limit|could not be reached/);
				continue;
			}
			expect(item).toMatchObject({
				uploadId: list[i].id,
				status: list[i].status,
				success: false,
				reason: expect.any(String),
			});
			if (item.status === 'PARTIALLY_COMPLETED') expect(item.firstIdNotSaved).toMatch(/-1000$/);
		}
		expect(status.result.outputs[0].filter((o) => o.success === true)).toEqual([]);
		report('upload-failed', {
			error: error?.message,
			description: error?.description,
			cofItem: cof.result.output[0],
			getStatus: status.result.outputs[0].map((o) =>
				o.error ? `error: ${o.error}` : `${o.status} success=${o.success}`,
			),
			statusPolls: polls(stop.log),
		});
	},
	20 * 60_000,
);
