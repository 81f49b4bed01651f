/**
 * On a Refused Row → Skip It and Upload the Rest: after PARTIALLY_COMPLETED, the rows the service did not store are
 * uploaded again, without the row it refused, as a new upload; again for each further refused row, up to the bound.
 *
 * Rules kept (docs/internals.md, "Resuming an upload"):
 * - The service stores every row up to its last saved id and none after it. The resend starts at the row it names as
 *   the first id not saved, and that row must directly follow the row named as the last saved id (or be the first
 *   row sent, when none was saved): exactly one row of the file sent may fit, else the node stops. So no stored row
 *   is sent again.
 * - The refused row is the one row, from that first row on, whose ID is the offending id; none or several: the node
 *   stops (it cannot tell which row the service refused).
 * - A stop reports what is stored, every refused row and where the rows not stored begin, never a success.
 * - The file is read as a stream each time (its byte ranges are sent, never copied into memory).
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { quoteServiceText } from '../../transport';

import { MAX_REASON_PARSED, parseReason, type UploadType } from './csv';
import { rangesBytes, scanCsvRows, type ByteRange, type CsvRow } from './csvRows';
import { binaryChunks, uploadForm } from './uploadForm';

export const ON_REFUSED_ROW = ['skip', 'stop'] as const;
export type OnRefusedRow = (typeof ON_REFUSED_ROW)[number];
export const DEFAULT_MAX_SKIPPED_ROWS = 20;
export const MAX_SKIPPED_ROWS_LIMIT = 1000;

/** The rows of the file still to be stored: every row from byte `from` on, except the refused ones. */
interface View {
	from: number;
	/** The refused rows' byte ranges: start → end. */
	refused: Map<number, number>;
}

interface Located {
	headerEnd: number;
	/** Data rows of the whole file. */
	fileRows: number;
	/** Rows of the upload before its first row not saved: stored by it. */
	storedRows: number;
	/** Rows of the upload from its first row not saved on. */
	restRows: number;
	first: CsvRow;
	offending: CsvRow;
}

/** The ID column of a file whose rows have IDs of their own (a relation row has none). */
const idColumnOf = (names: string[]) => names.indexOf('id');

/**
 * One streamed pass over the file: where the upload of `view` stopped, by the ids of its reason. A text saying why
 * not when the reason's ids do not fit the file.
 */
async function locate(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
	view: View,
	reason: string,
): Promise<Located | string> {
	const ids = parseReason(reason);
	if (ids.firstIdNotSaved === undefined || ids.lastSavedId === undefined || !ids.offendingId)
		return 'its reason does not name the offending id, the last saved id and the first id not saved in a wording the node reads';
	let headerEnd = 0;
	let column = -1;
	let fileRows = 0;
	let sent = 0; // rows of this upload so far
	let previous: string | undefined;
	const firsts: Array<{ row: CsvRow; before: number }> = [];
	const offending: CsvRow[] = [];
	let restRows = 0;
	await scanCsvRows(
		binaryChunks(ctx, binary),
		(header) => {
			headerEnd = header.end;
			column = idColumnOf(header.names);
			return column;
		},
		(row) => {
			fileRows++;
			if (row.start < view.from || view.refused.has(row.start)) return;
			const fits =
				row.id === ids.firstIdNotSaved &&
				(ids.lastSavedId === null ? sent === 0 : previous === ids.lastSavedId);
			if (fits) firsts.push({ row, before: sent });
			if (firsts.length) {
				restRows++;
				if (row.id === ids.offendingId) offending.push(row);
			}
			previous = row.id;
			sent++;
		},
	);
	if (column === -1) return 'the file has no column named id';
	if (firsts.length !== 1)
		return firsts.length === 0
			? `no row of the file sent has the first id not saved (${ids.firstIdNotSaved}) right after the last saved id (${ids.lastSavedId ?? 'none'})`
			: `${firsts.length} rows of the file sent have the first id not saved (${ids.firstIdNotSaved}) right after the last saved id: the node cannot tell where the service stopped`;
	// The offending row is counted from the (only) first row not saved on; a second candidate was ruled out above.
	if (offending.length !== 1)
		return offending.length === 0
			? `no row from id ${ids.firstIdNotSaved} on has the offending id ${ids.offendingId}`
			: `${offending.length} rows from id ${ids.firstIdNotSaved} on have the id ${ids.offendingId}: the node cannot tell which one the service refused`;
	return {
		headerEnd,
		fileRows,
		storedRows: firsts[0].before,
		restRows,
		first: firsts[0].row,
		offending: offending[0],
	};
}

