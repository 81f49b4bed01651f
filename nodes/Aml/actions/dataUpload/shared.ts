import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import {
	amlApiRequest,
	executionCancelSignal,
	blocksPayment,
	idSegment,
	quoteServiceText,
} from '../../transport';
import { MAX_REASON_PARSED, parseReason } from './csv';

export const FINAL_STATES = ['COMPLETED', 'FAILED', 'PARTIALLY_COMPLETED'];

/**
 * The output of a status answer: `success` only for COMPLETED. The ids a PARTIALLY_COMPLETED reason
 * names (offending id, last saved id, first id not saved) become fields when the wording is
 * recognised, and a FAILED reason's line number; both read only the reason's first MAX_REASON_PARSED
 * characters. The status and the reason are service text: quoted (bounded, redacted, one line).
 */
export function statusJson(uploadId: number, answer: IDataObject): IDataObject {
	const status =
		typeof answer?.status === 'string' ? quoteServiceText(answer.status, 100) : 'UNKNOWN';
	const said = typeof answer?.reason === 'string' && answer.reason !== '' ? answer.reason : '';
	const json: IDataObject = {
		uploadId,
		status,
		reason: said ? quoteServiceText(said) : null,
		success: status === 'COMPLETED',
	};
	if (status === 'PARTIALLY_COMPLETED') Object.assign(json, parseReason(said));
	const line = status === 'FAILED' && /\bline\s+(\d+)/i.exec(said.slice(0, MAX_REASON_PARSED));
	if (line) json.line = Number(line[1]);
	return json;
}

/** Operation 2: the processing status of an upload (repeatable read). */
export async function fetchStatus(
	ctx: IExecuteFunctions,
	uploadId: number,
	itemIndex: number,
): Promise<IDataObject> {
	const answer = (await amlApiRequest.call(
		ctx,
		{
			method: 'GET',
			path: `/v1/data-upload/${idSegment(uploadId)}/status`,
			retry: 'safe',
			answer: { fields: ['status'] },
		},
		itemIndex,
	)) as IDataObject;
	return statusJson(uploadId, answer ?? {});
}

const FIRST_POLL_MS = 1000;
const MAX_POLL_MS = 15_000;

/**
 * Polls the status until COMPLETED, FAILED or PARTIALLY_COMPLETED: first after 1 s, then 1.5 times
 * longer each time up to 15 s, for at most `maxWaitSeconds`. An unfinished wait returns the last
 * status with `timedOut: true` and `success: false`.
 */
export async function waitForFinalState(
	ctx: IExecuteFunctions,
	uploadId: number,
	maxWaitSeconds: number,
	itemIndex: number,
): Promise<IDataObject> {
	const started = Date.now();
	const deadline = started + Math.max(1, maxWaitSeconds) * 1000;
	const signal = executionCancelSignal(ctx);
	let interval = FIRST_POLL_MS;
	for (;;) {
		await sleep(Math.max(0, Math.min(interval, deadline - Date.now())));
		if (signal?.aborted)
			throw new NodeOperationError(
				ctx.getNode(),
				'The execution was cancelled while waiting for the upload',
				{ itemIndex },
			);
		// A status read that failed even after its retries (5xx, 429, no answer) says nothing about the upload:
		// keep waiting (until Max Wait), so that the outcome and the upload id are not lost.
		const polled = await fetchStatus(ctx, uploadId, itemIndex).then(
			(value) => ({ value, error: undefined }),
			(error: unknown) => ({ value: undefined, error: error as NodeOperationError }),
		);
		if (polled.error && !blocksPayment(polled.error)) throw polled.error;
		const status: IDataObject = polled.value ?? {
			uploadId,
			status: 'UNKNOWN',
			reason: null,
			success: false,
			lastPollError: polled.error?.message ?? null,
		};
		const waitedSeconds = Math.round((Date.now() - started) / 1000);
		if (FINAL_STATES.includes(String(status.status))) return { ...status, waitedSeconds };
		if (Date.now() >= deadline) return { ...status, success: false, timedOut: true, waitedSeconds };
		interval = Math.min(MAX_POLL_MS, Math.round(interval * 1.5));
	}
}

