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
 * The difference between what the input asks for and what the list holds: IDs only in the input are
 * created, IDs in both with different attributes are updated, IDs only in the list are archived (when
 * `archiveMissing`), everything else is left alone. Planned in input order, archives in list order.
 */
export function planSync(
	desired: DesiredRecord[],
	current: CurrentRecord[],
	archiveMissing: boolean,
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
		} else if (!sameAttributes(record.attributes, existing.attributes)) {
			plan.updates.push({
				id: record.id,
				change: 'update',
				attributes: record.attributes,
				itemIndex: record.itemIndex,
			});
		} else {
			plan.unchanged.push(record.id);
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
