import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { amlApiRequest } from '../../transport';

export const UPLOAD_TYPES = ['PERSON', 'PERSON_RELATION', 'TRANSACTION', 'TRANSACTION_UPDATE'] as const;
export const FINAL_STATES = ['COMPLETED', 'FAILED', 'PARTIALLY_COMPLETED'];
export const MAX_FILE_BYTES = 100 * 1024 * 1024;

/** Required CSV columns per upload type (decisions.md: CSV layout). */
export const REQUIRED_COLUMNS: Record<string, string[]> = {
	PERSON: ['id', 'type'],
	TRANSACTION: ['id', 'person_id', 'timestamp', 'amount', 'direction'],
	TRANSACTION_UPDATE: ['id', 'person_id'],
	PERSON_RELATION: ['person_id', 'related_person_id', 'relation_type'],
};

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** The header row's problem for this upload type, or undefined. Reads only the first line. */
export function headerProblem(file: Buffer, type: string): string | undefined {
	const end = file.indexOf(0x0a);
	const first = file
		.subarray(0, end === -1 ? Math.min(file.length, 65536) : end)
		.toString('utf8')
		.replace(/^\uFEFF/, '')
		.replace(/\r$/, '');
	const columns = first.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
	if (columns.length < 2 || columns.some((c) => c === '')) return `has no valid comma-separated header row (first line: ${JSON.stringify(first.slice(0, 80))})`;
	const missing = (REQUIRED_COLUMNS[type] ?? []).filter((c) => !columns.includes(c) && !columns.includes(camel(c)) && c !== 'person_id');
	if ((REQUIRED_COLUMNS[type] ?? []).includes('person_id') && !columns.includes('person_id')) missing.unshift('person_id');
	return missing.length ? `misses the required column(s) ${missing.join(', ')} for a ${type} upload` : undefined;
}

/** Picks the ids out of a PARTIALLY_COMPLETED reason when it has the usual wording. */
export function reasonIds(reason: string | null | undefined): IDataObject {
	const text = reason ?? '';
	const id = '([A-Za-z0-9\\-_:.]+)';
	const pick = (pattern: string) => new RegExp(pattern, 'i').exec(text)?.[1];
	const result: IDataObject = {};
	const offending = pick(`with id\\s+${id}`) ?? pick(`offending id:?\\s+${id}`);
	const lastSaved = pick(`last saved id:?\\s+${id}`);
	const firstNotSaved = pick(`first id not saved:?\\s+${id}`);
	if (offending) result.offendingId = offending.replace(/[.:]$/, '');
	if (lastSaved) result.lastSavedId = lastSaved.replace(/[.:]$/, '');
	if (firstNotSaved) result.firstIdNotSaved = firstNotSaved.replace(/[.:]$/, '');
	return result;
}

export function statusJson(uploadId: number, answer: IDataObject): IDataObject {
	const status = String(answer.status ?? '');
	return { uploadId, status, reason: answer.reason ?? null, success: status === 'COMPLETED', ...reasonIds(answer.reason as string) };
}

export async function fetchStatus(ctx: IExecuteFunctions, uploadId: number, itemIndex: number): Promise<IDataObject> {
	const answer = (await amlApiRequest.call(ctx, { method: 'GET', path: `/v1/data-upload/${uploadId}/status` }, itemIndex)) as IDataObject;
	return statusJson(uploadId, answer);
}

/** Polls with growing intervals (1 s → 15 s) until a final state or the wait limit. */
export async function waitForFinalState(ctx: IExecuteFunctions, uploadId: number, maxWaitSeconds: number, itemIndex: number): Promise<IDataObject> {
	const deadline = Date.now() + maxWaitSeconds * 1000;
	let interval = 1000;
	for (;;) {
		const status = await fetchStatus(ctx, uploadId, itemIndex);
		if (FINAL_STATES.includes(String(status.status))) return status;
		if (Date.now() + interval > deadline) return { ...status, success: false, timedOut: true };
		await sleep(interval);
		interval = Math.min(15_000, Math.round(interval * 1.5));
	}
}

/** FAILED, PARTIALLY_COMPLETED and an unfinished wait are never success. */
export function unsuccessfulUpload(ctx: IExecuteFunctions, json: IDataObject, itemIndex: number): NodeOperationError {
	const message = json.timedOut
		? `Upload ${json.uploadId} is still ${json.status || 'processing'} after the wait limit; check later with Data Upload → Get Status (upload id ${json.uploadId})`
		: `Upload ${json.uploadId} ended ${json.status}: ${json.reason ?? 'no reason given'}`;
	const details = ['offendingId', 'lastSavedId', 'firstIdNotSaved'].filter((k) => json[k]).map((k) => `${k}: ${json[k]}`);
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description:
			json.status === 'PARTIALLY_COMPLETED'
				? `Rows up to the last saved batch are stored; rows from the first id not saved on are not. ${details.join(', ')}`
				: json.status === 'FAILED'
					? 'Nothing from this file was stored.'
					: undefined,
	});
}
