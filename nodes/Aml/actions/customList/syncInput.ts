import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asItemError, prepareEveryItem } from '../../helpers/items';
import type { ItemValidator } from '../../validation';
import { readRecordAttributes, readRecordId } from './shared';
import { splitDuplicates, type DesiredRecord } from './syncPlan';

function isEmptyItem(item: INodeExecutionData): boolean {
	return Object.keys(item.json ?? {}).length === 0 && !item.binary;
}

/** One input row the sync left out (Invalid Rows → Sync the Valid Rows): its item index, ID when read, and why. */
export interface InvalidRow extends IDataObject {
	itemIndex: number;
	id: string | null;
	error: string;
}

/** What the input asks for: the valid records, and every row that cannot be synced (all of them, not the first). */
export interface ReadInput {
	desired: DesiredRecord[];
	invalid: InvalidRow[];
	/** The first problem's error (its own message, item index and field), used when there is one problem only. */
	firstError?: Error;
	/** Problems found: one per row refused by a rule, one per ID given twice. */
	problems: number;
}

/** Validates and reads every item before anything is sent; collects every invalid row instead of stopping at the first. */
export async function readDesired(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<ReadInput> {
	// A single empty item is what n8n passes on when the previous node found nothing but has
	// "Always Output Data" on: the source is empty (and the archive guard decides).
	if (items.every(isEmptyItem)) {
		await prepareEveryItem(ctx, items.length, validate, () => undefined);
		return { desired: [], invalid: [], problems: 0 };
	}
	const read: DesiredRecord[] = [];
	const invalid: InvalidRow[] = [];
	let firstError: Error | undefined;
	let problems = 0;
	for (let i = 0; i < items.length; i++) {
		try {
			validate(i);
			read.push({
				id: readRecordId(ctx, i),
				attributes: readRecordAttributes(ctx, i),
				itemIndex: i,
			});
		} catch (error) {
			const itemError = asItemError(ctx, error, i);
			firstError ??= itemError;
			problems++;
			invalid.push({ itemIndex: i, id: rawRecordId(ctx, i), error: itemError.message });
		}
	}
	// Every row of an ID given twice is invalid: it is unclear which attributes the record should get.
	const { unique: desired, duplicates } = splitDuplicates(read);
	const counted = new Set<string>();
	for (const { record, others } of duplicates) {
		invalid.push({
			itemIndex: record.itemIndex,
			id: record.id,
			error: `Item ${record.itemIndex}: the record ID "${record.id}" is also in item(s) ${others.join(', ')}`,
		});
		// One problem per ID; its error names its first two rows (as the second row is reached).
		if (counted.has(record.id) || others[0] > record.itemIndex) continue;
		counted.add(record.id);
		problems++;
		if (!firstError) {
			firstError = new NodeOperationError(
				ctx.getNode(),
				`Items ${others[0]} and ${record.itemIndex} both have the record ID "${record.id}"`,
				{
					itemIndex: record.itemIndex,
					description:
						'Each record may appear only once in the input of a sync, otherwise it is unclear which attributes it should get. Nothing was sent to the AML service. Remove the duplicates (e.g. with a Remove Duplicates node) and run again.',
				},
			);
		}
	}
	invalid.sort((a, b) => a.itemIndex - b.itemIndex);
	return { desired, invalid, firstError, problems };
}

/** The row's Record ID as given (for the report of an invalid row), or null when there is none. */
function rawRecordId(ctx: IExecuteFunctions, itemIndex: number): string | null {
	try {
		const raw = ctx.getNodeParameter('recordId', itemIndex, '') as unknown;
		return typeof raw === 'string' || typeof raw === 'number' ? String(raw) : null;
	} catch {
		return null;
	}
}

/** The error of a run stopped by invalid rows: a single row's own error, or one error listing every row. */
export function invalidRowsError(ctx: IExecuteFunctions, read: ReadInput): Error {
	if (read.problems === 1 && read.firstError) return read.firstError;
	const lines = read.invalid.slice(0, 20).map((row) => row.error);
	if (read.invalid.length > 20) lines.push(`… and ${read.invalid.length - 20} more`);
	return new NodeOperationError(
		ctx.getNode(),
		`${read.invalid.length} input rows cannot be synced, so nothing was sent to the AML service`,
		{
			itemIndex: read.invalid[0].itemIndex,
			description: `${lines.join('; ')}. Fix the rows in the source, or set "Invalid Rows" under Options to "Sync the Valid Rows, Report the Invalid Ones".`,
		},
	);
}
