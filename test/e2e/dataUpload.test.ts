import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { Json } from '../harness/client';
import { context, control, createPerson, n8n } from '../harness/context';
import { upload } from '../harness/upload';

/**
 * Data Upload in real n8n against the sandbox. The CSV binary is made by n8n itself: Webhook → Split Out
 * rows → Convert to File (CSV) → AML, or Read/Write Files from Disk for the 100 MB file. Files run one after
 * another (--runInBand), so the sandbox's upload list is this file's own; `control.requestsSince` lists only this
 * file's requests (its own credential), not those of an execution an earlier file left running.
 */
const suffix = randomUUID().slice(0, 6);

type Logged = { seq: number; method: string; path: string; status: number };
const apiSince = async (mark: number): Promise<Logged[]> =>
	(await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api'));
const uploadsSince = async (mark: number) =>
	(await apiSince(mark)).filter(
		(r) => r.method === 'POST' && r.path.startsWith('/api/v1/data-upload'),
	);

const persons = (prefix: string, count: number) =>
	Array.from({ length: count }, (_, i) => ({
		id: `${prefix}-${i}`,
		type: 'INDIVIDUAL',
		first_name: `F${i}`,
		last_name: 'Csv',
	}));

afterAll(async () => {
	await control.post('/config', { tokenLifetimeSeconds: 3600 }).catch(() => undefined);
	await n8n().cleanup();
});

describe('Data Upload → Upload CSV in real n8n', () => {
	test('persons CSV → COMPLETED after waiting; the sandbox stores every row', async () => {
		const prefix = `csv-${suffix}`;
		const mark = await control.mark();
		const run = await upload(
			{ rows: persons(prefix, 30) },
			{ uploadType: 'PERSON', waitForCompletion: true },
		);
		expect(run.status).toBe('success');
		expect(run.output).toHaveLength(1);
		expect(run.output[0]).toMatchObject({
			status: 'COMPLETED',
			success: true,
			type: 'PERSON',
			fileName: 'data.csv',
			reason: null,
		});
		expect(typeof run.output[0].uploadId).toBe('number');
		const stored = (await control.get<Json[]>('/persons')).filter((p) =>
			p.id.startsWith(`${prefix}-`),
		);
		expect(stored).toHaveLength(30);
		expect(stored.find((p) => p.id === `${prefix}-7`)).toMatchObject({
			type: 'INDIVIDUAL',
			attributes: { first_name: 'F7', last_name: 'Csv' },
		});
		const log = await apiSince(mark);
		// The token check first (a 401 there when an earlier suite reset the tokens; n8n renews on it), then exactly one
		// upload, then status polls.
		expect(log.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([202]);
		const gets = log.filter((r) => r.method === 'GET').map((r) => r.path);
		expect(gets.filter((p) => p === '/api/v1/screening-list-groups').length).toBeGreaterThanOrEqual(
			1,
		);
		expect(
			gets.every(
				(p) =>
					p === '/api/v1/screening-list-groups' ||
					p === `/api/v1/data-upload/${run.output[0].uploadId}/status`,
			),
		).toBe(true);
	});

	test('transactions CSV → COMPLETED; stored under their persons', async () => {
		const rows = [1, 2, 3].map((n) => ({
			id: `csvtx-${suffix}-${n}`,
			person_id: 'cust-1001',
			timestamp: `2026-01-0${n}T10:00:00.123456Z`,
			amount: `${n}00.50`,
			direction: 'O',
			type: 'wire_transfer',
		}));
		const run = await upload(
			{ rows },
			{ uploadType: 'TRANSACTION', options: { fileName: 'transactions.csv' } },
		);
		expect(run.output[0]).toMatchObject({
			status: 'COMPLETED',
			success: true,
			type: 'TRANSACTION',
			fileName: 'transactions.csv',
		});
		const stored = (await control.get<Json[]>('/transactions', { personId: 'cust-1001' })).filter(
			(t) => t.id.startsWith(`csvtx-${suffix}`),
		);
		expect(stored.map((t) => t.id).sort()).toEqual(rows.map((r) => r.id));
		expect(stored[0].attributes).toMatchObject({ amount: '100.50', direction: 'O' });
	});

	test('Stop and Report: a duplicate id after the first 1000 rows → PARTIALLY_COMPLETED is an error with the reason and the first id not saved', async () => {
		const prefix = `pp-${suffix}`;
		const rows = persons(prefix, 1200);
		rows[1100] = { ...rows[3] };
		const run = await upload({ rows }, { uploadType: 'PERSON', options: { onRefusedRow: 'stop' } });
		expect(run.status).toBe('error');
		expect(run.output).toHaveLength(0);
		expect(run.error?.message).toMatch(
			new RegExp(`ended with status PARTIALLY_COMPLETED: .*${prefix}-3\\b`),
		);
		expect(run.error?.message).toMatch(new RegExp(`First id not saved: ${prefix}-1000`));
		expect(run.error?.description).toMatch(
			new RegExp(
				`offendingId: ${prefix}-3, lastSavedId: ${prefix}-999, firstIdNotSaved: ${prefix}-1000`,
			),
		);
		const stored = (await control.get<Json[]>('/persons')).filter((p) =>
			p.id.startsWith(`${prefix}-`),
		);
		expect(stored).toHaveLength(1000);
	});

	test('Stop and Report: PARTIALLY_COMPLETED with Continue On Fail: an item with success false and the ids as fields', async () => {
		const prefix = `pq-${suffix}`;
		const rows = persons(prefix, 1200);
		rows[1100] = { ...rows[3] };
		const run = await upload(
			{ rows },
			{ uploadType: 'PERSON', options: { onRefusedRow: 'stop' } },
			{ continueOnFail: true },
		);
		expect(run.status).toBe('success');
		expect(run.output[0]).toMatchObject({
			status: 'PARTIALLY_COMPLETED',
			success: false,
			offendingId: `${prefix}-3`,
			lastSavedId: `${prefix}-999`,
			firstIdNotSaved: `${prefix}-1000`,
		});
		expect(run.output[0].reason).toMatch(/Last saved id/);
		expect(run.output[0].error).toMatch(/PARTIALLY_COMPLETED/);
	});

	test('a bad timestamp → FAILED with the reason as an error; nothing stored; with Continue On Fail an item', async () => {
		const rows = [
			{
				id: `ft-${suffix}-1`,
				person_id: 'cust-1001',
				timestamp: '2026-01-01T00:00:00Z',
				amount: '1.00',
				direction: 'I',
			},
			{
				id: `ft-${suffix}-2`,
				person_id: 'cust-1001',
				timestamp: 'yesterday',
				amount: '2.00',
				direction: 'O',
			},
		];
		const run = await upload({ rows }, { uploadType: 'TRANSACTION' });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/ended with status FAILED: line 3: .*timestamp/i);
		expect(run.error?.description).toMatch(/none of its rows were stored/);
		const cof = await upload({ rows }, { uploadType: 'TRANSACTION' }, { continueOnFail: true });
		expect(cof.output[0]).toMatchObject({ status: 'FAILED', success: false, line: 3 });
		expect(String(cof.output[0].reason)).toMatch(/timestamp/);
		const stored = await control.get<Json[]>('/transactions', { personId: 'cust-1001' });
		expect(stored.some((t) => String(t.id).startsWith(`ft-${suffix}`))).toBe(false);
	});

	test('wrong binary field, missing columns, wrong separator, wrong file name: errors before any request', async () => {
		const mark = await control.mark();
		const wrong = await upload(
			{ rows: persons(`wb-${suffix}`, 2) },
			{ uploadType: 'PERSON', binaryPropertyName: 'file' },
		);
		expect(wrong.binaryFields).toEqual(['data']);
		expect(wrong.error?.message).toMatch(
			/^Item 0: "Input Binary Field" names no binary data of the item \(the item's binary fields are: data\) \(value: "file"\)/,
		);
		const missing = await upload(
			{ rows: [{ id: 'x', first_name: 'no type' }] },
			{ uploadType: 'PERSON' },
		);
		expect(missing.error?.message).toMatch(
			/Item 0: "CSV header" lacks the required column\(s\) type for type PERSON/,
		);
		const semicolon = await upload(
			{ rows: [{ id: 'x', type: 'INDIVIDUAL' }], csvOptions: { delimiter: ';' } },
			{ uploadType: 'PERSON' },
		);
		expect(semicolon.error?.message).toMatch(/uses ";" as column separator/);
		const txColumns = await upload(
			{
				rows: [
					{ id: 'x', personId: 'cust-1001', timestamp: '2026-01-01', amount: '1', direction: 'I' },
				],
			},
			{ uploadType: 'TRANSACTION' },
		);
		expect(txColumns.error?.message).toMatch(/lacks the required column\(s\) person_id/);
		const name = await upload(
			{ rows: [{ id: 'x', type: 'INDIVIDUAL' }] },
			{ uploadType: 'PERSON', options: { fileName: 'persons.xlsx' } },
		);
		expect(name.error?.message).toMatch(/"File Name" must end with \.csv/);
		expect(await apiSince(mark)).toHaveLength(0);
	});

	test('a token the service revoked before the upload: the token is confirmed first, so the file is sent once and arrives once', async () => {
		// A file far larger than the socket buffers: a server refusing the token answers 401 and closes the connection
		// while the file is still being written, so the upload itself would end in EPIPE, not in a 401 n8n could
		// renew on (the e2e run of example 04 failed this way once).
		const prefix = `tok-${suffix}`;
		const dir = path.join(os.homedir(), '.n8n-files');
		fs.mkdirSync(dir, { recursive: true });
		const filePath = path.join(dir, `aml-revoked-${suffix}.csv`);
		const rows = 60_000;
		fs.writeFileSync(
			filePath,
			'id,type,note\n' +
				Array.from(
					{ length: rows },
					(_, i) => `${prefix}-${i},INDIVIDUAL,${'n'.repeat(40)}\n`,
				).join(''),
		);
		try {
			await upload({ rows: persons(`${prefix}-warm`, 1) }, { uploadType: 'PERSON' });
			// One round: the token endpoint allows 5 requests a minute, and the next tests renew tokens too.
			await control.post('/tokens/expire');
			const mark = await control.mark();
			const uploadsBefore = (await control.get<Json[]>('/uploads')).length;
			const run = await upload({ filePath }, { uploadType: 'PERSON', waitForCompletion: false });
			expect({ status: run.status, output: run.output[0], error: run.error }).toMatchObject({
				status: 'success',
				output: { status: 'ACCEPTED', type: 'PERSON' },
			});
			expect((await control.get<Json[]>('/uploads')).length - uploadsBefore).toBe(1);
			// The token check got the 401 (n8n renewed the token on it); the file went once, with the new token. When an
			// earlier test file used up the token endpoint's 5 a minute, the run waits for it and probes with the same
			// check once a second: more 401s, all on the check, none on the file.
			const refused = (await apiSince(mark))
				.filter((r) => r.status === 401)
				.map((r) => `${r.method} ${r.path}`);
			expect(refused.length).toBeGreaterThanOrEqual(1);
			expect([...new Set(refused)]).toEqual(['GET /api/v1/screening-list-groups']);
			expect((await uploadsSince(mark)).map((r) => r.status)).toEqual([202]);
		} finally {
			fs.rmSync(filePath, { force: true });
		}
	});

	test('a token n8n knows to be expired is renewed before the upload: the file is sent once, no 401', async () => {
		await control.post('/config', { tokenLifetimeSeconds: 5 });
		try {
			// This run's 401 makes n8n fetch a token that lives 5 s (and store its expiry).
			await control.post('/tokens/expire');
			await upload(
				{ rows: persons(`ren-${suffix}-a`, 1) },
				{ uploadType: 'PERSON', waitForCompletion: false },
			);
			await new Promise((resolve) => setTimeout(resolve, 6000));
			const mark = await control.mark();
			const run = await upload(
				{ rows: persons(`ren-${suffix}-b`, 2) },
				{ uploadType: 'PERSON', waitForCompletion: false },
			);
			expect(run.output[0]).toMatchObject({ status: 'ACCEPTED', success: null });
			expect(run.output[0].note).toMatch(/Get Status/);
			expect((await uploadsSince(mark)).map((r) => r.status)).toEqual([202]);
		} finally {
			await control.post('/config', { tokenLifetimeSeconds: 3600 });
		}
	});

	test('100 MB file from disk: one request, streamed: peak memory of n8n grows by less than the file size', async () => {
		const dir = path.join(os.homedir(), '.n8n-files');
		fs.mkdirSync(dir, { recursive: true });
		const filePath = path.join(dir, `aml-upload-${suffix}.csv`);
		// 1,000 persons of about 100 KB each; the first row's type is invalid so the sandbox stores nothing.
		const filler = 'x'.repeat(100 * 1024 - 40);
		const size = 100 * 1024 * 1024 - 1024;
		const fd = fs.openSync(filePath, 'w');
		fs.writeSync(fd, 'id,type,note\n');
		let written = 13;
		for (let i = 0; written < size; i++) {
			const line = `big-${suffix}-${i},${i === 0 ? 'ALIEN' : 'INDIVIDUAL'},${filler}\n`.slice(
				0,
				Math.max(0, size - written),
			);
			fs.writeSync(fd, line);
			written += line.length;
		}
		fs.closeSync(fd);
		const pid = n8nPid();
		const stopSampling = sampleRss(pid);
		try {
			const mark = await control.mark();
			const run = await upload({ filePath }, { uploadType: 'PERSON', waitForCompletion: false });
			const { baseline, peak } = stopSampling();
			expect(run.status).toBe('success');
			expect(run.output[0]).toMatchObject({ status: 'ACCEPTED', type: 'PERSON' });
			expect((await uploadsSince(mark)).map((r) => r.status)).toEqual([202]);
			const added = peak - baseline;
			console.log(
				`100 MB upload: n8n RSS baseline ${(baseline / 2 ** 20).toFixed(0)} MB, peak ${(peak / 2 ** 20).toFixed(0)} MB, added ${(added / 2 ** 20).toFixed(0)} MB = ${(added / size).toFixed(2)}× file size`,
			);
			// A body built in memory would add at least the file size; streamed, it measured 0.5× (the file reader's share).
			expect(added / size).toBeLessThan(1);
		} finally {
			stopSampling();
			fs.rmSync(filePath, { force: true });
		}
	});
});

/** A person stored one at a time, as onboarding (example 01) does: Person → Create. */
async function onboard(personId: string, firstName: string): Promise<void> {
	expect((await createPerson(personId, { first_name: firstName })).status).toBe('success');
}

const storedWith = async (prefix: string) =>
	(await control.get<Json[]>('/persons')).filter((p) => p.id.startsWith(`${prefix}-`));
const uploadsNamed = async (fileName: RegExp) =>
	(await control.get<Json[]>('/uploads')).filter((u) => fileName.test(u.fileName));

describe('Data Upload → Upload CSV, Options → On a Refused Row in real n8n', () => {
	test('a persons file of 2,500 rows with one person already stored (second batch): every other row is stored, the refused row is reported', async () => {
		const prefix = `rs-${suffix}`;
		await onboard(`${prefix}-1500`, 'Onboarded');
		const mark = await control.mark();
		const run = await upload(
			{ rows: persons(prefix, 2500), csvOptions: { fileName: 'persons-rs.csv' } },
			{ uploadType: 'PERSON' },
			{ continueOnFail: true },
		);
		expect(run.status).toBe('success');
		expect(run.output).toHaveLength(1);
		const item = run.output[0];
		expect(item).toMatchObject({
			success: false,
			status: 'PARTIALLY_COMPLETED',
			rows: 2500,
			rowsStored: 2499,
			rowsNotStored: 1,
			refusedRows: [
				{
					id: `${prefix}-1500`,
					line: 1502,
					reason: expect.stringMatching(new RegExp(`Duplicate person id ${prefix}-1500\\b`)),
				},
			],
		});
		expect(item.uploadIds).toHaveLength(2);
		expect(item.uploadId).toBe(item.uploadIds[0]);
		// the service's whole reason of the upload that refused the row
		expect(item.reason).toMatch(
			new RegExp(`Last saved id: ${prefix}-999\\. First id not saved: ${prefix}-1000$`),
		);
		expect(item.refusedRows[0].uploadId).toBe(item.uploadIds[0]);
		expect(item.error).toMatch(
			new RegExp(
				`^persons-rs\\.csv: 2,499 of 2,500 rows stored \\(uploads ${item.uploadIds.join(', ')}\\); the service refused 1 row: id ${prefix}-1500 \\(line 1502\\): Duplicate person id`,
			),
		);
		expect(item.description).toMatch(/Person → Update/);
		expect(item.description).toMatch(/do not upload the file again/);
		// every row stored once; the onboarded person untouched
		const stored = await storedWith(prefix);
		expect(stored).toHaveLength(2500);
		expect(stored.find((p) => p.id === `${prefix}-1500`)?.attributes).toEqual({
			first_name: 'Onboarded',
		});
		// the second upload held exactly the rows not stored, without the refused one: 1,499 rows, all stored
		const second = (await control.get<Json[]>('/uploads')).find((u) => u.id === item.uploadIds[1]);
		expect(second).toMatchObject({
			fileName: 'persons-rs-rest-1.csv',
			status: 'COMPLETED',
			rows: 1499,
			stored: 1499,
		});
		expect((await uploadsSince(mark)).map((r) => r.status)).toEqual([202, 202]);
	});

	test('a transactions file with one transaction whose person is missing: every other row stored; without Continue On Fail the run fails naming the row', async () => {
		const prefix = `rt-${suffix}`;
		const rows = Array.from({ length: 2500 }, (_, n) => ({
			id: `${prefix}-${n}`,
			person_id: n === 1700 ? `ghost-${suffix}` : 'cust-1001',
			timestamp: '2026-01-02T10:00:00Z',
			amount: '10.00',
			direction: 'O',
		}));
		const run = await upload(
			{ rows, csvOptions: { fileName: 'tx-rt.csv' } },
			{ uploadType: 'TRANSACTION' },
		);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			new RegExp(
				`^tx-rt\\.csv: 2,499 of 2,500 rows stored \\(uploads \\d+, \\d+\\); the service refused 1 row: id ${prefix}-1700 \\(line 1702\\): Person ghost-${suffix} of transaction ${prefix}-1700 does not exist`,
			),
		);
		expect(run.error?.description).toMatch(/store the person, then upload the transaction again/);
		const stored = (await control.get<Json[]>('/transactions', { personId: 'cust-1001' })).filter(
			(t) => t.id.startsWith(`${prefix}-`),
		);
		expect(stored).toHaveLength(2499);
		expect(stored.some((t) => t.id === `${prefix}-1700`)).toBe(false);
		expect(await uploadsNamed(/^tx-rt/)).toHaveLength(2);
	});

	test('Max Refused Rows to Skip bounds the uploads: at the next refused row the node stops and reports what is not stored', async () => {
		const prefix = `rb-${suffix}`;
		await onboard(`${prefix}-1200`, 'Onboarded');
		await onboard(`${prefix}-1500`, 'Onboarded');
		const run = await upload(
			{ rows: persons(prefix, 2500), csvOptions: { fileName: 'persons-rb.csv' } },
			{ uploadType: 'PERSON', options: { maxSkippedRows: 1 } },
			{ continueOnFail: true },
		);
		const item = run.output[0];
		expect(item).toMatchObject({
			success: false,
			status: 'PARTIALLY_COMPLETED',
			rows: 2500,
			rowsStored: 1000,
			rowsNotStored: 1500,
			offendingId: `${prefix}-1500`,
			lastSavedId: null,
			firstIdNotSaved: `${prefix}-1000`,
			resumeStopped: expect.stringMatching(/Max Refused Rows to Skip/),
		});
		expect(item.refusedRows.map((r: Json) => r.id)).toEqual([`${prefix}-1200`, `${prefix}-1500`]);
		expect(item.uploadIds).toHaveLength(2);
		expect(item.description).toMatch(new RegExp(`rows from id ${prefix}-1000 on were not stored`));
		expect(await uploadsNamed(/^persons-rb/)).toHaveLength(2);
		// batch 1 and the two onboarded persons; nothing of the second upload
		expect(await storedWith(prefix)).toHaveLength(1002);
	});

	test('a reason whose offending id fits two rows of the file (an id twice in one batch): not resumed, the PARTIALLY_COMPLETED error says why', async () => {
		const prefix = `ra-${suffix}`;
		const rows = persons(prefix, 1200);
		rows[1100] = { ...rows[1050] };
		const run = await upload(
			{ rows, csvOptions: { fileName: 'persons-ra.csv' } },
			{ uploadType: 'PERSON' },
			{ continueOnFail: true },
		);
		expect(run.output[0]).toMatchObject({
			status: 'PARTIALLY_COMPLETED',
			success: false,
			offendingId: `${prefix}-1050`,
			firstIdNotSaved: `${prefix}-1000`,
		});
		expect(run.output[0].refusedRows).toBeUndefined();
		expect(run.output[0].description).toMatch(
			new RegExp(
				`The rest was not uploaded again: 2 rows from id ${prefix}-1000 on have the id ${prefix}-1050: the node cannot tell which one the service refused\\.`,
			),
		);
		expect(await uploadsNamed(/^persons-ra/)).toHaveLength(1);
		expect(await storedWith(prefix)).toHaveLength(1000);
	});

	test('Stop and Report, and Header Check off: one upload, the PARTIALLY_COMPLETED error as before', async () => {
		const prefix = `ro-${suffix}`;
		await onboard(`${prefix}-1500`, 'Onboarded');
		const stop = await upload(
			{ rows: persons(prefix, 2500), csvOptions: { fileName: 'persons-ro.csv' } },
			{ uploadType: 'PERSON', options: { onRefusedRow: 'stop' } },
			{ continueOnFail: true },
		);
		expect(stop.output[0]).toMatchObject({
			status: 'PARTIALLY_COMPLETED',
			success: false,
			offendingId: `${prefix}-1500`,
			lastSavedId: `${prefix}-999`,
			firstIdNotSaved: `${prefix}-1000`,
		});
		expect(stop.output[0].refusedRows).toBeUndefined();
		// Header Check off: the node did not read the file, so it does not resume it
		await onboard(`${prefix}x-1100`, 'Onboarded');
		const asIs = await upload(
			{ rows: persons(`${prefix}x`, 1200), csvOptions: { fileName: 'persons-rox.csv' } },
			{ uploadType: 'PERSON', options: { headerCheck: 'off' } },
			{ continueOnFail: true },
		);
		expect(asIs.output[0]).toMatchObject({
			status: 'PARTIALLY_COMPLETED',
			success: false,
			offendingId: `${prefix}x-1100`,
			firstIdNotSaved: `${prefix}x-1000`,
		});
		expect(asIs.output[0].refusedRows).toBeUndefined();
		expect(await uploadsNamed(/^persons-ro/)).toHaveLength(2);
		expect(await storedWith(prefix)).toHaveLength(1001);
		expect(await storedWith(`${prefix}x`)).toHaveLength(1001);
	});
});

describe('Data Upload → Upload CSV, Options → Header Check in real n8n', () => {
	test("Off: a transaction update file outside the node's layout (personId) is sent as it is; the sandbox stores its status", async () => {
		const personId = `hc-${suffix}`;
		const txId = `hctx-${suffix}`;
		await upload({ rows: [{ id: personId, type: 'INDIVIDUAL' }] }, { uploadType: 'PERSON' });
		await upload(
			{
				rows: [
					{
						id: txId,
						person_id: personId,
						timestamp: '2026-01-05T10:00:00Z',
						amount: '10.00',
						direction: 'O',
					},
				],
			},
			{ uploadType: 'TRANSACTION' },
		);
		const rows = [{ id: txId, personId, status: 'RELEASED' }];
		const mark = await control.mark();
		const checked = await upload({ rows }, { uploadType: 'TRANSACTION_UPDATE' });
		expect(checked.error?.message).toMatch(
			/"CSV header" lacks the required column\(s\) person_id for type TRANSACTION_UPDATE/,
		);
		expect(await uploadsSince(mark)).toHaveLength(0);
		const run = await upload(
			{ rows },
			{ uploadType: 'TRANSACTION_UPDATE', options: { headerCheck: 'off' } },
		);
		expect({ status: run.status, output: run.output[0], error: run.error }).toMatchObject({
			status: 'success',
			output: { status: 'COMPLETED', success: true, type: 'TRANSACTION_UPDATE' },
		});
		expect((await uploadsSince(mark)).map((r) => r.status)).toEqual([202]);
		const stored = (await control.get<Json[]>('/transactions', { personId })).find(
			(t) => t.id === txId,
		);
		expect(stored?.attributes).toMatchObject({ status: 'RELEASED', amount: '10.00' });
	});

	test("Off: a relation file the service refuses → its FAILED reason as the error, said to be the service's own; nothing stored", async () => {
		const rows = [{ person_id: 'cust-1001', related_person_id: 'cust-1002', type: 'PARTNER' }];
		const before = (await control.get<Json[]>('/relations')).length;
		const checked = await upload({ rows }, { uploadType: 'PERSON_RELATION' });
		expect(checked.error?.message).toMatch(/lacks the required column\(s\) relation_type/);
		const run = await upload(
			{ rows },
			{ uploadType: 'PERSON_RELATION', options: { headerCheck: 'off' } },
		);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			/^Upload \d+ \(data\.csv\) ended with status FAILED: missing required column\(s\): relation_type$/,
		);
		expect(run.error?.description).toMatch(
			/^Header Check was off: the file was sent as it is, and the reason is the service's own check\. The file failed the service's validation, so none of its rows were stored \(first id not saved: cust-1001\)\. Fix what the reason names/,
		);
		const cof = await upload(
			{ rows },
			{ uploadType: 'PERSON_RELATION', options: { headerCheck: 'off' } },
			{ continueOnFail: true },
		);
		expect(cof.output).toEqual([
			expect.objectContaining({
				status: 'FAILED',
				success: false,
				reason: 'missing required column(s): relation_type',
			}),
		]);
		expect((await control.get<Json[]>('/relations')).length).toBe(before);
	});

	test("Off still refuses, before any request, a transaction file with a column of the Gate's record", async () => {
		const mark = await control.mark();
		const uploadsBefore = (await control.get<Json[]>('/uploads')).length;
		for (const [uploadType, rows] of [
			[
				'TRANSACTION_UPDATE',
				[{ id: `gk-${suffix}`, person_id: 'cust-1001', n8nGateDecision: '{"decision":"CLEAR"}' }],
			],
			[
				'TRANSACTION',
				[
					{
						id: `gk-${suffix}`,
						person_id: 'cust-1001',
						timestamp: '2026-01-05T10:00:00Z',
						amount: '1.00',
						direction: 'O',
						n8n_gate_claim: 'x',
					},
				],
			],
		] as const) {
			const run = await upload(
				{ rows: rows as unknown as Json[] },
				{ uploadType, options: { headerCheck: 'off' } },
			);
			expect(run.error?.message).toMatch(
				/"CSV header" has the column "(n8nGateDecision|n8n_gate_claim)", a key of the record Transaction → Gate writes/,
			);
		}
		expect(await apiSince(mark)).toHaveLength(0);
		expect((await control.get<Json[]>('/uploads')).length).toBe(uploadsBefore);
	});
});

