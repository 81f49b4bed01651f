/**
 * Pure pieces of the CSV upload: the header-row check, the multipart framing and the reading of the
 * service's status `reason`. No n8n context here, so they are unit-testable.
 */

import { isGateRecordKey } from '../../helpers/attributes';

export const UPLOAD_TYPES = [
	'PERSON',
	'TRANSACTION',
	'TRANSACTION_UPDATE',
	'PERSON_RELATION',
] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];

/** The spec's file limit ("up to 100M"). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** How much of the file start is read to find the header row. */
export const HEAD_BYTES = 64 * 1024;

/**
 * Required columns per type, as the node's Header Check requires them (the service shows no CSV layout).
 * `snakeOnly` columns must be written in snake_case (`person_id` of transaction files); the others may also be
 * camelCase.
 */
export const REQUIRED_COLUMNS: Record<UploadType, { columns: string[]; snakeOnly: string[] }> = {
	PERSON: { columns: ['id', 'type'], snakeOnly: [] },
	TRANSACTION: {
		columns: ['id', 'person_id', 'timestamp', 'amount', 'direction'],
		snakeOnly: ['person_id'],
	},
	TRANSACTION_UPDATE: { columns: ['id', 'person_id'], snakeOnly: ['person_id'] },
	PERSON_RELATION: { columns: ['person_id', 'related_person_id', 'relation_type'], snakeOnly: [] },
};

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Splits one CSV line into cells (RFC 4180 quoting); undefined when a quote is left open. */
export function splitCsvLine(line: string): string[] | undefined {
	const cells: string[] = [];
	let cell = '';
	let quoted = false;
	for (let i = 0; i < line.length; i++) {
		const c = line[i];
		if (quoted) {
			if (c === '"' && line[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (c === '"') {
				quoted = false;
			} else {
				cell += c;
			}
		} else if (c === '"' && cell.trim() === '') {
			quoted = true;
			cell = '';
		} else if (c === ',') {
			cells.push(cell);
			cell = '';
		} else {
			cell += c;
		}
	}
	if (quoted) return undefined;
	cells.push(cell);
	return cells;
}

export interface HeadFacts {
	/** The header row, without BOM and line break. */
	headerLine: string;
	/** True when the whole file fits in the head that was read. */
	complete: boolean;
	/** True when a non-empty line follows the header (only meaningful when known). */
	hasDataRow: boolean;
	/** The first non-empty line after the header, when the head holds it whole. */
	firstDataLine?: string;
}

/** The first characters of a text, on one line. */
function shortStart(text: string): string {
	return text.trim().slice(0, 40).replace(/\s+/g, ' ');
}

/** Finds the header row in the first bytes of the file. Returns the problem as text when there is one. */
export function readHead(head: Buffer, totalBytes: number): HeadFacts | string {
	if (head.includes(0))
		return 'is not a text CSV file (it contains binary data). Upload a UTF-8 CSV file';
	let text = head.toString('utf8');
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	// A web page served in place of the export (a login or error page) is not a CSV file: said so, not as a bad header.
	const page = /^\s*<(!doctype\s+html|html|head|body|\?xml)\b/i.exec(text);
	if (page)
		return `is not a CSV file: it is ${page[1].startsWith('?') ? 'an XML document' : 'an HTML page'} (it starts with "${shortStart(text)}"), usually a login or error page served in place of the export. Check the download's URL and authentication`;
	const complete = head.length >= totalBytes;
	const newline = text.indexOf('\n');
	if (newline === -1 && !complete) {
		return `has no line break in its first ${Math.round(HEAD_BYTES / 1024)} KB: the first line must be a header row of comma-separated column names`;
	}
	const headerLine = (newline === -1 ? text : text.slice(0, newline)).replace(/\r$/, '');
	const rest = newline === -1 ? '' : text.slice(newline + 1);
	const lines = rest.split(/\r?\n/);
	const first = lines.findIndex((line) => line.trim() !== '');
	// the last line of an incomplete head may be cut off
	const whole = first !== -1 && (complete || first < lines.length - 1);
	return {
		headerLine,
		complete,
		hasDataRow: first !== -1,
		...(whole ? { firstDataLine: lines[first] } : {}),
	};
}

/**
 * The id of the file's first row (column `id`; `person_id` for PERSON_RELATION): when the service answers FAILED,
 * no row was stored, so this is the first id not saved. Undefined when it cannot be read from the head.
 */
export function firstRowId(head: HeadFacts, type: UploadType): string | undefined {
	if (head.firstDataLine === undefined) return undefined;
	const header = splitCsvLine(head.headerLine)?.map((name) => name.trim());
	const cells = splitCsvLine(head.firstDataLine);
	const column =
		header?.indexOf(
			type === 'PERSON_RELATION' ? (header.includes('person_id') ? 'person_id' : 'personId') : 'id',
		) ?? -1;
	const id = column >= 0 ? cells?.[column]?.trim() : undefined;
	return id ? id : undefined;
}

/** Whether a file of this type writes transactions, whose columns must never set a key of the Gate's record. */
export const writesTransactions = (type: UploadType): boolean =>
	type === 'TRANSACTION' || type === 'TRANSACTION_UPDATE';

/** A column of a transaction file that names a key of the Gate's record, as the problem text; else undefined. */
function gateColumnProblem(names: string[], type: UploadType): string | undefined {
	const gateKey = writesTransactions(type) ? names.find(isGateRecordKey) : undefined;
	return gateKey === undefined
		? undefined
		: `has the column "${gateKey}", a key of the record Transaction → Gate writes on the transaction: no upload may set it (remove the column)`;
}

/**
 * With Header Check off, the one rule of the header row that still holds: a transaction file may not carry a column
 * of the Gate's record. A transaction file whose header row cannot be read is refused too, since that rule cannot
 * be checked on it. Other types: never a problem.
 */
export function gateHeaderProblem(head: HeadFacts | string, type: UploadType): string | undefined {
	if (!writesTransactions(type)) return undefined;
	const why =
		'so the node cannot check that no column sets a key of the record Transaction → Gate writes';
	if (typeof head === 'string') return `${head} (${why})`;
	const cells = splitCsvLine(head.headerLine);
	if (!cells)
		return `has a malformed header row (a quote is not closed), ${why}: ${shorten(head.headerLine)}`;
	return gateColumnProblem(
		cells.map((cell) => cell.trim()),
		type,
	);
}

/**
 * The node's Header Check (its own rules: the service shows no CSV layout): the header row against the type's
 * required columns, one comma-separated name per column, no empty or repeated name. Returns the problem as text or
 * undefined.
 */
export function headerProblem(headerLine: string, type: UploadType): string | undefined {
	if (headerLine.trim() === '')
		return 'starts with an empty line: the first line must be a header row of comma-separated column names';
	const cells = splitCsvLine(headerLine);
	if (!cells) return `has a malformed header row (a quote is not closed): ${shorten(headerLine)}`;
	const names = cells.map((cell) => cell.trim());
	if (names.length < 2) {
		const separator = [';', '\t', '|'].find((s) => headerLine.includes(s));
		if (separator) {
			const shown = separator === '\t' ? 'tab' : `"${separator}"`;
			return `uses ${shown} as column separator: the service needs comma-separated columns (header row: ${shorten(headerLine)})`;
		}
		return `has no comma-separated column names in its header row (${shorten(headerLine)}). The first line must name the columns, e.g. ${REQUIRED_COLUMNS[type].columns.join(',')}`;
	}
	const emptyAt = names.findIndex((name) => name === '');
	if (emptyAt !== -1)
		return `has an empty column name at position ${emptyAt + 1} of the header row (${shorten(headerLine)})`;
	const seen = new Set<string>();
	for (const name of names) {
		if (seen.has(name)) return `names the column "${name}" twice in the header row`;
		seen.add(name);
	}
	const gateKey = gateColumnProblem(names, type);
	if (gateKey) return gateKey;
	const { columns, snakeOnly } = REQUIRED_COLUMNS[type];
	const missing = columns.filter(
		(column) => !seen.has(column) && (snakeOnly.includes(column) || !seen.has(camel(column))),
	);
	if (missing.length) {
		return `lacks the required column(s) ${missing.join(', ')} for type ${type} (required: ${columns.join(', ')}; header row: ${shorten(headerLine)})`;
	}
	return undefined;
}

function shorten(text: string): string {
	return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Characters a multipart header's quoted file name cannot carry. */
export function safeFileName(name: string): string {
	return name.replace(/[\r\n]/g, ' ').replace(/["\\]/g, '_');
}

export interface ReasonIds {
	offendingId?: string;
	lastSavedId?: string | null;
	firstIdNotSaved?: string;
}

/** At most this much of a `reason` is searched for ids (the text itself is kept whole); service reasons are short. */
export const MAX_REASON_PARSED = 4096;

// An id as the interface allows it; a trailing ":" or "." is read as punctuation of the sentence. Sticky: matched
// exactly where the connector ends. Neither quantifier can give back what the other takes, so matching is linear.
const ID = /["'`]?([A-Za-z0-9\-_:.]*[A-Za-z0-9\-_])["'`]?/y;
const SPACES = /\s*/y;
const CONNECTOR_WORD = /(?:is|was)\b/iy;
const CONNECTOR_SIGN = /[:=]/y;

/** Matches `sticky` at `from`; returns where it ends, or -1. */
function stickyEnd(sticky: RegExp, text: string, from: number): number {
	sticky.lastIndex = from;
	return sticky.test(text) ? sticky.lastIndex : -1;
}

/**
 * The id that follows a phrase ending at `from`: spaces, an optional "is"/"was", spaces, an optional ":" or "=",
 * spaces, then the id. Each step is a sticky match that starts where the one before ended (no backtracking across
 * steps: a reason of many spaces costs one pass).
 */
function idAfter(text: string, from: number): string | undefined {
	let at = stickyEnd(SPACES, text, from);
	const word = stickyEnd(CONNECTOR_WORD, text, at);
	if (word !== -1) at = stickyEnd(SPACES, text, word);
	const sign = stickyEnd(CONNECTOR_SIGN, text, at);
	if (sign !== -1) at = stickyEnd(SPACES, text, sign);
	ID.lastIndex = at;
	const match = ID.exec(text);
	return match ? match[1] : undefined;
}

/** The id after the first occurrence of `phrase` (a global regex) that is followed by one. */
function idAfterPhrase(text: string, phrase: RegExp): string | undefined {
	phrase.lastIndex = 0;
	for (let match = phrase.exec(text); match; match = phrase.exec(text)) {
		const id = idAfter(text, match.index + match[0].length);
		if (id !== undefined) return id;
		if (match[0] === '') phrase.lastIndex++;
	}
	return undefined;
}

const LAST_SAVED = /last\s+saved\s+id\b/gi;
const FIRST_NOT_SAVED = /first\s+id\s+not\s+saved\b/gi;
const OFFENDING = /\b(?:offending\s+id|with\s+id|duplicate\s+id|id)\b/gi;

/**
 * Picks the ids out of a PARTIALLY_COMPLETED reason ("… id X … last saved id: Y … first id not
 * saved: Z"). Only the ids it recognises are returned; the reason text itself is always kept. Only the first
 * MAX_REASON_PARSED characters are searched, and every pattern runs in time linear in that text.
 */
export function parseReason(reason: unknown): ReasonIds {
	if (typeof reason !== 'string' || reason === '') return {};
	const text = reason.slice(0, MAX_REASON_PARSED);
	const found: ReasonIds = {};
	const last = idAfterPhrase(text, LAST_SAVED);
	if (last !== undefined) found.lastSavedId = /^(none|null|n\/a|-)$/i.test(last) ? null : last;
	const first = idAfterPhrase(text, FIRST_NOT_SAVED);
	if (first !== undefined) found.firstIdNotSaved = first;
	// The offending id: named before the other two ("entity with id X", "offending id: X", "duplicate id X").
	const ends = [LAST_SAVED, FIRST_NOT_SAVED].map((phrase) => {
		phrase.lastIndex = 0;
		return phrase.exec(text)?.index ?? text.length;
	});
	const offending = idAfterPhrase(text.slice(0, Math.min(...ends)), OFFENDING);
	if (offending !== undefined) found.offendingId = offending;
	return found;
}
