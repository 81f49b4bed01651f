import type { IExecuteFunctions } from 'n8n-workflow';
import Busboy from 'busboy';
import { Readable } from 'node:stream';

import { firstRowId, headerProblem, multipartFrame, parseReason, readHead, splitCsvLine, type HeadFacts } from '../../nodes/Aml/actions/dataUpload/csv';
import { statusJson } from '../../nodes/Aml/actions/dataUpload/shared';
import { multipartBody, type PreparedUpload } from '../../nodes/Aml/actions/dataUpload/upload.operation';

describe('CSV header row', () => {
	test.each([
		['id,type,first_name', 'PERSON', undefined],
		['\uFEFF"id","type"', 'PERSON', undefined],
		['id,personId,timestamp,amount,direction', 'TRANSACTION', /lacks the required column\(s\) person_id/],
		['id,person_id,timestamp,amount,direction,receiver_name', 'TRANSACTION', undefined],
		['id,person_id', 'TRANSACTION_UPDATE', undefined],
		['personId,relatedPersonId,relationType', 'PERSON_RELATION', undefined],
		['id,first_name', 'PERSON', /lacks the required column\(s\) type for type PERSON/],
		['id;type;first_name', 'PERSON', /uses ";" as column separator/],
		['id\ttype', 'PERSON', /uses tab as column separator/],
		['hello world', 'PERSON', /no comma-separated column names/],
		['', 'PERSON', /empty line/],
		['id,,type', 'PERSON', /empty column name at position 2/],
		['id,type,id', 'PERSON', /names the column "id" twice/],
		['"id,type', 'PERSON', /quote is not closed/],
	] as const)('%j as %s → %s', (line, type, expected) => {
		const problem = headerProblem(line, type);
		if (expected === undefined) expect(problem).toBeUndefined();
		else expect(problem).toMatch(expected);
	});

	test('quoted cells keep commas and doubled quotes', () => {
		expect(splitCsvLine('a,"b,c","d""e"')).toEqual(['a', 'b,c', 'd"e']);
	});

	test('only the head of the file is needed; binary and header-only files are recognised', () => {
		const csv = Buffer.from('id,type\r\np-1,INDIVIDUAL\r\n');
		expect(readHead(csv, csv.length)).toEqual({ headerLine: 'id,type', complete: true, hasDataRow: true, firstDataLine: 'p-1,INDIVIDUAL' });
		expect(readHead(Buffer.from('id,type\n\n'), 9)).toMatchObject({ complete: true, hasDataRow: false });
		expect(readHead(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00]), 5)).toMatch(/binary data/);
		expect(readHead(Buffer.alloc(1000, 'a'), 10_000_000)).toMatch(/no line break/);
	});

	test('the first row id (the first id not saved of a FAILED upload) is read from the head when it is whole', () => {
		const head = (text: string, total = text.length) => readHead(Buffer.from(text), total) as HeadFacts;
		expect(firstRowId(head('type,id\n\nINDIVIDUAL,"p-1"\np-2,LEGAL\n'), 'PERSON')).toBe('p-1');
		expect(firstRowId(head('person_id,related_person_id,relation_type\nc-1,c-2,OWNER\n'), 'PERSON_RELATION')).toBe('c-1');
		// the head ends inside the first row: unknown
		expect(firstRowId(head('id,type\np-1,INDIV', 10_000), 'PERSON')).toBeUndefined();
		expect(firstRowId(head('first_name,type\nA,INDIVIDUAL\n'), 'PERSON')).toBeUndefined();
	});
});

describe('status reason', () => {
	test('the ids of a PARTIALLY_COMPLETED reason become fields', () => {
		const reason = 'Duplicate or invalid entity with id pp-3: duplicate id. Last saved id: pp-999. First id not saved: pp-1000';
		expect(parseReason(reason)).toEqual({ offendingId: 'pp-3', lastSavedId: 'pp-999', firstIdNotSaved: 'pp-1000' });
		expect(statusJson(7, { status: 'PARTIALLY_COMPLETED', reason })).toEqual({
			uploadId: 7,
			status: 'PARTIALLY_COMPLETED',
			reason,
			success: false,
			offendingId: 'pp-3',
			lastSavedId: 'pp-999',
			firstIdNotSaved: 'pp-1000',
		});
	});

	test('other wordings: what is recognised is picked, the text is always kept', () => {
		expect(parseReason('Offending id "tx:9.1"; last saved id was none; first id not saved is tx:9.0')).toEqual({
			offendingId: 'tx:9.1',
			lastSavedId: null,
			firstIdNotSaved: 'tx:9.0',
		});
		expect(parseReason('Something went wrong')).toEqual({});
		expect(statusJson(3, { status: 'FAILED', reason: 'line 3: timestamp must be ISO-8601' })).toMatchObject({ success: false, line: 3 });
		expect(statusJson(3, { status: 'PROCESSING', reason: null })).toEqual({ uploadId: 3, status: 'PROCESSING', reason: null, success: false });
		expect(statusJson(3, { status: 'COMPLETED' })).toMatchObject({ success: true, reason: null });
	});
});

