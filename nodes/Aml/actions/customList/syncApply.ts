import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { mapBounded } from '../../transport/parallel';
import { amlRequest, bodyMessage } from '../../transport';
import { recordsPath, updateRecord, upsertRecord } from './shared';
import type { ChangeKind, PlannedChange, SyncPlan } from './syncPlan';

/** After this many failed writes in a row (and none succeeding in between), no further write is started. */
export const MAX_CONSECUTIVE_FAILURES = 20;

/** What became of one planned change of Custom List → Sync Records. */
export interface ChangeResult {
	id: string;
	change: ChangeKind;
	/** `skipped`: nothing was done, because the service answered that it was already so (an archive of a record gone). */
	status: 'done' | 'failed' | 'planned' | 'skipped';
	itemIndex?: number;
	error?: string;
	note?: string;
	/** Update: the stored fields it removes a value from. */
	removes?: string[];
}

/** Sends one planned change; throws when it failed. */
async function applyChange(
	ctx: IExecuteFunctions,
	customListId: string,
	{ id, change, attributes, itemIndex, removes }: PlannedChange,
): Promise<ChangeResult> {
	const base = { id, change, itemIndex, ...(removes ? { removes } : {}) };
	if (change === 'create') {
		// A record not listed may still exist (added meanwhile): upsert instead of failing on 422.
		const { result, afterLostAnswer } = await upsertRecord(
			ctx,
			customListId,
			id,
			attributes ?? {},
			itemIndex,
		);
		// A repeat that found the record stored cannot tell whether the lost create stored it: counted as the update it
		// then sent, never as created.
		if (afterLostAnswer) {
			return {
				...base,
				change: 'update',
				status: 'done',
				note: 'the create got no answer and its repeat found the record stored (by that create or before it): updated to the values sent',
			};
		}
		if (result === 'updated') {
			return {
				...base,
				change: 'update',
				status: 'done',
				note: 'was not listed when the list was read, but existed: updated',
			};
		}
		return { ...base, status: 'done' };
	}
	if (change === 'update') {
		await updateRecord(ctx, customListId, id, attributes ?? {}, itemIndex);
		return { ...base, status: 'done' };
	}
	const response = await amlRequest.call(ctx, {
		method: 'DELETE',
		path: recordsPath(customListId, id),
		passStatuses: [404, 409],
	});
	if (response.status === 404 || response.status === 409) {
		const said = bodyMessage(response.body) || `HTTP ${response.status}`;
		// Archived or gone, before this run or by an attempt whose answer was lost: never claimed as archived by this run.
		return response.afterLostAnswer
			? {
					...base,
					status: 'skipped',
					note: `the archive got no answer and its repeat found it archived or gone (by that archive or before it): ${said}`,
				}
			: { ...base, status: 'skipped', note: `already archived or gone: ${said}` };
	}
	return { ...base, status: 'done' };
}

/**
 * Sends the planned changes `parallel` at a time. A failed change is a result with its error; after
 * MAX_CONSECUTIVE_FAILURES failures in a row no further change is started and the rest are reported as not attempted.
 */
export async function applyChanges(
	ctx: IExecuteFunctions,
	customListId: string,
	changes: PlannedChange[],
	parallel: number,
): Promise<ChangeResult[]> {
	let consecutiveFailures = 0;
	const failed = ({ id, change, itemIndex }: PlannedChange, error: string): ChangeResult => ({
		id,
		change,
		itemIndex,
		status: 'failed',
		error,
	});
	const applied = await mapBounded(
		changes,
		parallel,
		async (planned) => {
			try {
				const result = await applyChange(ctx, customListId, planned);
				consecutiveFailures = 0;
				return result;
			} catch (error) {
				consecutiveFailures++;
				return failed(planned, (error as Error).message);
			}
		},
		() => consecutiveFailures >= MAX_CONSECUTIVE_FAILURES,
	);
	return applied.map(
		(result, index) =>
			result ??
			failed(
				changes[index],
				`Not attempted: the sync stopped sending after ${MAX_CONSECUTIVE_FAILURES} failed requests in a row`,
			),
	);
}

export interface SyncSummary extends IDataObject {
	created: number;
	updated: number;
	archived: number;
	/**
	 * Planned archives the service answered as already archived or gone (404/409), also on a repeat after a lost answer:
	 * never counted as archived by this run.
	 */
	alreadyArchived: number;
	unchanged: number;
	/** Records whose update removed (or, in a dry run, would remove) a stored value: a field, or an entry of a list field. */
	valuesRemoved: number;
	failures: Array<{ id: string; operation: ChangeKind; error: string }>;
}

/** The summary item of a sync: counts and IDs per kind of change, and every failure. */
export function syncSummary(run: {
	customListId: string;
	dryRun: boolean;
	plan: SyncPlan;
	recordsInInput: number;
	results: ChangeResult[];
}): SyncSummary {
	const { results, plan } = run;
	const pick = (change: ChangeKind) =>
		results
			.filter(
				(result) =>
					result.change === change && (result.status === 'done' || result.status === 'planned'),
			)
			.map((result) => result.id);
	const alreadyArchivedIds = results
		.filter((result) => result.change === 'archive' && result.status === 'skipped')
		.map((result) => result.id);
	const failures = results
		.filter((result) => result.status === 'failed')
		.map(({ id, change, error }) => ({ id, operation: change, error: error ?? 'failed' }));
	const removals = results
		.filter(
			(result) =>
				result.change === 'update' &&
				result.removes &&
				(result.status === 'done' || result.status === 'planned'),
		)
		.map((result) => ({ id: result.id, fields: result.removes ?? [] }));
	const createdIds = pick('create');
	const updatedIds = pick('update');
	const archivedIds = pick('archive');
	return {
		customListId: run.customListId,
		dryRun: run.dryRun,
		created: createdIds.length,
		updated: updatedIds.length,
		archived: archivedIds.length,
		alreadyArchived: alreadyArchivedIds.length,
		unchanged: plan.unchanged.length,
		valuesRemoved: removals.length,
		failed: failures.length,
		recordsInInput: run.recordsInInput,
		recordsInListBefore: plan.currentCount,
		createdIds,
		updatedIds,
		archivedIds,
		alreadyArchivedIds,
		valuesRemovedIds: removals.map((removal) => removal.id),
		removals,
		failures,
	};
}

/** The item of one change (output "Summary and One Item per Change"). */
export function changeJson(customListId: string, result: ChangeResult): IDataObject {
	const json: IDataObject = {
		customListId,
		id: result.id,
		change: result.change,
		status: result.status,
	};
	if (result.error) json.error = result.error;
	if (result.note) json.note = result.note;
	if (result.removes) json.removes = result.removes;
	return json;
}
