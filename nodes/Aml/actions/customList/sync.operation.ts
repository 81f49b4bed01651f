// Longer than ~250 lines: Sync's description (its options are many) and its planning; sending is in syncApply.ts.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { asItemError, parallelRequests, prepareEveryItem, runWholeRun } from '../../helpers/items';
import { optionsCollection } from '../../helpers/descriptions';
import { customListIdLocator, locatorProperty } from '../../helpers/locators';
import { amlApiRequest, PAGE_ANSWER, type Paged, walkPages } from '../../transport';
import {
	customListIdProperty,
	isArchivedRecord,
	readListId,
	readRecordAttributes,
	readRecordId,
	recordAttributeProperties,
	recordsPath,
} from './shared';
import {
	archiveSharePercent,
	exceedsArchiveGuard,
	planSync,
	splitDuplicates,
	type CurrentRecord,
	type DesiredRecord,
	type PlannedChange,
} from './syncPlan';
import {
	applyChanges,
	changeJson,
	MAX_CONSECUTIVE_FAILURES,
	syncSummary,
	type ChangeResult,
} from './syncApply';
import { itemParameter } from '../../helpers/itemParameter';
import type { ItemValidator } from '../../validation';

const properties: INodeProperties[] = [
	{
		displayName:
			'All incoming items together are the wanted content of the list: new IDs are created, changed records are updated, records missing from the input are archived. Unchanged records are not touched. Try it with Dry Run first.',
		name: 'syncNotice',
		type: 'notice',
		default: '',
	},
	locatorProperty(
		{
			...customListIdProperty,
			description: `${customListIdProperty.description} Read from the first item.`,
		},
		customListIdLocator,
	),
	{
		displayName: 'Record ID',
		name: 'recordId',
		type: 'string',
		required: true,
		default: '={{ $json.id }}',
		description:
			'The ID of the record each item stands for, usually an expression that reads the ID column of your source',
	},
	...recordAttributeProperties('input'),
	{
		displayName: 'Records Missing From Input',
		name: 'onMissing',
		type: 'options',
		options: [
			{
				name: 'Archive',
				value: 'archive',
				description:
					'Archive records of the list whose ID is not in the input (the list then equals the input)',
			},
			{
				name: 'Leave Unchanged',
				value: 'leave',
				description: 'Only create and update; never archive anything',
			},
		],
		default: 'archive',
		description: 'What happens to records that are in the list but not in the incoming items',
	},
	optionsCollection([
		{
			displayName: 'Dry Run',
			name: 'dryRun',
			type: 'boolean',
			default: false,
			description:
				'Whether to only report what would change, without changing anything in the list',
		},
		{
			displayName: 'Invalid Rows',
			name: 'invalidRows',
			type: 'options',
			options: [
				{
					name: 'Stop Without Changes',
					value: 'stop',
					description:
						'The sync changes nothing; its error lists every invalid row (item index and reason)',
				},
				{
					name: 'Sync the Valid Rows, Report the Invalid Ones',
					value: 'skip',
					description:
						'Valid rows are created and updated; invalid rows are left out and listed in the summary (invalidRows). Such a run archives nothing, since an invalid row may stand for a record of the list.',
				},
			],
			default: 'stop',
			description:
				'What happens when input rows cannot be synced: a Record ID the service refuses (e.g. with a space), an ID given twice, an attribute that is not valid',
		},
		{
			displayName: 'Max Share to Archive (%)',
			name: 'maxArchivePercent',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100 },
			default: 50,
			description:
				'Safety stop: the node refuses to run (before changing anything) when it would archive more than this share of the records in the list, e.g. because the source came back empty or broken. 100 turns the check off.',
		},
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			options: [
				{
					name: 'Summary',
					value: 'summary',
					description: 'One item with the counts and the IDs per change',
				},
				{
					name: 'Summary and One Item per Change',
					value: 'changes',
					description:
						'The summary item followed by one item for every created, updated or archived record',
				},
			],
			default: 'summary',
			description: 'What the node outputs',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['customList'], operation: ['sync'] } },
	properties,
);

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
interface ReadInput {
	desired: DesiredRecord[];
	invalid: InvalidRow[];
	/** The first problem's error (its own message, item index and field), used when there is one problem only. */
	firstError?: Error;
	/** Problems found: one per row refused by a rule, one per ID given twice. */
	problems: number;
}

/** Validates and reads every item before anything is sent; collects every invalid row instead of stopping at the first. */
async function readDesired(
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
function invalidRowsError(ctx: IExecuteFunctions, read: ReadInput): Error {
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

async function readCurrent(
	ctx: IExecuteFunctions,
	customListId: string,
	parallel: number,
): Promise<CurrentRecord[]> {
	const walk = await walkPages(
		async (page, size) =>
			(await amlApiRequest.call(ctx, {
				method: 'GET',
				answer: PAGE_ANSWER,
				path: recordsPath(customListId),
				qs: { page, size },
			})) as Paged<IDataObject>,
		{ returnAll: true, concurrency: parallel, cap: Infinity },
	);
	const byId = new Map<string, IDataObject>();
	for (const record of walk.items) byId.set(String(record.id), record);
	if (byId.size !== walk.total) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The custom list could not be read consistently, so nothing was changed',
			{
				description: `The service reported ${walk.total} record(s) but paging returned ${byId.size} different one(s). The list was probably changed by someone else while it was read, or the service stops paging early. Run the sync again; if this repeats, check the list in the AML UI.`,
			},
		);
	}
	// Archived records are not part of the list: one listed with an archived flag counts as not listed (an ID in
	// the input is then created again).
	return [...byId.values()]
		.filter((record) => !isArchivedRecord(record))
		.map((record) => ({
			id: String(record.id),
			attributes: (record.attributes ?? {}) as IDataObject,
		}));
}