/** Parses a multipart body as a server would (busboy) and returns the file part. */
async function parseMultipart(body: Buffer, contentType: string): Promise<{ name: string; filename: string; mimeType: string; data: Buffer }> {
	return await new Promise((resolve, reject) => {
		const bb = Busboy({ headers: { 'content-type': contentType } });
		bb.on('file', (name, stream, info) => {
			const chunks: Buffer[] = [];
			stream.on('data', (c: Buffer) => chunks.push(c));
			stream.on('end', () => resolve({ name, filename: info.filename ?? '', mimeType: info.mimeType, data: Buffer.concat(chunks) }));
		});
		bb.on('error', reject);
		Readable.from([body]).pipe(bb);
	});
}

function fakeContext(stored: Map<string, Buffer>): IExecuteFunctions {
	return {
		helpers: {
			getBinaryStream: async (id: string) => Readable.from(chunksOf(stored.get(id) as Buffer, 65536)),
			getBinaryDataBuffer: async () => {
				throw new Error('not expected');
			},
		},
	} as unknown as IExecuteFunctions;
}

function* chunksOf(buffer: Buffer, size: number) {
	for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

describe('multipart body', () => {
	const csv = Buffer.from('id,type,first_name\np-1,INDIVIDUAL,Zoë\n');

	test('one Buffer of the exact size from base64 (memory mode); a server reads back the same bytes', async () => {
		const upload: PreparedUpload = {
			property: 'data',
			binary: { data: csv.toString('base64'), mimeType: 'text/csv', fileName: 'p.csv' },
			type: 'PERSON',
			fileName: 'pers"ons.csv',
			size: csv.length,
		};
		const { body, contentType } = await multipartBody(fakeContext(new Map()), upload, 0);
		expect(contentType).toMatch(/^multipart\/form-data; boundary=----n8n-aml-[0-9a-f]{32}$/);
		const part = await parseMultipart(body, contentType);
		expect(part).toMatchObject({ name: 'file', filename: 'pers_ons.csv', mimeType: 'text/csv' });
		expect(part.data.equals(csv)).toBe(true);
		const frame = multipartFrame(contentType.split('boundary=')[1], 'pers_ons.csv');
		expect(body.length).toBe(frame.head.length + csv.length + frame.tail.length);
	});

	test('streamed from stored binary data (filesystem mode)', async () => {
		const big = Buffer.alloc(300_000, 'x');
		const upload: PreparedUpload = {
			property: 'data',
			binary: { id: 'filesystem-v2:abc', data: 'filesystem-v2', mimeType: 'text/csv' },
			type: 'PERSON',
			fileName: 'p.csv',
			size: big.length,
		};
		const { body, contentType } = await multipartBody(fakeContext(new Map([['filesystem-v2:abc', big]])), upload, 0);
		expect((await parseMultipart(body, contentType)).data.equals(big)).toBe(true);
	});

	test('100 MB: building the body adds about one file size of memory', async () => {
		const size = 100 * 1024 * 1024;
		const file = Buffer.alloc(size, 'a');
		const base64 = file.toString('base64');
		const upload: PreparedUpload = { property: 'data', binary: { data: base64, mimeType: 'text/csv' }, type: 'PERSON', fileName: 'p.csv', size };
		const before = process.memoryUsage();
		const { body } = await multipartBody(fakeContext(new Map()), upload, 0);
		const after = process.memoryUsage();
		const added = after.arrayBuffers - before.arrayBuffers;
		expect(body.length).toBeGreaterThan(size);
		const start = body.indexOf('\r\n\r\n') + 4;
		expect(body.subarray(start, start + size).equals(file)).toBe(true);
		expect(added / size).toBeLessThanOrEqual(1.2);
		console.log(`multipart body for ${size} bytes added ${(added / 1024 / 1024).toFixed(1)} MB of buffers (${(added / size).toFixed(2)}× file size)`);
	});
});