/** The byte ranges of the file of `view`: the header row, then its rows. */
function rangesOfView(headerEnd: number, size: number, view: View): ByteRange[] {
	const ranges: ByteRange[] = [{ start: 0, end: headerEnd }];
	let at = view.from;
	const refused = [...view.refused]
		.filter(([start]) => start >= view.from)
		.sort((a, b) => a[0] - b[0]);
	for (const [start, end] of refused) {
		if (start > at) ranges.push({ start: at, end: start });
		at = Math.max(at, end);
	}
	if (size > at) ranges.push({ start: at, end: size });
	return ranges;
}

export interface RefusedRow extends IDataObject {
	id: string;
	/** Line of the file where the row starts (the header row is line 1). */
	line: number;
	/** The service's reason for the row: its reason of the upload, up to the batch's ids (the upload's status has them). */
	reason: string;
	uploadId: number;
}

export interface ResumeInput {
	binary: IBinaryData;
	size: number;
	fileName: string;
	type: UploadType;
	maxSkippedRows: number;
}

/** Sends one upload and waits for its end: its final status json, as for the first upload. */
export type SendUpload = (form: FormData, fileName: string) => Promise<IDataObject>;

export type ResumeResult =
	/** The first upload's reason does not fit the file: reported as without resuming, with why. */
	| { notResumed: string }
	/** What the uploads stored and refused: never a success (`success: false`). */
	| { item: IDataObject };

/** A count with thousands separators (2,500). */
function count(n: number): string {
	const digits = String(n);
	let text = '';
	for (let i = 0; i < digits.length; i++)
		text +=
			(i > 0 && (digits.length - i) % 3 === 0 && /\d/.test(digits[i - 1]) ? ',' : '') + digits[i];
	return text;
}

const LAST_SAVED = /last\s+saved\s+id\b/i;

/**
 * The part of a reason before its ids of the batch ("… Last saved id: …"): why the row was refused. Searched in the
 * reason's first MAX_REASON_PARSED characters, as its ids are.
 */
export function whyRefused(reason: string): string {
	const at = reason.slice(0, MAX_REASON_PARSED).search(LAST_SAVED);
	let cut = at > 0 ? reason.slice(0, at).trimEnd() : '';
	if (/[.;,]$/.test(cut)) cut = cut.slice(0, -1).trimEnd();
	return cut || reason;
}

/** The file name of the n-th resend: `persons.csv` → `persons-rest-1.csv`. */
const restFileName = (fileName: string, n: number) => fileName.replace(/(\.csv)$/i, `-rest-${n}$1`);

/**
 * Resumes a PARTIALLY_COMPLETED upload (`first`, the final status of the file sent whole) until every row not
 * refused is stored, `maxSkippedRows` refused rows were skipped, or a reason does not fit the file.
 */
