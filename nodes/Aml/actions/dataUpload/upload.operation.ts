// Longer than ~250 lines: Upload CSV's description, the checks of the file before any request, and the wait for
// completion, which share the upload's state; the multipart body is in uploadForm.ts.
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runItems, withItemFacts } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { amlRequest } from '../../transport';
import {
	valid,
	enumRule,
	invalid,
	positiveIntegerRule,
	type ItemValidator,
} from '../../validation';
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
	confirmToken,
	pollFailedAfterAccepted,
	unsuccessfulUpload,
	waitForFinalState,
} from './shared';
import { uploadForm } from './uploadForm';
import { itemParameter } from '../../helpers/itemParameter';

const UPLOAD_TIMEOUT_MS = 300_000;
const HEADER_CHECKS = ['nodeLayout', 'off'] as const;

const properties: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		placeholder: 'e.g. data',
		hint: 'The name of the input binary field containing the CSV file',
		description:
			'Binary field of the input item that holds the CSV file, for example the output of Read/Write Files from Disk, Convert to File or an HTTP Request download',
	},
	{
		displayName: 'Upload Type',
		name: 'uploadType',
		type: 'options',
		options: [
			{
				name: 'Person',
				value: 'PERSON',
				description:
					'New persons only: the service refuses a row whose ID is stored already (PARTIALLY_COMPLETED). Change stored persons with Person → Update. Header Check requires the ID column and `type` (INDIVIDUAL, LEGAL or UNDEFINED); other columns are attributes.',
			},
			{
				name: 'Person Relation',
				value: 'PERSON_RELATION',
				description:
					'Relations between two stored persons. Header Check requires the columns `person_id`, `related_person_id` and `relation_type`.',
			},
			{
				name: 'Transaction',
				value: 'TRANSACTION',
				description:
					'Transactions of stored persons. Header Check requires the ID column, `person_id`, `timestamp` (ISO-8601), `amount` and `direction`; other columns are attributes.',
			},
			{
				name: 'Transaction Update',
				value: 'TRANSACTION_UPDATE',
				description:
					'Changes to stored transactions. Header Check requires the ID column and `person_id`, then the columns to add, or `status`.',
			},
		],
		default: 'PERSON',
		description:
			'What the rows of the file are. The file starts with a header row naming its columns, in snake_case or camelCase (personId), but person_id of transaction files always in snake_case.',
		hint: 'Options → Header Check requires the columns listed with each type (the ID column: id); Off sends others as they are',
	},
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: true,
		description:
			'Whether to wait until the service has processed the file (COMPLETED, FAILED or PARTIALLY_COMPLETED). FAILED and PARTIALLY_COMPLETED are reported as errors with the reason, never as success. Off: output the upload ID at once and check later with Get Status.',
	},
	optionsCollection(
		[
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				placeholder: 'e.g. persons.csv',
				description:
					'Name sent with the file; must end with .csv. Empty: the file name of the binary data.',
			},
			{
				displayName: 'Header Check',
				name: 'headerCheck',
				type: 'options',
				options: [
					{
						name: "Node's Layout",
						value: 'nodeLayout',
						description:
							'Refuse before sending a file whose header row lacks a column listed with the Upload Type, names a column twice, has an empty name or is not comma-separated. These are the rules of this node; the service may accept other layouts.',
					},
					{
						name: 'Off: Send the File As It Is',
						value: 'off',
						description:
							"Send the file unchanged and let the service's validation decide: its FAILED or PARTIALLY_COMPLETED answer, with its reason, is the result. Still refused before sending: a transaction file with a column of the record Transaction → Gate writes (or whose header row cannot be read), an empty file, a file over 100 MB.",
					},
				],
				default: 'nodeLayout',
				description: 'How the header row is checked before the file is sent',
			},
			{
				displayName: 'Max Wait (Seconds)',
				name: 'maxWait',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 600,
				description:
					'With Wait for Completion: how long to wait for the service to finish before the upload is reported as still processing (an error, or an item with success false)',
			},
		],
		{
			parallelRequests: {
				default: 1,
				description:
					"How many files are uploaded at the same time. Files are streamed from n8n's binary data while they are sent, never loaded into memory whole.",
			},
			timeout: {
				default: UPLOAD_TIMEOUT_MS,
				description:
					'Milliseconds that sending one file and getting its answer may take (default 300,000: 5 minutes)',
			},
		},
	),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['dataUpload'], operation: ['upload'] } },
	properties,
);

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