function percent(value: number): string {
	return `${Math.round(value * 10) / 10}%`;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<INodeExecutionData[][]> {
	// A failure of the run (invalid rows, the list unreadable, the archive guard) is one error item under On Error →
	// Continue, paired with every input item: never one error item per row.
	return await runWholeRun(this, items, async () => {
		// Every item is validated and read before any request (Sync plans over all items instead of running them one by one).
		const read = await readDesired(this, items, validate);
		const skipInvalid =
			(itemParameter(this, 'options.invalidRows', 0, 'stop') as string) === 'skip';
		if (read.invalid.length > 0 && !skipInvalid) throw invalidRowsError(this, read);
		const { desired, invalid } = read;
		const customListId = readListId(this, 0);
		// A run that left rows out archives nothing: an invalid row may stand for a record of the list.
		const archiveMissing =
			(itemParameter(this, 'onMissing', 0, 'archive') as string) === 'archive' &&
			invalid.length === 0;
		const dryRun = itemParameter(this, 'options.dryRun', 0, false) as boolean;
		const maxArchivePercent = itemParameter(this, 'options.maxArchivePercent', 0, 50) as number;
		const outputChanges =
			(itemParameter(this, 'options.output', 0, 'summary') as string) === 'changes';
		const parallel = parallelRequests(this);

		const current = await readCurrent(this, customListId, parallel);
		const plan = planSync(desired, current, archiveMissing);
		const share = archiveSharePercent(plan);
		const refused = exceedsArchiveGuard(plan, maxArchivePercent);

		if (refused && !dryRun) {
			throw new NodeOperationError(
				this.getNode(),
				`Sync stopped: it would archive ${plan.archives.length} of the ${plan.currentCount} records in the list (${percent(share)}), more than the allowed ${maxArchivePercent}%`,
				{
					description:
						`Nothing was changed. This safety stop protects the list when the source comes back empty or incomplete (the input had ${desired.length} record(s)). ` +
						'If the archiving is intended, raise "Max Share to Archive (%)" under Options (100 turns the check off), or set "Records Missing From Input" to "Leave Unchanged". Use the "Dry Run" option to see the plan first.',
				},
			);
		}

		const changes: PlannedChange[] = [...plan.creates, ...plan.updates, ...plan.archives];
		const results: ChangeResult[] = dryRun
			? changes.map(({ id, change, itemIndex }) => ({ id, change, status: 'planned', itemIndex }))
			: await applyChanges(this, customListId, changes, parallel);

		const summary = syncSummary({
			customListId,
			dryRun,
			plan,
			recordsInInput: desired.length,
			results,
		});
		if (skipInvalid) {
			summary.invalid = invalid.length;
			summary.invalidRows = invalid;
			if (
				invalid.length > 0 &&
				(itemParameter(this, 'onMissing', 0, 'archive') as string) === 'archive'
			)
				summary.archiveSkipped = `Nothing was archived: ${invalid.length} input row(s) are invalid and may stand for records of the list.`;
		}
		if (dryRun && refused) {
			summary.wouldBeRefused = true;
			summary.warning = `A real run would stop: it would archive ${percent(share)} of the list, more than the allowed ${maxArchivePercent}% ("Max Share to Archive (%)").`;
		}

		const failures = summary.failures;
		if (failures.length > 0 && !this.continueOnFail()) {
			const lines = failures
				.slice(0, 20)
				.map((failure) => `${failure.operation} "${failure.id}": ${failure.error}`);
			if (failures.length > 20) lines.push(`… and ${failures.length - 20} more`);
			throw new NodeOperationError(
				this.getNode(),
				`Sync finished with ${failures.length} failed change(s): created ${summary.created}, updated ${summary.updated}, archived ${summary.archived}, unchanged ${summary.unchanged}, failed ${failures.length}`,
				{
					description: `Every change not counted as failed was applied (after ${MAX_CONSECUTIVE_FAILURES} failed requests in a row the sync starts no further change and counts the rest as failed, not attempted). Failed: ${lines.join('; ')}. Fix the cause and run the sync again: it only applies what is still different. Set Settings → On Error to "Continue" to get the summary item instead of an error.`,
				},
			);
		}

		const allItems: IPairedItemData[] = items.map((_, index) => ({ item: index }));
		const output: INodeExecutionData[] = [{ json: summary, pairedItem: allItems }];
		if (outputChanges) {
			output.push(
				...results.map((result) => ({
					json: changeJson(customListId, result),
					pairedItem: { item: result.itemIndex ?? 0 },
				})),
			);
		}
		return [output];
	});
}
