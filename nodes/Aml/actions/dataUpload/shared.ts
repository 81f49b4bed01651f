import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	amlApiRequest,
	amlRequest,
	CHECK_REQUEST_PATH,
	failureOf,
	idSegment,
	pollUntil,
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

/** How an upload's status is polled: first after 1 s, then 1.5 times longer each time, up to 15 s. */
const POLL = { firstMs: 1000, factor: 1.5, maxMs: 15_000 };

/**
 * Polls the status (`pollUntil`) until COMPLETED, FAILED or PARTIALLY_COMPLETED, for at most `maxWaitSeconds`. A status
 * read that failed transiently (5xx, 429, no answer, after its own repeats) says nothing about the upload: the wait goes
 * on, so that the outcome and the upload id are not lost. An unfinished wait returns the last status with
 * `timedOut: true` and `success: false`.
 */
export async function waitForFinalState(
	ctx: IExecuteFunctions,
	uploadId: number,
	maxWaitSeconds: number,
	itemIndex: number,
): Promise<IDataObject> {
	const started = Date.now();
	const endsAt = started + Math.max(1, maxWaitSeconds) * 1000;
	const polled = await pollUntil(
		ctx,
		{ ...POLL, endsAt },
		async () => await fetchStatus(ctx, uploadId, itemIndex),
		(status) => FINAL_STATES.includes(String(status.status)),
	);
	if (polled.ended === 'cancelled')
		throw new NodeOperationError(
			ctx.getNode(),
			'The execution was cancelled while waiting for the upload',
			{ itemIndex },
		);
	const status: IDataObject = polled.value ?? {
		uploadId,
		status: 'UNKNOWN',
		reason: null,
		success: false,
		lastPollError: polled.lastError?.message ?? null,
	};
	const waitedSeconds = Math.round((Date.now() - started) / 1000);
	if (polled.ended === 'done') return { ...status, waitedSeconds };
	return { ...status, success: false, timedOut: true, waitedSeconds };
}

/**
 * Before a large body (an upload): one small read, so that a token the service refuses is renewed (`decide`'s 401 row)
 * before any byte of the body goes out (a server refusing a large request's token may close the connection mid-body,
 * which n8n reports as a dropped connection, not the 401). The read's failure is the item's only when it is that 401
 * (it survived the renewal); any other is left to the upload request itself.
 */
export async function confirmToken(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
	await amlRequest
		.call(ctx, { method: 'GET', path: CHECK_REQUEST_PATH, retry: 'safe' }, itemIndex)
		.catch((error: unknown) => {
			const failure = failureOf(error);
			if (failure?.kind === 'service' && failure.status === 401) throw error;
		});
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
 * `notResumed`: why On a Refused Row → Skip could not upload the rest (the reason's ids do not fit the file).
 */
export function unsuccessfulUpload(
	ctx: IExecuteFunctions,
	json: IDataObject,
	itemIndex: number,
	sentAsIs = false,
	notResumed?: string,
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
		if (notResumed) description += ` The rest was not uploaded again: ${notResumed}.`;
	}
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: `${description} ${hint}`,
	});
}
