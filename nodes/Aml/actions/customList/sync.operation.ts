// Longer than ~250 lines: Sync's description (its options are many) and its planning; sending is in syncApply.ts.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { parallelRequests, runWholeRun } from '../../helpers/items';
import { invalidRowsError, readDesired } from './syncInput';
import { optionsCollection } from '../../helpers/descriptions';
import { customListIdLocator, locatorProperty } from '../../helpers/locators';
import { amlApiRequest, PAGE_ANSWER, type Paged, walkPages } from '../../transport';
import {
	customListIdProperty,
	isArchivedRecord,
	readListId,
	recordAttributeProperties,
	recordsPath,
} from './shared';
import {
	archiveSharePercent,
	exceedsArchiveGuard,
	fieldsMissingFromInput,
	planSync,
	type EmptyValues,
	type CurrentRecord,
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
			displayName: 'Empty Cells',
			name: 'emptyValues',
			type: 'options',
			options: [
				{
					name: 'Keep the Value Stored in the List',
					value: 'keep',
					description:
						'A field a row leaves empty keeps the value the record has: a blank cell never takes a name or account number off the list',
				},
				{
					name: 'Remove the Value From the Record',
					value: 'remove',
					description:
						'Each row is the whole record: a field the row leaves empty is removed from it (reported in valuesRemoved)',
				},
			],
			default: 'keep',
			description:
				'What an empty cell means for a record the list already has. Kept by default, since removing a screened value weakens the list: choose Remove only when your source empties a cell on purpose.',
		},
		{
			displayName: 'Allow Fields Missing From the Input',
			name: 'allowMissingFields',
			type: 'boolean',
			default: false,
			description:
				'Whether to sync when no input row gives a value for a field that records of the list hold. Off: such a run stops before any change, since an export that lost a column would otherwise leave that field stale (or, with Empty Cells set to Remove, remove it from every record).',
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

/** The error of a run whose input gives no value for fields the list holds: nothing is changed. */
function missingFieldsError(
	ctx: IExecuteFunctions,
	missing: Array<{ field: string; records: number }>,
): NodeOperationError {
	const named = missing.map(({ field, records }) => `"${field}" (held by ${records} record(s))`);
	return new NodeOperationError(
		ctx.getNode(),
		`Sync stopped: no input row gives a value for ${named.join(', ')}, which the list holds`,
		{
			description:
				'Nothing was changed. The export probably lost that column (or left it empty in every row). Fix the export and run again; if the list keeps that field on purpose outside this source, turn on "Allow Fields Missing From the Input" under Options.',
		},
	);
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

		const emptyValues = itemParameter(this, 'options.emptyValues', 0, 'keep') as EmptyValues;
		const current = await readCurrent(this, customListId, parallel);
		const plan = planSync(desired, current, archiveMissing, emptyValues);
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

		// Checked after the archive guard, whose error tells more of a source that came back broken.
		const missing = (itemParameter(this, 'options.allowMissingFields', 0, false) as boolean)
			? []
			: fieldsMissingFromInput(desired, current);
		if (missing.length > 0 && !dryRun) throw missingFieldsError(this, missing);

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
		if (dryRun && missing.length > 0) {
			summary.wouldBeRefused = true;
			summary.fieldsMissing = missing;
			summary.missingWarning = `A real run would stop: ${missingFieldsError(this, missing).message.replace(/^Sync stopped: /, '')}.`;
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
