/**
 * The rows of a CSV file as the node reads them to resume an upload: one streamed pass over the file's bytes that
 * yields each row's byte range, line and ID cell, without holding the file. Pure (no n8n context): unit-testable.
 *
 * Rules kept: RFC 4180 quoting (a quoted cell may hold commas, quotes doubled, line breaks); a record ends at a line
 * feed outside quotes (a carriage return before it belongs to the line break); an empty line is no row. Quotes,
 * commas and line breaks are ASCII, never part of a multi-byte UTF-8 character, so the bytes are scanned as they are.
 */

import { splitCsvLine } from './csv';

export interface CsvRow {
	/** Byte offset of the row's first byte. */
	start: number;
	/** Byte offset after the row's line break (or the end of the file). */
	end: number;
	/** Line of the file where the row starts (the header row is line 1). */
	line: number;
	/** The row's ID cell, trimmed ('' when the row has no such cell). */
	id: string;
}

export interface CsvHeader {
	/** Byte offset after the header row's line break: the header row is bytes [0, end). */
	end: number;
	/** The column names, trimmed (a byte order mark removed). */
	names: string[];
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Scans `chunks` (the whole file, in order): calls `onHeader` with the header row, which returns the index of the ID
 * column (or -1), then `onRow` for each row after it, in order. Only the ID cell's bytes are kept.
 */
export async function scanCsvRows(
	chunks: AsyncIterable<Uint8Array>,
	onHeader: (header: CsvHeader) => number,
	onRow: (row: CsvRow) => void,
): Promise<void> {
	let offset = 0;
	let line = 1;
	let recordStart = 0;
	let recordLine = 1;
	let recordBytes = 0; // bytes of the record other than its line break
	let field = 0;
	let fieldBlank = true; // the field holds only spaces so far: a quote here opens a quoted cell
	let quoted = false;
	let quotePending = false; // a quote inside a quoted cell: doubled (a literal quote) or the cell's end
	let header: CsvHeader | undefined;
	let idColumn = -1;
	let kept: number[] = []; // the header row's bytes as they are; of a later row, its ID cell's content

	const endRecord = (end: number) => {
		if (recordBytes > 0) {
			const text = Buffer.from(kept).toString('utf8').replace(/\r$/, '');
			if (header === undefined) {
				const names = (splitCsvLine(text) ?? []).map((name, i) =>
					(i === 0 ? name.replace(/^\uFEFF/, '') : name).trim(),
				);
				header = { end, names };
				idColumn = onHeader(header);
			} else {
				onRow({ start: recordStart, end, line: recordLine, id: text.trim() });
			}
		}
		recordStart = end;
		recordLine = line;
		recordBytes = 0;
		field = 0;
		fieldBlank = true;
		kept = [];
	};

	for await (const chunk of chunks) {
		for (let k = 0; k < chunk.length; k++, offset++) {
			const byte = chunk[k];
			const inHeader = header === undefined;
			const inId = !inHeader && field === idColumn;
			if (quotePending) {
				quotePending = false;
				if (byte === QUOTE) {
					// a doubled quote: one literal quote (the header row keeps both, splitCsvLine reads it again)
					if (inHeader || inId) kept.push(byte);
					recordBytes++;
					continue;
				}
				quoted = false;
			}
			if (quoted) {
				if (inHeader) kept.push(byte);
				if (byte === QUOTE) quotePending = true;
				else if (inId) kept.push(byte);
				if (byte === LF) line++;
				recordBytes++;
				continue;
			}
			if (byte === LF) {
				line++;
				endRecord(offset + 1);
				continue;
			}
			if (inHeader) kept.push(byte);
			if (byte !== CR) recordBytes++;
			if (byte === QUOTE && fieldBlank) {
				quoted = true;
				fieldBlank = false;
				if (inId) kept = [];
			} else if (byte === COMMA) {
				field++;
				fieldBlank = true;
			} else {
				if (byte !== 0x20 && byte !== 0x09 && byte !== CR) fieldBlank = false;
				if (inId) kept.push(byte);
			}
		}
	}
	endRecord(offset);
}

/** Bytes [start, end) of the file, in order: the ranges of a file made of some of another's parts. */
export interface ByteRange {
	start: number;
	end: number;
}

/** Only the bytes of `ranges` (sorted, not overlapping) out of the file's `chunks`, in order. */
export async function* rangesOf(
	chunks: AsyncIterable<Uint8Array>,
	ranges: ByteRange[],
): AsyncGenerator<Uint8Array> {
	let offset = 0;
	let r = 0;
	for await (const chunk of chunks) {
		const chunkEnd = offset + chunk.length;
		while (r < ranges.length && ranges[r].start < chunkEnd) {
			const from = Math.max(ranges[r].start, offset);
			const to = Math.min(ranges[r].end, chunkEnd);
			if (to > from) yield chunk.subarray(from - offset, to - offset);
			if (ranges[r].end > chunkEnd) break;
			r++;
		}
		offset = chunkEnd;
		if (r >= ranges.length) return;
	}
}

/** The number of bytes `ranges` cover. */
export const rangesBytes = (ranges: ByteRange[]): number =>
	ranges.reduce((sum, range) => sum + range.end - range.start, 0);
