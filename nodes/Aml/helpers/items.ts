import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemValidator } from '../validation';
import { DEFAULT_PARALLEL_REQUESTS } from './descriptions';
import { mapBounded } from '../transport/parallel';
import { errorOutputItem } from '../../shared/n8n/errorOutput';

export type ItemJson = IDataObject | IDataObject[];

export interface ItemOperation<P> {
	/** Reads and validates the item's parameters. Runs for every item before any request is sent. */
	prepare: (itemIndex: number) => P | Promise<P>;
	/** Sends the prepared request(s) and returns the output json. */
	send: (prepared: P, itemIndex: number) => Promise<ItemJson>;
	/** Number of outputs (default 1) and which one a result goes to. */
	outputs?: number;
	route?: (json: IDataObject) => number;
	/** Output that continue-on-fail error items go to (routed checks: Block, fail-closed). */
	errorOutput?: number;
	/**
	 * Fields every failed item carries wherever it is output (checks: `decision: "block"` and the reason), also an item
	 * that failed before any request (`prepared` then undefined).
	 */
	failed?: (error: Error, itemIndex: number, prepared?: P) => IDataObject;
	/** Failed items are output, never thrown, even without Continue On Fail (a check run as an AI tool). */
	answerFailures?: boolean;
	/** Parallel Requests when the option is not set (default 8; uploads of large files use 1). */
	defaultParallel?: number;
	/**
	 * The entity the item writes or checks (its ID): items of one run with the same key are sent one after another, in
	 * input order, never side by side (a payment sent twice in one run is gated twice in turn: the copy sees what the
	 * first did).
	 */
	key?: (prepared: P) => string;
}

type Prepared<P> = { ok: true; value: P } | { ok: false; error: Error };

/**
 * Validates every item, then prepares it (`validate`, then `prepare`), for operations that read all items before
 * sending anything in one plan instead of item by item through `runItems` (Custom List → Sync Records): the first
 * bad item fails the run, before any request.
 */
export async function prepareEveryItem<P>(
	ctx: IExecuteFunctions,
	count: number,
	validate: ItemValidator,
	prepare: ItemOperation<P>['prepare'],
): Promise<P[]> {
	const prepared: P[] = [];
	for (let i = 0; i < count; i++) {
		try {
			validate(i);
			prepared.push(await prepare(i));
		} catch (error) {
			throw asItemError(ctx, error, i);
		}
	}
	return prepared;
}

/** The error as n8n's error of item `itemIndex` (NodeApiError and NodeOperationError keep their own fields). */
export function asItemError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/** Facts an error carries into its item (an upload's ID and status), beside the error's message. */
const itemFacts = new WeakMap<object, IDataObject>();

/** Attaches `facts` to the error: an item that failed with it (Continue On Fail, error output) carries them. */
export function withItemFacts<E extends Error>(error: E, facts: IDataObject): E {
	itemFacts.set(error, { ...(itemFacts.get(error) ?? {}), ...facts });
	return error;
}

export function errorJson(error: Error, itemIndex: number): IDataObject {
	const json: IDataObject = { ...(itemFacts.get(error) ?? {}), error: error.message, itemIndex };
	const description = (error as NodeApiError).description;
	if (description) json.description = description;
	const httpCode = (error as NodeApiError).httpCode;
	if (httpCode) json.httpCode = httpCode;
	return json;
}

/**
 * An operation that plans over all items at once (Sync Records) instead of item by item: with Continue On Fail its
 * failure becomes one error item (paired with every input item; on n8n's error output with "Continue (using error
 * output)") instead of failing the execution, as for every other operation.
 */
export async function runWholeRun(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	run: () => Promise<INodeExecutionData[][]>,
): Promise<INodeExecutionData[][]> {
	try {
		return await run();
	} catch (error) {
		const itemError = asItemError(ctx, error, 0);
		if (!ctx.continueOnFail()) throw itemError;
		const json = errorJson(itemError, 0);
		const pairedItem = items.map((_, item) => ({ item }));
		const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput';
		return [[toErrorOutput ? errorOutputItem(json, itemError, pairedItem) : { json, pairedItem }]];
	}
}

/** The run's Parallel Requests (read once, from item 0), at least 1. */
export function parallelRequests(
	ctx: IExecuteFunctions,
	fallback = DEFAULT_PARALLEL_REQUESTS,
): number {
	return Math.max(
		1,
		Math.floor(ctx.getNodeParameter('options.parallelRequests', 0, fallback) as number),
	);
}