/**
 * The wait for an accepted upload failed (a status read refused for good, a credential that stopped working, the
 * execution cancelled): the service holds the file, so the error names the upload ID and says not to upload again.
 */
export function pollFailedAfterAccepted(
	ctx: IExecuteFunctions,
	upload: IDataObject,
	error: unknown,
	itemIndex: number,
): NodeOperationError {
	const label = `Upload ${upload.uploadId}${upload.fileName ? ` (${upload.fileName})` : ''}`;
	const cause = (error as { message?: string }).message ?? 'unknown error';
	const detail = (error as { description?: string | null }).description;
	return new NodeOperationError(
		ctx.getNode(),
		`${label} was accepted by the service, but waiting for its result failed: ${cause}`,
		{
			itemIndex,
			description: `The service accepted the file (202) and processes it. Do not upload it again: use Data Upload → Get Status with upload id ${upload.uploadId}.${detail ? ` ${detail}` : ''}`,
		},
	);
}

/**
 * FAILED, PARTIALLY_COMPLETED and an unfinished wait are never success: the error says what to do next. `sentAsIs`:
 * the node did not check the header row (Header Check off), so the error says the reason is the service's own check.
 */
export function unsuccessfulUpload(
	ctx: IExecuteFunctions,
	json: IDataObject,
	itemIndex: number,
	sentAsIs = false,
): NodeOperationError {
	const label = `Upload ${json.uploadId}${json.fileName ? ` (${json.fileName})` : ''}`;
	const hint =
		'Set Settings → On Error to "Continue" to get the status as an item with success false instead of an error.';
	if (json.timedOut) {
		const state = json.lastPollError
			? `its status could not be read (${json.lastPollError})`
			: `it is still processing (status ${json.status})`;
		return new NodeOperationError(
			ctx.getNode(),
			`${label}: ${state} after ${json.waitedSeconds} s; check later with Get Status, upload id ${json.uploadId}`,
			{
				itemIndex,
				description: `The service accepted the file and is still working on it. Do not upload it again: use Data Upload → Get Status with upload id ${json.uploadId}, or raise "Max Wait (Seconds)". ${hint}`,
			},
		);
	}
	const reason = typeof json.reason === 'string' ? json.reason : '';
	const short = quoteServiceText(reason, 300);
	const message = `${label} ended with status ${json.status}: ${short || 'the service gave no reason'}`;
	let description = sentAsIs
		? "Header Check was off: the file was sent as it is, and the reason is the service's own check. "
		: '';
	if (short !== reason) description += `Reason: ${reason}. `;
	if (json.status === 'FAILED') {
		// Upload CSV knows the file's first id; Get Status does not
		const first = json.firstIdNotSaved ? ` (first id not saved: ${json.firstIdNotSaved})` : '';
		description += `The file failed the service's validation, so none of its rows were stored${first}. Fix ${json.line ? `line ${json.line}` : 'what the reason names'} and upload the whole file again.`;
	} else {
		const ids = ['offendingId', 'lastSavedId', 'firstIdNotSaved']
			.filter((key) => json[key] !== undefined)
			.map((key) => `${key}: ${json[key] ?? 'none'}`);
		const saved = json.lastSavedId
			? `Rows up to id ${json.lastSavedId} were stored`
			: json.lastSavedId === null
				? 'No rows were stored'
				: 'The batches before the failing one were stored';
		const notSaved = json.firstIdNotSaved
			? `rows from id ${json.firstIdNotSaved} on were not`
			: 'rows from the failing batch of 1000 on were not';
		description +=
			`${saved}; ${notSaved}${ids.length ? ` (${ids.join(', ')})` : ''}. ` +
			`Fix ${json.offendingId ? `the row with id ${json.offendingId}` : 'the row named in the reason'} (for example a duplicate id, or a transaction whose person does not exist), ` +
			'then upload only the rows that were not stored: the stored rows would now fail as duplicates.';
	}
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: `${description} ${hint}`,
	});
}
