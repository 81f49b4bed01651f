import type { IExecuteFunctions } from 'n8n-workflow';
import axios from 'axios';
import Busboy from 'busboy';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

import {
	firstRowId,
	gateHeaderProblem,
	headerProblem,
	parseReason,
	readHead,
	splitCsvLine,
	type HeadFacts,
} from '../../nodes/Aml/actions/dataUpload/csv';
import { confirmToken, statusJson } from '../../nodes/Aml/actions/dataUpload/shared';
import { CHECK_REQUEST_PATH } from '../../nodes/Aml/transport';
import { BinaryDataFile, uploadForm } from '../../nodes/Aml/actions/dataUpload/uploadForm';
import { context, scriptedServer } from './realHttpContext';

describe('CSV header row', () => {
	test.each([
		['id,type,first_name', 'PERSON', undefined],
		['\uFEFF"id","type"', 'PERSON', undefined],
		[
			'id,personId,timestamp,amount,direction',
			'TRANSACTION',
			/lacks the required column\(s\) person_id/,
		],
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

	test("Header Check off: only a transaction file's column of the Gate's record, or its unreadable header row, is a problem", () => {
		const head = (text: string) => readHead(Buffer.from(text), text.length);
		expect(gateHeaderProblem(head('id;personId;x\n1;2;3\n'), 'TRANSACTION_UPDATE')).toBeUndefined();
		expect(gateHeaderProblem(head('whatever\n'), 'PERSON_RELATION')).toBeUndefined();
		expect(gateHeaderProblem(head('"open\n'), 'PERSON')).toBeUndefined();
		expect(gateHeaderProblem(head('id,person_id,N8N-Gate-Claim\n1,2,3\n'), 'TRANSACTION')).toMatch(
			/has the column "N8N-Gate-Claim", a key of the record Transaction → Gate writes/,
		);
		expect(gateHeaderProblem(head('id,"open\n'), 'TRANSACTION_UPDATE')).toMatch(
			/quote is not closed\), so the node cannot check that no column sets a key of the record/,
		);
		expect(gateHeaderProblem(readHead(Buffer.alloc(1000, 'a'), 10_000_000), 'TRANSACTION')).toMatch(
			/no line break .*so the node cannot check/,
		);
	});

	test('quoted cells keep commas and doubled quotes', () => {
		expect(splitCsvLine('a,"b,c","d""e"')).toEqual(['a', 'b,c', 'd"e']);
	});

	test('only the head of the file is needed; binary and header-only files are recognised', () => {
		const csv = Buffer.from('id,type\r\np-1,INDIVIDUAL\r\n');
		expect(readHead(csv, csv.length)).toEqual({
			headerLine: 'id,type',
			complete: true,
			hasDataRow: true,
			firstDataLine: 'p-1,INDIVIDUAL',
		});
		expect(readHead(Buffer.from('id,type\n\n'), 9)).toMatchObject({
			complete: true,
			hasDataRow: false,
		});
		expect(readHead(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00]), 5)).toMatch(/binary data/);
		expect(readHead(Buffer.alloc(1000, 'a'), 10_000_000)).toMatch(/no line break/);
	});

	test('the first row id (the first id not saved of a FAILED upload) is read from the head when it is whole', () => {
		const head = (text: string, total = text.length) =>
			readHead(Buffer.from(text), total) as HeadFacts;
		expect(firstRowId(head('type,id\n\nINDIVIDUAL,"p-1"\np-2,LEGAL\n'), 'PERSON')).toBe('p-1');
		expect(
			firstRowId(
				head('person_id,related_person_id,relation_type\nc-1,c-2,OWNER\n'),
				'PERSON_RELATION',
			),
		).toBe('c-1');
		// the head ends inside the first row: unknown
		expect(firstRowId(head('id,type\np-1,INDIV', 10_000), 'PERSON')).toBeUndefined();
		expect(firstRowId(head('first_name,type\nA,INDIVIDUAL\n'), 'PERSON')).toBeUndefined();
	});
});

