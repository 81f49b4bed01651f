import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { resumeUpload, type SendUpload } from '../../nodes/Aml/actions/dataUpload/resume';

/**
 * The resume's rules against an in-memory service that keeps the upload rule (batches of 1,000; a refused row stores
 * nothing of its batch or after it; the reason names the offending, last saved and first not saved ids). A detail
 * test: the feature is tested in real n8n (test/e2e/dataUpload.test.ts).
 */
const ctx = {} as IExecuteFunctions; // a binary kept as base64 in the item is read without n8n's helpers

function service(
	stored: Set<string>,
	opts: { batch?: number; answer?: (n: number) => IDataObject } = {},
) {
	const sent: string[][] = [];
	const send: SendUpload = async (form, fileName) => {
		const text = await (form.get('file') as File).text();
		const ids = text
			.split('\n')
			.slice(1)
			.filter((line) => line !== '')
			.map((line) => line.split(',')[0]);
		sent.push(ids);
		const uploadId = sent.length + 1;
		const special = opts.answer?.(sent.length);
		if (special) return { uploadId, fileName, ...special };
		const batch = opts.batch ?? 1000;
		let lastSaved: string | null = null;
		for (let at = 0; at < ids.length; at += batch) {
			const rows = ids.slice(at, at + batch);
			const bad = rows.find((id, k) => stored.has(id) || rows.indexOf(id) !== k);
			if (bad !== undefined)
				return {
					uploadId,
					fileName,
					status: 'PARTIALLY_COMPLETED',
					success: false,
					reason: `Duplicate person id ${bad} (id ${bad}). Last saved id: ${lastSaved ?? 'none'}. First id not saved: ${rows[0]}`,
				};
			rows.forEach((id) => stored.add(id));
			lastSaved = rows[rows.length - 1];
		}
		return { uploadId, fileName, status: 'COMPLETED', success: true, reason: null };
	};
	return { send, sent };
}

function file(ids: string[]) {
	const csv = Buffer.from(`id,type\n${ids.map((id) => `${id},INDIVIDUAL`).join('\n')}\n`);
	return {
		binary: { data: csv.toString('base64'), mimeType: 'text/csv' },
		size: csv.length,
		fileName: 'p.csv',
		type: 'PERSON' as const,
	};
}

/** The whole file sent once, as the node does first; then the resume. */
async function run(ids: string[], stored: Set<string>, maxSkippedRows = 20, opts = {}) {
	const svc = service(stored, opts);
	const input = { ...file(ids), maxSkippedRows };
	const { FormData: Form } = globalThis;
	const whole = new Form();
	whole.append('file', new File([Buffer.from(Buffer.from(input.binary.data, 'base64'))], 'p.csv'));
	const first = await svc.send(whole, 'p.csv');
	const result = await resumeUpload(ctx, input, first, svc.send);
	return { result, sent: svc.sent, stored };
}

const ids = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('resuming a PARTIALLY_COMPLETED upload (in-memory service)', () => {
	test('refused rows in several batches: each skipped, no stored row sent again, every other row stored', async () => {
		const file = ids(3500);
		const { result, sent, stored } = await run(
			file,
			new Set(['p-10', 'p-1500', 'p-1501', 'p-3499']),
		);
		expect('item' in result && result.item).toMatchObject({
			rows: 3500,
			rowsStored: 3496,
			rowsNotStored: 4,
			uploadIds: [2, 3, 4, 5, 6],
		});
		const item = (result as { item: IDataObject }).item;
		expect((item.refusedRows as IDataObject[]).map((r) => [r.id, r.line])).toEqual([
			['p-10', 12],
			['p-1500', 1502],
			['p-1501', 1503],
			['p-3499', 3501],
		]);
		// each resend starts at the first row not stored; no id is ever stored twice (the service would refuse it)
		expect(sent.slice(1).map((s) => s[0])).toEqual(['p-0', 'p-1001', 'p-1001', 'p-3003']);
		expect(file.every((id) => stored.has(id))).toBe(true);
	});

	test('the refused row is the last one: nothing left to send, no further upload', async () => {
		const { result, sent } = await run(ids(1200), new Set(['p-1199']));
		expect(sent).toHaveLength(2); // the file, then the rest without its last row
		expect((result as { item: IDataObject }).item).toMatchObject({ rowsStored: 1199 });
		const single = await run(ids(5), new Set(['p-4']), 20, { batch: 1000 });
		expect(single.sent).toHaveLength(2);
		expect(single.sent[1]).toEqual(['p-0', 'p-1', 'p-2', 'p-3']);
	});

	test('the bound: at the next refused row the node stops, naming where the rows not stored begin', async () => {
		const { result, sent } = await run(ids(2500), new Set(['p-1200', 'p-1300', 'p-1400']), 2);
		expect(sent).toHaveLength(3);
		expect((result as { item: IDataObject }).item).toMatchObject({
			rowsStored: 1000,
			rowsNotStored: 1500,
			firstIdNotSaved: 'p-1000',
			offendingId: 'p-1400',
			resumeStopped: expect.stringMatching(/^2 refused row\(s\) were skipped/),
		});
	});

	test('a reason whose ids do not fit the file: not resumed, with why', async () => {
		// the offending id twice after the first row not saved: which one was refused is not known
		const twice = [...ids(1100), 'p-1050'];
		expect((await run(twice, new Set())).result).toEqual({
			notResumed: expect.stringMatching(/2 rows from id p-1000 on have the id p-1050/),
		});
		// a reason the node cannot read
		const odd = await run(ids(10), new Set(['p-3']), 20, {
			answer: (n: number) =>
				n === 1
					? { status: 'PARTIALLY_COMPLETED', success: false, reason: 'Batch 1 failed' }
					: undefined,
		});
		expect(odd.result).toEqual({
			notResumed: expect.stringMatching(/does not name the offending id/),
		});
		expect(odd.sent).toHaveLength(1);
	});

	test('a resend that ends FAILED or times out stops with what is known', async () => {
		const failed = await run(ids(1500), new Set(['p-1200']), 20, {
			answer: (n: number) =>
				n === 2 ? { status: 'FAILED', success: false, reason: 'line 2: bad' } : undefined,
		});
		expect((failed.result as { item: IDataObject }).item).toMatchObject({
			rowsStored: 1000,
			rowsNotStored: 500,
			reason: 'line 2: bad',
			resumeStopped: expect.stringMatching(/ended FAILED, so none of its 499 rows were stored/),
		});
		const slow = await run(ids(1500), new Set(['p-1200']), 20, {
			answer: (n: number) =>
				n === 2
					? { status: 'PROCESSING', success: false, timedOut: true, reason: null }
					: undefined,
		});
		expect((slow.result as { item: IDataObject }).item).toMatchObject({
			status: 'PROCESSING',
			timedOut: true,
			rowsStored: 1000,
			rowsPending: 499,
			rowsNotStored: 1,
		});
		const thrown = await run(ids(1500), new Set(['p-1200']), 20, {
			answer: (n: number) => {
				if (n === 2)
					throw new Error(
						'Upload 3 (p-rest-1.csv) was accepted by the service, but waiting for its result failed',
					);
				return undefined;
			},
		});
		expect((thrown.result as { item: IDataObject }).item).toMatchObject({
			uploadIds: [2],
			rowsStored: 1000,
			rowsPending: 499,
			resumeStopped: expect.stringMatching(
				/^the upload of the rest \(p-rest-1\.csv, the rows from id p-1000 on\) failed: Upload 3/,
			),
		});
	});
});