function parseAnswer(body: unknown): IDataObject {
	if (Buffer.isBuffer(body)) body = body.toString('utf8');
	if (typeof body === 'string') {
		try {
			return JSON.parse(body) as IDataObject;
		} catch {
			return {};
		}
	}
	return (body ?? {}) as IDataObject;
}

/**
 * One item's upload, read and checked before anything is sent: the type, the binary field and its file name, the size
 * and the header row (from the file's first 64 KB, without loading the rest), and the wait settings.
 */
async function prepareUpload(
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
	};
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	return await runItems<PreparedUpload>(this, items, validate, {
		// Large files: one upload at a time unless the user raises Parallel Requests.
		defaultParallel: 1,
		prepare: async (i) => await prepareUpload(this, items, i),
		send: async (upload, i) => {
			await confirmToken(this, i);
			const timeout = itemParameter(this, 'options.timeout', i, UPLOAD_TIMEOUT_MS) as number;
			const response = await amlRequest.call(
				this,
				{
					method: 'POST',
					path: '/v1/data-upload',
					qs: { type: upload.type },
					// Streamed from n8n's binary data while it is sent; n8n's HTTP client writes the multipart framing.
					body: uploadForm(this, upload.binary, upload.size, upload.fileName),
					// A repeated upload would store the rows twice: never repeated after it may have arrived.
					retry: 'none',
					checkHint: `the data uploads in the AML web UI: an upload of ${upload.fileName} may be there`,
					timeoutMs: timeout >= 1000 ? timeout : UPLOAD_TIMEOUT_MS,
				},
				i,
			);
			const accepted = parseAnswer(response.body);
			const uploadId = Number(accepted.id);
			if (!Number.isInteger(uploadId) || uploadId < 1) {
				throw new NodeOperationError(
					this.getNode(),
					`The service accepted the file but returned no upload ID (answer: ${JSON.stringify(accepted).slice(0, 200)})`,
					{
						itemIndex: i,
						description:
							'The rows may still be processed. Check the uploads in the AML web UI before uploading the file again.',
					},
				);
			}
			const base: IDataObject = {
				uploadId,
				fileName: accepted.fileName ?? upload.fileName,
				type: accepted.type ?? upload.type,
			};
			if (upload.waitForCompletion === false) {
				return {
					...base,
					status: 'ACCEPTED',
					reason: null,
					success: null,
					note: `Processing is asynchronous: use Data Upload → Get Status with upload id ${uploadId} to learn whether it COMPLETED`,
				};
			}
			// From here on the service holds the file: every failure names the upload ID, so that nobody uploads it again.
			const final: IDataObject = {
				...base,
				...(await waitForFinalState(this, uploadId, upload.maxWait ?? 600, i).catch(
					(error: unknown) => {
						throw withItemFacts(pollFailedAfterAccepted(this, base, error, i), {
							...base,
							status: 'UNKNOWN',
							success: false,
						});
					},
				)),
			};
			if (final.success === true) return final;
			// FAILED stores none of the rows: the first id not saved is the file's first.
			if (final.status === 'FAILED' && !final.timedOut)
				Object.assign(
					final,
					{ lastSavedId: null },
					upload.firstId ? { firstIdNotSaved: upload.firstId } : {},
				);
			// Never a success item: with Continue On Fail an error item carrying the status, on the error output when set.
			throw withItemFacts(unsuccessfulUpload(this, final, i, upload.sentAsIs), final);
		},
	});
}
