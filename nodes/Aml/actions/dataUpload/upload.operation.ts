// Longer than ~250 lines: Upload CSV's description, the checks of the file before any request, and the wait for
// completion, which share the upload's state; the multipart body is in uploadForm.ts.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runItems, withItemFacts } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { itemParameter } from '../../helpers/itemParameter';
import { amlRequest } from '../../transport';
import type { ItemValidator } from '../../validation';
import { prepareUpload, type PreparedUpload } from './prepare';
import {
	DEFAULT_MAX_SKIPPED_ROWS,
	MAX_SKIPPED_ROWS_LIMIT,
	refusedRowsError,
	resumeUpload,
} from './resume';
import {
	confirmToken,
	pollFailedAfterAccepted,
	unsuccessfulUpload,
	waitForFinalState,
} from './shared';
import { uploadForm } from './uploadForm';

const UPLOAD_TIMEOUT_MS = 300_000;

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
					'New persons only: the service refuses a row whose ID is stored already (by default the node skips it and uploads the rest, and reports it). Change stored persons with Person → Update. Header Check requires the ID column and `type` (INDIVIDUAL, LEGAL or UNDEFINED); other columns are attributes.',
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
			'Whether to wait until the service has processed the file (COMPLETED, FAILED or PARTIALLY_COMPLETED). FAILED and PARTIALLY_COMPLETED are reported as errors with the reason, never as success; on a refused row the rest is uploaded (Options → On a Refused Row). Off: output the upload ID at once and check later with Get Status (nothing is resumed).',
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
							"Send the file unchanged and let the service's validation decide: its FAILED or PARTIALLY_COMPLETED answer, with its reason, is the result (a refused row is not skipped: the node did not read the file). Still refused before sending: a transaction file with a column of the record Transaction → Gate writes (or whose header row cannot be read), an empty file, a file over 100 MB.",
					},
				],
				default: 'nodeLayout',
				description: 'How the header row is checked before the file is sent',
			},
			{
				displayName: 'On a Refused Row',
				name: 'onRefusedRow',
				type: 'options',
				options: [
					{
						name: 'Skip It and Upload the Rest',
						value: 'skip',
						description:
							'Upload again, as a new upload, exactly the rows the service did not store, without the row it refused; again for each further refused row, up to Max Refused Rows to Skip. No stored row is sent again. The output still is no success: it lists every refused row with its ID, line and the reason.',
					},
					{
						name: 'Stop and Report',
						value: 'stop',
						description:
							'Report PARTIALLY_COMPLETED with the IDs the reason names; the rows from the first ID not saved on stay unstored',
					},
				],
				default: 'skip',
				description:
					"What to do when the service refuses a row while storing the file (a person already stored, a transaction whose person does not exist): it then stores no row of that row's batch of 1,000 or after it. Default Skip: one refused row would otherwise leave up to 1,000 good rows and every later one unstored. Needs Wait for Completion on and Header Check on (the node reads the file to find the rows); a Person Relation file, whose rows have no ID of their own, always stops. When the reason's IDs cannot be found in the file, the node stops and reports the reason.",
			},
			{
				displayName: 'Max Refused Rows to Skip',
				name: 'maxSkippedRows',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_SKIPPED_ROWS_LIMIT },
				default: DEFAULT_MAX_SKIPPED_ROWS,
				description: `With Skip It and Upload the Rest: the most refused rows skipped in one file (at most ${MAX_SKIPPED_ROWS_LIMIT}). Each one costs one more upload of the rows not yet stored, which the service validates and processes anew; at the next refused row the node stops and reports the rows not stored.`,
			},
			{
				displayName: 'Max Wait (Seconds)',
				name: 'maxWait',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 600,
				description:
					'With Wait for Completion: how long to wait for each upload (the file, and each upload of the rest after a refused row) before it is reported as still processing (an error, or an item with success false)',
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
 * Sends one file (the whole file, or a resumed upload's rest) and, with Wait for Completion, waits for its end: the
 * final status (success or not). A failed wait after the service accepted the file is an error naming the upload ID.
 */
async function sendOne(
	ctx: IExecuteFunctions,
	upload: PreparedUpload,
	i: number,
	form: FormData,
	fileName: string,
): Promise<IDataObject> {
	await confirmToken(ctx, i);
	const timeout = itemParameter(ctx, 'options.timeout', i, UPLOAD_TIMEOUT_MS) as number;
	const response = await amlRequest.call(
		ctx,
		{
			method: 'POST',
			path: '/v1/data-upload',
			qs: { type: upload.type },
			// Streamed from n8n's binary data while it is sent; n8n's HTTP client writes the multipart framing.
			body: form,
			// A repeated upload would store the rows twice: never repeated after it may have arrived.
			retry: 'none',
			checkHint: `the data uploads in the AML web UI: an upload of ${fileName} may be there`,
			timeoutMs: timeout >= 1000 ? timeout : UPLOAD_TIMEOUT_MS,
		},
		i,
	);
	const accepted = parseAnswer(response.body);
	const uploadId = Number(accepted.id);
	if (!Number.isInteger(uploadId) || uploadId < 1) {
		throw new NodeOperationError(
			ctx.getNode(),
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
		fileName: accepted.fileName ?? fileName,
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
	return {
		...base,
		...(await waitForFinalState(ctx, uploadId, upload.maxWait ?? 600, i).catch((error: unknown) => {
			throw withItemFacts(pollFailedAfterAccepted(ctx, base, error, i), {
				...base,
				status: 'UNKNOWN',
				success: false,
			});
		})),
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
			const form = uploadForm(this, upload.binary, upload.size, upload.fileName);
			const final = await sendOne(this, upload, i, form, upload.fileName);
			if (final.success !== false) return final;
			// FAILED stores none of the rows: the first id not saved is the file's first.
			if (final.status === 'FAILED' && !final.timedOut)
				Object.assign(
					final,
					{ lastSavedId: null },
					upload.firstId ? { firstIdNotSaved: upload.firstId } : {},
				);
			let notResumed: string | undefined;
			// Only a file the node read itself, whose rows have IDs of their own (a relation row has none).
			if (
				final.status === 'PARTIALLY_COMPLETED' &&
				!final.timedOut &&
				upload.onRefusedRow === 'skip' &&
				!upload.sentAsIs &&
				upload.type !== 'PERSON_RELATION'
			) {
				const resumed = await resumeUpload(this, upload, final, (rest, fileName) =>
					sendOne(this, upload, i, rest, fileName),
				);
				if ('item' in resumed)
					throw withItemFacts(refusedRowsError(this, resumed.item, i), resumed.item);
				notResumed = resumed.notResumed;
			}
			// Never a success item: with Continue On Fail an error item carrying the status, on the error output when set.
			throw withItemFacts(unsuccessfulUpload(this, final, i, upload.sentAsIs, notResumed), final);
		},
	});
}
