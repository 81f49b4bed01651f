import type { IDataObject } from 'n8n-workflow';

/** One record the input asks for; `itemIndex` is the input item it came from. */
export interface DesiredRecord {
	id: string;
	attributes: IDataObject;
	itemIndex: number;
}

/** One active record stored in the list. */
export interface CurrentRecord {
	id: string;
	attributes: IDataObject;
}

export type ChangeKind = 'create' | 'update' | 'archive';

export interface PlannedChange {
	id: string;
	change: ChangeKind;
	/** Attributes to write (create, update). */
	attributes?: IDataObject;
	/** Source input item (create, update). */
	itemIndex?: number;
	/** Update: the stored fields it removes a value from (a field gone, or an entry of a list field gone). */
	removes?: string[];
}

export interface SyncPlan {
	creates: PlannedChange[];
	updates: PlannedChange[];
	archives: PlannedChange[];
	unchanged: string[];
	/** Active records in the list before the run. */
	currentCount: number;
}

/**
 * JSON with object keys sorted at every level, so that two values differing only in key order give
 * the same text. Array order is kept (it is part of the value).
 */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value))
		return `[${value.map((entry) => canonicalJson(entry === undefined ? null : entry)).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, entry]) => entry !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

export function sameAttributes(a: unknown, b: unknown): boolean {
	return canonicalJson(a ?? {}) === canonicalJson(b ?? {});
}

/**
 * The records whose ID no other record has, and each record whose ID appears more than once with the item indexes of
 * its other rows (in input order).
 */
export function splitDuplicates(records: DesiredRecord[]): {
	unique: DesiredRecord[];
	duplicates: Array<{ record: DesiredRecord; others: number[] }>;
} {
	const rows = new Map<string, DesiredRecord[]>();
	for (const record of records) rows.set(record.id, [...(rows.get(record.id) ?? []), record]);
	const unique: DesiredRecord[] = [];
	const duplicates: Array<{ record: DesiredRecord; others: number[] }> = [];
	for (const record of records) {
		const same = rows.get(record.id) ?? [];
		if (same.length <= 1) unique.push(record);
		else
			duplicates.push({
				record,
				others: same.filter((row) => row !== record).map((row) => row.itemIndex),
			});
	}
	return { unique, duplicates };
}

/**
 * What a row leaves empty: `keep` keeps the list's value of that field (a row's empty cell never removes a screened
 * value), `remove` stores the row as it is (the field is removed from the record).
 */
export type EmptyValues = 'keep' | 'remove';

/** The record to store for a row: under `keep`, the stored fields the row has no value for are kept. */
export function wantedAttributes(
	row: IDataObject,
	stored: IDataObject,
	emptyValues: EmptyValues,
): IDataObject {
	return emptyValues === 'keep' ? { ...stored, ...row } : row;
}

/**
 * The stored fields an update from `before` to `after` removes a value from: a field no longer there, or a list
 * field that loses an entry (an account number taken off a record). A changed single value is an update, not this.
 */
export function removedFields(before: IDataObject, after: IDataObject): string[] {
	const removed: string[] = [];
	for (const [field, old] of Object.entries(before)) {
		const now = after[field];
		if (now === undefined || now === null) removed.push(field);
		else if (Array.isArray(old)) {
			const kept = new Set((Array.isArray(now) ? now : [now]).map((entry) => canonicalJson(entry)));
			if (old.some((entry) => !kept.has(canonicalJson(entry)))) removed.push(field);
		}
	}
	return removed;
}

/**
 * The fields some stored record holds a value for that no input row gives a value for (the export lacks the column,
 * or leaves it empty in every row), each with how many records hold it. Nothing when the input is empty (the archive
 * guard decides then).
 */
export function fieldsMissingFromInput(
	desired: DesiredRecord[],
	current: CurrentRecord[],
): Array<{ field: string; records: number }> {
	if (desired.length === 0) return [];
	const given = new Set(desired.flatMap((record) => Object.keys(record.attributes)));
	const held = new Map<string, number>();
	for (const record of current)
		for (const [field, value] of Object.entries(record.attributes))
			if (!given.has(field) && value !== undefined && value !== null && value !== '')
				held.set(field, (held.get(field) ?? 0) + 1);
	return [...held].map(([field, records]) => ({ field, records }));
}

/**
 * The difference between what the input asks for and what the list holds: IDs only in the input are
 * created, IDs in both with different attributes are updated, IDs only in the list are archived (when
 * `archiveMissing`), everything else is left alone. Planned in input order, archives in list order.
 */
export function planSync(
	desired: DesiredRecord[],
	current: CurrentRecord[],
	archiveMissing: boolean,
	emptyValues: EmptyValues = 'remove',
): SyncPlan {
	const stored = new Map(current.map((record) => [record.id, record]));
	const wanted = new Set(desired.map((record) => record.id));
	const plan: SyncPlan = {
		creates: [],
		updates: [],
		archives: [],
		unchanged: [],
		currentCount: stored.size,
	};
	for (const record of desired) {
		const existing = stored.get(record.id);
		if (!existing) {
			plan.creates.push({
				id: record.id,
				change: 'create',
				attributes: record.attributes,
				itemIndex: record.itemIndex,
			});
		} else {
			const attributes = wantedAttributes(record.attributes, existing.attributes, emptyValues);
			if (sameAttributes(attributes, existing.attributes)) {
				plan.unchanged.push(record.id);
				continue;
			}
			const removes = removedFields(existing.attributes, attributes);
			plan.updates.push({
				id: record.id,
				change: 'update',
				attributes,
				itemIndex: record.itemIndex,
				...(removes.length > 0 ? { removes } : {}),
			});
		}
	}
	if (archiveMissing) {
		for (const id of stored.keys()) {
			if (!wanted.has(id)) plan.archives.push({ id, change: 'archive' });
		}
	}
	return plan;
}

/** Share of the list's active records the plan would archive, in percent (0 for an empty list). */
export function archiveSharePercent(plan: SyncPlan): number {
	if (plan.currentCount === 0) return 0;
	return (plan.archives.length / plan.currentCount) * 100;
}

/** Whether the guard refuses the plan: it archives more than `maxPercent` of the list. */
export function exceedsArchiveGuard(plan: SyncPlan, maxPercent: number): boolean {
	return plan.archives.length > 0 && archiveSharePercent(plan) > maxPercent;
}