export async function resumeUpload(
	ctx: IExecuteFunctions,
	input: ResumeInput,
	first: IDataObject,
	send: SendUpload,
): Promise<ResumeResult> {
	const uploadIds = [Number(first.uploadId)];
	const refused: RefusedRow[] = [];
	let view: View = { from: 0, refused: new Map() };
	let last = first;
	let refusing: IDataObject['reason'] = null; // the reason of the last upload that refused a row
	let stored = 0;
	let fileRows = 0;
	let headerEnd = 0;
	let pending = 0; // rows of the last upload
	const item = (stop?: IDataObject): { item: IDataObject } => ({
		item: {
			uploadId: uploadIds[0],
			uploadIds,
			fileName: first.fileName,
			type: first.type,
			status: last.timedOut ? last.status : 'PARTIALLY_COMPLETED',
			...(last.timedOut ? { timedOut: true } : {}),
			// the service's whole reason of the last upload that did not complete
			reason: last.success === true ? refusing : (last.reason ?? null),
			success: false,
			rows: fileRows,
			rowsStored: stored,
			rowsNotStored: fileRows - stored - ((stop?.rowsPending as number | undefined) ?? 0),
			refusedRows: refused,
			...(stop ?? {}),
		},
	});
	for (;;) {
		if (last.success === true) {
			stored += pending;
			return item();
		}
		const lastId = Number(last.uploadId);
		if (last.timedOut || last.status !== 'PARTIALLY_COMPLETED')
			return item({
				rowsPending: last.timedOut ? pending : 0,
				resumeStopped: last.timedOut
					? `upload ${lastId} of the rest did not finish within Max Wait: check it with Get Status; its ${count(pending)} rows may still be stored`
					: `upload ${lastId} of the rest ended ${String(last.status)}, so none of its ${count(pending)} rows were stored`,
			});
		const reason = typeof last.reason === 'string' ? last.reason : '';
		const found = await locate(ctx, input.binary, view, reason);
		if (typeof found === 'string') {
			if (uploadIds.length === 1) return { notResumed: found };
			// The rows of this upload up to its last saved batch are stored; which ones, the node cannot tell.
			return item({
				rowsPending: pending,
				resumeStopped: `the reason of upload ${lastId} does not fit the rows it was sent (${found}): its rows up to its last saved id are stored, the rest not`,
			});
		}
		({ headerEnd, fileRows } = found);
		refusing = last.reason;
		stored += found.storedRows;
		refused.push({
			id: found.offending.id,
			line: found.offending.line,
			reason: whyRefused(reason),
			uploadId: lastId,
		});
		const notSaved = {
			offendingId: found.offending.id,
			lastSavedId: parseReason(reason).lastSavedId ?? null,
			firstIdNotSaved: found.first.id,
		};
		if (refused.length > input.maxSkippedRows)
			return item({
				...notSaved,
				resumeStopped: `${count(input.maxSkippedRows)} refused row(s) were skipped, the most Max Refused Rows to Skip allows: the rows from id ${found.first.id} on were not stored`,
			});
		view = {
			from: found.first.start,
			refused: new Map([...view.refused, [found.offending.start, found.offending.end]]),
		};
		pending = found.restRows - 1;
		if (pending === 0) return item();
		const ranges = rangesOfView(headerEnd, input.size, view);
		const fileName = restFileName(String(first.fileName ?? input.fileName), uploadIds.length);
		try {
			last = await send(
				uploadForm(ctx, input.binary, rangesBytes(ranges), fileName, ranges),
				fileName,
			);
		} catch (error) {
			const said = error as { message?: string; description?: string | null };
			return item({
				rowsPending: pending,
				resumeStopped: `the upload of the rest (${fileName}, the rows from id ${found.first.id} on) failed: ${said.message ?? 'unknown error'}${said.description ? ` (${said.description})` : ''}`,
			});
		}
		uploadIds.push(Number(last.uploadId));
	}
}

const HINT =
	'Set Settings → On Error to "Continue" to get the outcome as an item with success false instead of an error.';

/**
 * The outcome of a resumed upload as the item's error: a refused row is never success. The message says what was
 * stored and refused; the description what to do.
 */
export function refusedRowsError(
	ctx: IExecuteFunctions,
	json: IDataObject,
	itemIndex: number,
): NodeOperationError {
	const rows = json.refusedRows as RefusedRow[];
	const ids = (json.uploadIds as number[]).join(', ');
	const refusedText =
		rows.length === 1
			? `the service refused 1 row: id ${rows[0].id} (line ${rows[0].line}): ${quoteServiceText(rows[0].reason, 200)}`
			: `the service refused ${rows.length} rows: ids ${rows
					.slice(0, 5)
					.map((row) => row.id)
					.join(', ')}${rows.length > 5 ? ', …' : ''}`;
	const stopped = typeof json.resumeStopped === 'string' ? json.resumeStopped : undefined;
	const message =
		`${String(json.fileName)}: ${count(Number(json.rowsStored))} of ${count(Number(json.rows))} rows stored (upload${(json.uploadIds as number[]).length > 1 ? 's' : ''} ${ids}); ${refusedText}` +
		(stopped ? `; stopped: ${stopped}` : '');
	const todo = [
		'A refused row is not stored. A person the service already holds (for example one stored at onboarding): change it with Person → Update, and leave it out of later files. A transaction whose person does not exist: store the person, then upload the transaction again. refusedRows lists each with its id, line and the reason.',
		stopped
			? json.firstIdNotSaved
				? `The rows from id ${String(json.firstIdNotSaved)} on were not stored: upload them again without the refused rows (or raise Max Refused Rows to Skip).`
				: 'Check the last upload in the AML web UI before sending its rows again.'
			: 'Every other row is stored: do not upload the file again.',
		HINT,
	];
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: todo.join(' '),
	});
}
