// Longer than ~250 lines: Sync's description (its options are many) and its planning; sending is in syncApply.ts.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { parallelRequests, prepareEveryItem, runWholeRun } from '../../helpers/items';
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
	findDuplicateId,
	planSync,
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

/** Validates and reads every item before anything is sent. */
async function readDesired(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
): Promise<DesiredRecord[]> {
	// A single empty item is what n8n passes on when the previous node found nothing but has
	// "Always Output Data" on: the source is empty (and the archive guard decides).
	const empty = items.every(isEmptyItem);
	const read = await prepareEveryItem(
		ctx,
		items.length,
		validate,
		(i): DesiredRecord | undefined =>
			empty
				? undefined
				: { id: readRecordId(ctx, i), attributes: readRecordAttributes(ctx, i), itemIndex: i },
	);
	const desired = read.filter((record): record is DesiredRecord => record !== undefined);
	const duplicate = findDuplicateId(desired);
	if (duplicate) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Items ${duplicate.first} and ${duplicate.second} both have the record ID "${duplicate.id}"`,
			{
				itemIndex: duplicate.second,
				description:
					'Each record may appear only once in the input of a sync, otherwise it is unclear which attributes it should get. Nothing was sent to the AML service. Remove the duplicates (e.g. with a Remove Duplicates node) and run again.',
			},
		);
	}
	return desired;
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
	// Every item is validated and read before anything else (Sync plans over all items instead of running them one by one).
	const desired = await readDesired(this, items, validate);
	// Past validation, a failure (the list unreadable, the archive guard) is one error item under Continue On Fail.
	return await runWholeRun(this, items, async () => {
		const customListId = readListId(this, 0);
		const archiveMissing = (itemParameter(this, 'onMissing', 0, 'archive') as string) === 'archive';
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
					description: `Every change not counted as failed was applied (after ${MAX_CONSECUTIVE_FAILURES} failed requests in a row the sync starts no further change and counts the rest as failed, not attempted). Failed: ${lines.join('; ')}. Fix the cause and run the sync again: it only applies what is still different. Turn on "Continue On Fail" (Settings → On Error) to get the summary item instead of an error.`,
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