describe('status reason', () => {
	test('the ids of a PARTIALLY_COMPLETED reason become fields', () => {
		const reason =
			'Duplicate or invalid entity with id pp-3: duplicate id. Last saved id: pp-999. First id not saved: pp-1000';
		expect(parseReason(reason)).toEqual({
			offendingId: 'pp-3',
			lastSavedId: 'pp-999',
			firstIdNotSaved: 'pp-1000',
		});
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

	test('the status and the reason are service text: one line, bounded, secrets redacted; a line number is read only near the start', () => {
		const hostile = `line 7 bad\nAuthorization: Bearer eyJhbGciOi.secret\u202e ${'x'.repeat(5000)} line 9`;
		const json = statusJson(4, { status: 'FAILED\nINJECTED', reason: hostile });
		expect(json.status).toBe('FAILED INJECTED');
		expect(json.reason).not.toMatch(/[\n\u202e]|eyJhbGciOi/);
		expect(json.reason).toContain('Bearer [redacted]');
		expect(String(json.reason).length).toBeLessThanOrEqual(1001);
		expect(statusJson(4, { status: 'FAILED', reason: `${'x'.repeat(5000)} line 9` }).line).toBe(
			undefined,
		);
		expect(statusJson(4, { status: 'FAILED', reason: hostile }).line).toBe(7);
	});

	test('other wordings: what is recognised is picked, the text is always kept', () => {
		expect(
			parseReason('Offending id "tx:9.1"; last saved id was none; first id not saved is tx:9.0'),
		).toEqual({
			offendingId: 'tx:9.1',
			lastSavedId: null,
			firstIdNotSaved: 'tx:9.0',
		});
		expect(parseReason('Something went wrong')).toEqual({});
		expect(
			statusJson(3, { status: 'FAILED', reason: 'line 3: timestamp must be ISO-8601' }),
		).toMatchObject({ success: false, line: 3 });
		expect(statusJson(3, { status: 'PROCESSING', reason: null })).toEqual({
			uploadId: 3,
			status: 'PROCESSING',
			reason: null,
			success: false,
		});
		expect(statusJson(3, { status: 'COMPLETED' })).toMatchObject({ success: true, reason: null });
	});

	test('"is"/"was" with a colon is a connector, not the id', () => {
		expect(
			parseReason(
				'entity with id was: pp-3; last saved id was: pp-999; first id not saved is: pp-1000',
			),
		).toEqual({
			offendingId: 'pp-3',
			lastSavedId: 'pp-999',
			firstIdNotSaved: 'pp-1000',
		});
	});

	test('a hostile reason costs linear time: 40,000 spaces after each phrase and no id are parsed in well under 100 ms; only the first 4096 characters are searched', () => {
		for (const phrase of ['last saved id', 'first id not saved', 'with id', 'id']) {
			const reason = `${phrase}${' '.repeat(40_000)}`;
			const started = performance.now();
			expect(parseReason(reason)).toEqual({});
			expect(performance.now() - started).toBeLessThan(100);
		}
		const many = `${'id '.repeat(20_000)}x`;
		const started = performance.now();
		parseReason(many);
		expect(performance.now() - started).toBeLessThan(100);
		expect(parseReason(`${' '.repeat(5000)}last saved id: pp-1`)).toEqual({});
	});
});

/** Parses a multipart body as a server would (busboy) and returns the file part. */
async function parseMultipart(
	body: Buffer,
	contentType: string,
): Promise<{ name: string; filename: string; mimeType: string; data: Buffer }> {
	return await new Promise((resolve, reject) => {
		const bb = Busboy({ headers: { 'content-type': contentType } });
		bb.on('file', (name, stream, info) => {
			const chunks: Buffer[] = [];
			stream.on('data', (c: Buffer) => chunks.push(c));
			stream.on('end', () =>
				resolve({
					name,
					filename: info.filename ?? '',
					mimeType: info.mimeType,
					data: Buffer.concat(chunks),
				}),
			);
		});
		bb.on('error', reject);
		Readable.from([body]).pipe(bb);
	});
}

function fakeContext(stored: Map<string, Buffer>): IExecuteFunctions {
	return {
		helpers: {
			getBinaryStream: async (id: string) =>
				Readable.from(chunksOf(stored.get(id) as Buffer, 65536)),
			getBinaryDataBuffer: async () => {
				throw new Error('not expected');
			},
		},
	} as unknown as IExecuteFunctions;
}

function* chunksOf(buffer: Buffer, size: number) {
	for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

describe("upload form (the CSV streamed from n8n's binary data)", () => {
	const csv = Buffer.from('id,type,first_name\np-1,INDIVIDUAL,Zoë\n');

	async function bytesOf(file: Blob): Promise<Buffer> {
		const chunks: Buffer[] = [];
		for await (const chunk of file.stream()) chunks.push(Buffer.from(chunk));
		return Buffer.concat(chunks);
	}

	/** Sends the form with axios (the HTTP client of n8n's helpers) to a server that parses it with busboy. */
	async function sentThroughAxios(form: FormData): Promise<{
		contentLength: number;
		received: number;
		part: Awaited<ReturnType<typeof parseMultipart>>;
	}> {
		let contentLength = 0;
		let received = 0;
		let part: Awaited<ReturnType<typeof parseMultipart>> | undefined;
		const server = http.createServer((req, res) => {
			contentLength = Number(req.headers['content-length']);
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const body = Buffer.concat(chunks);
				received = body.length;
				parseMultipart(body, String(req.headers['content-type'])).then(
					(p) => {
						part = p;
						res.end('{}');
					},
					() => res.end('{}'),
				);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			await axios.post(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, form, {
				maxBodyLength: Infinity,
			});
		} finally {
			server.close();
		}
		return { contentLength, received, part: part! };
	}

	test('base64 binary (memory mode): one part "file", text/csv, the sanitised file name, the same bytes, the exact length', async () => {
		const binary = { data: csv.toString('base64'), mimeType: 'text/csv', fileName: 'p.csv' };
		const form = uploadForm(fakeContext(new Map()), binary, csv.length, 'pers"ons.csv');
		const file = form.get('file') as File;
		expect(file).toBeInstanceOf(BinaryDataFile());
		expect({ name: file.name, type: file.type, size: file.size }).toEqual({
			name: 'pers_ons.csv',
			type: 'text/csv',
			size: csv.length,
		});
		expect((await bytesOf(file)).equals(csv)).toBe(true);
		const { contentLength, received, part } = await sentThroughAxios(form);
		expect(part).toMatchObject({ name: 'file', filename: 'pers_ons.csv', mimeType: 'text/csv' });
		expect(part.data.equals(csv)).toBe(true);
		expect(received).toBe(contentLength);
	});

	test('stored binary (filesystem mode): streamed in chunks; every stream() reads the file again (a re-sent request after a token renewal carries it whole)', async () => {
		const big = Buffer.alloc(3_000_000, 'x');
		const binary = { id: 'filesystem-v2:abc', data: 'filesystem-v2', mimeType: 'text/csv' };
		const form = uploadForm(
			fakeContext(new Map([['filesystem-v2:abc', big]])),
			binary,
			big.length,
			'p.csv',
		);
		for (const attempt of [1, 2]) {
			const { contentLength, received, part } = await sentThroughAxios(form);
			expect({ attempt, equal: part.data.equals(big), received }).toEqual({
				attempt,
				equal: true,
				received: contentLength,
			});
		}
		expect(Buffer.from(await (form.get('file') as File).arrayBuffer()).equals(big)).toBe(true);
	});

	test('a file longer or shorter than n8n recorded: the stream fails (the request stops before its end), nothing is cut or padded', async () => {
		const binary = { id: 'filesystem-v2:abc', data: 'filesystem-v2', mimeType: 'text/csv' };
		const context = fakeContext(new Map([['filesystem-v2:abc', csv]]));
		await expect(
			bytesOf(uploadForm(context, binary, csv.length - 1, 'p.csv').get('file') as File),
		).rejects.toThrow(/holds more bytes, not the 38 n8n recorded/);
		await expect(
			bytesOf(uploadForm(context, binary, csv.length + 5, 'p.csv').get('file') as File),
		).rejects.toThrow(/holds 39 bytes, not the 44 n8n recorded.*stored nothing/);
	});

	test('100 MB from base64: read in chunks of at most 256 KiB while it is sent, never decoded whole', async () => {
		const size = 100 * 1024 * 1024;
		const base64 = Buffer.alloc(size, 'a').toString('base64');
		const file = uploadForm(
			fakeContext(new Map()),
			{ data: base64, mimeType: 'text/csv' },
			size,
			'p.csv',
		).get('file') as File;
		let largest = 0;
		let total = 0;
		let allA = true;
		for await (const chunk of file.stream()) {
			total += chunk.length;
			largest = Math.max(largest, chunk.length);
			allA &&= Buffer.from(chunk).every((b: number) => b === 0x61);
		}
		expect({ total, allA }).toEqual({ total: size, allA: true });
		expect(largest).toBeLessThanOrEqual(256 * 1024);
	});
});

describe('token check before a file is sent', () => {
	async function check(status: number) {
		const server = await scriptedServer((_req, _body, res) =>
			res
				.writeHead(status, { 'content-type': 'application/json' })
				.end(status === 200 ? '[]' : '{"message":"no"}'),
		);
		try {
			const outcome = await confirmToken(context(server.baseUrl) as IExecuteFunctions, 0).then(
				() => 'resolved',
				(error: { httpCode?: string; message?: string }) => `rejected ${error.httpCode}`,
			);
			return { outcome, requests: server.requests.map((r) => `${r.method} ${r.url}`) };
		} finally {
			await server.close();
		}
	}

	test('200: one small GET (the credential test request), then the upload goes on', async () => {
		expect(await check(200)).toEqual({
			outcome: 'resolved',
			requests: [`GET /api${CHECK_REQUEST_PATH}`],
		});
	});

	test("a 401 that survives n8n's renewal fails the item before any byte of the file is sent", async () => {
		const { outcome, requests } = await check(401);
		expect(outcome).toBe('rejected 401');
		expect(requests.every((r) => r === `GET /api${CHECK_REQUEST_PATH}`)).toBe(true);
	});

	test('any other failure of the check (403, 404) is left to the upload, which reports its own error', async () => {
		expect((await check(403)).outcome).toBe('resolved');
		expect((await check(404)).outcome).toBe('resolved');
	});
});
