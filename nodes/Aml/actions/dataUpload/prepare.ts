// The checks of an upload's file and parameters before any request: type, binary field, file name, size, header row.
import type {
	IBinaryData,
	IExecuteFunctions,
	INodeExecutionData,
	NodeOperationError,
} from 'n8n-workflow';

import { itemParameter } from '../../helpers/itemParameter';
import { valid, enumRule, invalid, positiveIntegerRule } from '../../validation';
import {
	firstRowId,
	gateHeaderProblem,
	HEAD_BYTES,
	headerProblem,
	MAX_UPLOAD_BYTES,
	readHead,
	UPLOAD_TYPES,
	type UploadType,
} from './csv';
import {
	DEFAULT_MAX_SKIPPED_ROWS,
	MAX_SKIPPED_ROWS_LIMIT,
	ON_REFUSED_ROW,
	type OnRefusedRow,
} from './resume';

export const HEADER_CHECKS = ['nodeLayout', 'off'] as const;

export interface PreparedUpload {
	property: string;
	binary: IBinaryData;
	type: UploadType;
	fileName: string;
	size: number;
	waitForCompletion?: boolean;
	maxWait?: number;
	/** Header Check off: the file is sent without the node's header rules. */
	sentAsIs?: boolean;
	/** Id of the file's first row, when the head holds it: the first id not saved of a FAILED upload. */
	firstId?: string;
	/** After PARTIALLY_COMPLETED: skip the refused row and upload the rest, or stop (On a Refused Row). */
	onRefusedRow: OnRefusedRow;
	/** The most refused rows skipped for the file (Max Refused Rows to Skip). */
	maxSkippedRows: number;
}

/** Size of the binary without loading it: the stored file's metadata, or the length of the base64 text. */
async function binarySize(ctx: IExecuteFunctions, binary: IBinaryData): Promise<number> {
	if (binary.id) return Number((await ctx.helpers.getBinaryMetadata(binary.id)).fileSize);
	return Buffer.byteLength(binary.data ?? '', 'base64');
}

/** The first bytes of the file (enough for the header row), without reading the rest. */
async function binaryHead(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
	size: number,
): Promise<Buffer> {
	const want = Math.min(HEAD_BYTES, size);
	if (!binary.id)
		return Buffer.from((binary.data ?? '').slice(0, Math.ceil(want / 3) * 4), 'base64').subarray(
			0,
			want,
		);
	const chunks: Buffer[] = [];
	let got = 0;
	for await (const chunk of await ctx.helpers.getBinaryStream(binary.id, HEAD_BYTES)) {
		chunks.push(chunk as Buffer);
		got += (chunk as Buffer).length;
		if (got >= want) break;
	}
	return Buffer.concat(chunks).subarray(0, want);
}

function tooLarge(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: string,
	bytes: number,
): NodeOperationError {
	const mb = (bytes / 1024 / 1024).toFixed(1);
	return invalid(
		ctx,
		itemIndex,
		'Input Binary Field',
		property,
		`holds a file of ${mb} MB; the service accepts CSV files up to 100 MB. Split the file into smaller ones`,
	);
}

/**
 * One item's upload, read and checked before anything is sent: the type, the binary field and its file name, the size
 * and the header row (from the file's first 64 KB, without loading the rest), and the wait settings.
 */
export async function prepareUpload(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	i: number,
): Promise<PreparedUpload> {
	const type = valid<UploadType>(ctx, i, 'Upload Type', itemParameter(ctx, 'uploadType', i), (v) =>
		enumRule(v, UPLOAD_TYPES),
	);
	const property = String(itemParameter(ctx, 'binaryPropertyName', i, 'data')).trim();
	const binary = items[i].binary?.[property];
	if (!binary) {
		const present = Object.keys(items[i].binary ?? {});
		throw invalid(
			ctx,
			i,
			'Input Binary Field',
			property,
			`names no binary data of the item (${present.length ? `the item's binary fields are: ${present.join(', ')}` : 'the item has no binary data at all'})`,
		);
	}
	const fileName = String(
		itemParameter(ctx, 'options.fileName', i, '') || binary.fileName || `${type.toLowerCase()}.csv`,
	).trim();
	if (!/\.csv$/i.test(fileName))
		throw invalid(
			ctx,
			i,
			'File Name',
			fileName,
			'must end with .csv (the service only takes CSV files)',
		);
	// Size and header row are checked without loading the file: only its first 64 KB are read.
	const size = await binarySize(ctx, binary);
	if (!Number.isFinite(size) || size <= 0)
		throw invalid(ctx, i, 'Input Binary Field', property, 'holds an empty file');
	if (size > MAX_UPLOAD_BYTES) throw tooLarge(ctx, i, property, size);
	const head = readHead(await binaryHead(ctx, binary, size), size);
	const headerCheck = valid(
		ctx,
		i,
		'Header Check',
		itemParameter(ctx, 'options.headerCheck', i, 'nodeLayout'),
		(v) => enumRule(v, HEADER_CHECKS),
	);
	if (headerCheck === 'off') {
		// Sent as it is; only the Gate's record stays out of reach of an upload.
		const problem = gateHeaderProblem(head, type);
		if (problem) throw invalid(ctx, i, 'CSV header', fileName, problem);
	} else {
		if (typeof head === 'string') throw invalid(ctx, i, 'CSV file', fileName, head);
		const problem = headerProblem(head.headerLine, type);
		if (problem) throw invalid(ctx, i, 'CSV header', fileName, problem);
		if (head.complete && !head.hasDataRow)
			throw invalid(ctx, i, 'CSV file', fileName, 'has a header row but no data rows');
	}
	const waitForCompletion = itemParameter(ctx, 'waitForCompletion', i, true) as boolean;
	const maxWait = Number(
		valid(
			ctx,
			i,
			'Max Wait (Seconds)',
			itemParameter(ctx, 'options.maxWait', i, 600),
			positiveIntegerRule,
		),
	);
	const onRefusedRow = valid<OnRefusedRow>(
		ctx,
		i,
		'On a Refused Row',
		itemParameter(ctx, 'options.onRefusedRow', i, 'skip'),
		(v) => enumRule(v, ON_REFUSED_ROW),
	);
	const maxSkippedRows = Number(
		valid(
			ctx,
			i,
			'Max Refused Rows to Skip',
			itemParameter(ctx, 'options.maxSkippedRows', i, DEFAULT_MAX_SKIPPED_ROWS),
			positiveIntegerRule,
		),
	);
	if (maxSkippedRows > MAX_SKIPPED_ROWS_LIMIT)
		throw invalid(
			ctx,
			i,
			'Max Refused Rows to Skip',
			maxSkippedRows,
			`must be at most ${MAX_SKIPPED_ROWS_LIMIT} (each skipped row is one more upload of the rows not stored)`,
		);
	return {
		property,
		binary,
		type,
		fileName,
		size,
		waitForCompletion,
		maxWait,
		sentAsIs: headerCheck === 'off',
		firstId: typeof head === 'string' ? undefined : firstRowId(head, type),
		onRefusedRow,
		maxSkippedRows,
	};
}