describe('Data Upload → Get Status in real n8n', () => {
	test('status of a finished upload; an unknown id is a 404 error; a non-number is refused before any request', async () => {
		const done = await upload({ rows: persons(`gs-${suffix}`, 2) }, { uploadType: 'PERSON' });
		const uploadId = done.output[0].uploadId;
		const run = await n8n().runNode(
			{
				parameters: {
					resource: 'dataUpload',
					operation: 'getStatus',
					uploadId: '={{ $json.uploadId }}',
				},
			},
			[{ uploadId }],
			{ credentials: { amlOAuth2Api: context().credential } },
		);
		expect(run.outputs[0]).toEqual([
			{ uploadId, status: 'COMPLETED', reason: null, success: true },
		]);
		const unknown = await n8n().runNode(
			{ parameters: { resource: 'dataUpload', operation: 'getStatus', uploadId: '999999' } },
			[{}],
			{ credentials: { amlOAuth2Api: context().credential } },
		);
		expect(unknown.error?.message).toMatch(/Not found/);
		const mark = await control.mark();
		const bad = await n8n().runNode(
			{ parameters: { resource: 'dataUpload', operation: 'getStatus', uploadId: 'abc' } },
			[{}],
			{ credentials: { amlOAuth2Api: context().credential } },
		);
		expect(bad.error?.message).toMatch(/"Upload ID" must be a whole number of at least 1/);
		expect(await apiSince(mark)).toHaveLength(0);
	});
});

/** Process id of the n8n the harness started (the one listening on its port). */
function n8nPid(): number {
	const port = new URL(context().n8n.baseUrl).port;
	const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
	const pid = /pid=(\d+)/.exec(out)?.[1];
	if (!pid) throw new Error(`no process listens on port ${port}: ${out}`);
	return Number(pid);
}

/** Samples a process's resident memory every 20 ms; returns a stop function giving baseline and peak. */
function sampleRss(pid: number): () => { baseline: number; peak: number } {
	const rss = () =>
		Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) *
		1024;
	const baseline = rss();
	let peak = baseline;
	const timer = setInterval(() => {
		peak = Math.max(peak, rss());
	}, 20);
	let result: { baseline: number; peak: number } | undefined;
	return () => {
		clearInterval(timer);
		result ??= { baseline, peak: Math.max(peak, rss()) };
		return result;
	};
}
