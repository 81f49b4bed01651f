import {
	rangesBytes,
	rangesOf,
	scanCsvRows,
	type CsvRow,
} from '../../nodes/Aml/actions/dataUpload/csvRows';
import { whyRefused } from '../../nodes/Aml/actions/dataUpload/resume';

/** The text in chunks of `size` bytes (a quote, a CR or a multi-byte character may be split across two). */
async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
	const bytes = Buffer.from(text, 'utf8');
	for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function scan(text: string, size = 3) {
	const rows: CsvRow[] = [];
	let names: string[] = [];
	let headerEnd = 0;
	await scanCsvRows(
		chunked(text, size),
		(header) => {
			names = header.names;
			headerEnd = header.end;
			return header.names.indexOf('id');
		},
		(row) => rows.push(row),
	);
	return { names, headerEnd, rows };
}

describe('the rows of a CSV file, as a resumed upload reads them', () => {
	const file =
		'\uFEFF"type",id,note\r\n' +
		'INDIVIDUAL,p-1,plain\r\n' +
		'\r\n' +
		'LEGAL, "p-2" ,"two\nlines, a comma and ""quotes"""\r\n' +
		'INDIVIDUAL,"p-3 ""x""",é\n' +
		'INDIVIDUAL,p-4,last';
	test.each([1, 2, 3, 7, 1024])(
		'each row with its byte range, line and id (chunks of %i bytes)',
		async (size) => {
			const { names, headerEnd, rows } = await scan(file, size);
			expect(names).toEqual(['type', 'id', 'note']);
			const bytes = Buffer.from(file);
			expect(bytes.subarray(0, headerEnd).toString()).toBe('\uFEFF"type",id,note\r\n');
			expect(rows.map((r) => [r.id, r.line])).toEqual([
				['p-1', 2],
				['p-2', 4],
				['p-3 "x"', 6],
				['p-4', 7],
			]);
			expect(rows.map((r) => bytes.subarray(r.start, r.end).toString())).toEqual([
				'INDIVIDUAL,p-1,plain\r\n',
				'LEGAL, "p-2" ,"two\nlines, a comma and ""quotes"""\r\n',
				'INDIVIDUAL,"p-3 ""x""",é\n',
				'INDIVIDUAL,p-4,last',
			]);
		},
	);

	test('a file whose header has no id column: rows with empty ids', async () => {
		const { rows } = await scan('person_id,related_person_id\na,b\n');
		expect(rows.map((r) => r.id)).toEqual(['']);
	});

	test('only the ranges asked for, whatever the chunks', async () => {
		const text = 'h\n0123456789abcdef';
		const ranges = [
			{ start: 0, end: 2 },
			{ start: 4, end: 7 },
			{ start: 10, end: 18 },
		];
		for (const size of [1, 3, 5, 100]) {
			const parts: Buffer[] = [];
			for await (const part of rangesOf(chunked(text, size), ranges)) parts.push(Buffer.from(part));
			expect(Buffer.concat(parts).toString()).toBe('h\n23489abcdef');
		}
		expect(rangesBytes(ranges)).toBe(13);
	});

	test('why a row was refused: the reason before its batch ids', () => {
		expect(
			whyRefused(
				'Duplicate person id p-5 (id p-5). Last saved id: p-999. First id not saved: p-1000',
			),
		).toBe('Duplicate person id p-5 (id p-5)');
		expect(whyRefused('Something else')).toBe('Something else');
	});
});