/**
 * The per-item engine of every operation: validates all items first (`validate`, the router's validation of the
 * operation's parameters, then the operation's `prepare`; bad input fails before any request), then sends them with
 * bounded parallelism — the first alone, so that a credential without a token fetches exactly one — and returns the
 * outputs in input order with `pairedItem`.
 */
export async function runItems<P>(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	validate: ItemValidator,
	operation: ItemOperation<P>,
): Promise<INodeExecutionData[][]> {
	const continueOnFail = ctx.continueOnFail();
	// Failed items are output instead of stopping the run.
	const keepGoing = continueOnFail || operation.answerFailures === true;
	const outputCount = operation.outputs ?? 1;

	const prepared: Array<Prepared<P>> = [];
	for (let i = 0; i < items.length; i++) {
		try {
			validate(i);
			prepared.push({ ok: true, value: await operation.prepare(i) });
		} catch (error) {
			const itemError = asItemError(ctx, error, i);
			if (!keepGoing) throw itemError;
			prepared.push({ ok: false, error: itemError });
		}
	}

	const parallel = parallelRequests(ctx, operation.defaultParallel);
	const results: Array<{ json?: ItemJson; error?: Error }> = new Array(items.length);
	let firstFailure: number | undefined;

	const runOne = async (i: number) => {
		const entry = prepared[i];
		if (!entry.ok) {
			results[i] = { error: entry.error };
			return;
		}
		try {
			results[i] = { json: await operation.send(entry.value, i) };
		} catch (error) {
			results[i] = { error: asItemError(ctx, error, i) };
			if (!keepGoing && (firstFailure === undefined || i < firstFailure)) firstFailure = i;
		}
	};

	// Items with the same key in turn: each waits for the one before it (which started earlier, so none waits for a slot).
	const turns = new Map<string, Promise<void>>();
	const runInTurn = async (i: number) => {
		const entry = prepared[i];
		const key = entry.ok ? operation.key?.(entry.value) : undefined;
		if (key === undefined) return await runOne(i);
		const turn = (turns.get(key) ?? Promise.resolve()).then(async () => {
			if (firstFailure === undefined) await runOne(i);
		});
		turns.set(key, turn);
		await turn;
	};

	// Warm-up: the first sendable item alone, so that the token is fetched once and stored.
	let next = 0;
	while (next < items.length && !prepared[next].ok) {
		await runOne(next++);
	}
	if (next < items.length) await runInTurn(next++);

	// The rest `parallel` at a time; unless failed items are output (`keepGoing`), no new item starts after a failure.
	const rest = Array.from({ length: items.length - next }, (_, k) => next + k);
	await mapBounded(rest, parallel, runInTurn, () => firstFailure !== undefined);

	if (firstFailure !== undefined) {
		const error = results[firstFailure].error as NodeApiError;
		const done = results.filter((result) => result?.json !== undefined).length;
		if (done > 0) {
			const note = `${done} other item(s) of this run had already been processed by the service when this item failed; the node stopped sending further items. Set Settings → On Error to "Continue" (or "Continue (using error output)") to process every item and get one error item per failure.`;
			error.description = error.description ? `${error.description}. ${note}` : note;
		}
		throw error;
	}

	const outputs: INodeExecutionData[][] = Array.from({ length: outputCount }, () => []);
	for (let i = 0; i < items.length; i++) {
		const result = results[i];
		if (result.error) {
			const entry = prepared[i];
			const json: IDataObject = {
				...(operation.failed?.(result.error, i, entry.ok ? entry.value : undefined) ?? {}),
				...errorJson(result.error, i),
			};
			// With "On Error: Continue (using error output)" n8n moves the item to its error output (the seam says how it
			// keeps the item's fields there).
			const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput' && continueOnFail;
			const error = result.error as NodeApiError | NodeOperationError;
			outputs[operation.errorOutput ?? 0].push(
				toErrorOutput
					? errorOutputItem(json, error, { item: i })
					: { json, pairedItem: { item: i } },
			);
			continue;
		}
		const list = Array.isArray(result.json) ? result.json : [result.json as IDataObject];
		for (const json of list) {
			const output = operation.route ? operation.route(json) : 0;
			outputs[output].push({ json, pairedItem: { item: i } });
		}
	}
	return outputs;
}
