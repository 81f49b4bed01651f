import { randomUUID } from 'node:crypto';

import type { Json, NodeSpec, RunOptions, RunResult } from '../harness/client';
import { context, control, n8n, nodeError, nodeOutput, runNode } from '../harness/context';

/**
 * Shared pieces of the faults suite (test/faults): sizes (short in `npm test`, full with AML_FAULTS_FULL=1 or
 * `npm run test:faults`), the request log since a mark, counts printed by every test, and a published
 * Webhook → … workflow that answers with its last node's items (for many executions at once).
 */
export const FULL = process.env.AML_FAULTS_FULL === '1';

/** A size from the environment (`AML_FAULTS_<NAME>`), else the full or the short default. */
export function size(name: string, short: number, full: number): number {
	const raw = process.env[`AML_FAULTS_${name}`];
	const value = raw === undefined || raw === '' ? NaN : Number(raw);
	return Number.isFinite(value) && value > 0 ? value : FULL ? full : short;
}

export type Logged = {
	seq: number;
	method: string;
	path: string;
	status: number | string;
	hasAuth?: boolean;
};

/** Requests to the service's API (`/api`, not the token endpoint or the control API) after `mark`. */
export async function apiRequestsSince(mark: number): Promise<Logged[]> {
	return ((await control.requestsSince(mark)) as Logged[]).filter((r) => r.path.startsWith('/api'));
}

/** Prints a test's counts in one line that is easy to find in CI output: `[faults] <name> {json}`. */
export function report(name: string, counts: Json): void {
	console.log(`[faults] ${name} ${JSON.stringify(counts)}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts equal values: `{value: n}`. */
export function tally(values: Array<string | number | undefined>): Record<string, number> {
	const out: Record<string, number> = {};
	for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
	return out;
}

export interface AnsweringWorkflow {
	id: string;
	path: string;
	/** POSTs `{items}` to the production webhook; answers with every item of the last node (`allEntries`). */
	call(items: Json[], timeoutMs?: number): Promise<{ status: number; data: any }>;
	remove(): Promise<void>;
}

/**
 * Publishes runNode's runner workflow (Webhook → Split Out body.items → node under test), but answering with
 * every item of the last node: unlike runNode, many calls may run at once, each answered by its own execution.
 */
export async function publishAnswering(
	node: NodeSpec,
	opts: RunOptions = {},
): Promise<AnsweringWorkflow> {
	const client = n8n();
	const path = `faults-${randomUUID()}`;
	const definition = client.runnerWorkflow(
		node,
		{ credentials: { amlOAuth2Api: context().credential }, ...opts },
		path,
	);
	definition.nodes[0].parameters.responseData = 'allEntries';
	const workflow = await client.createWorkflow(definition);
	await client.activate(workflow.id);
	return {
		id: workflow.id,
		path,
		call: async (items, timeoutMs = 600_000) =>
			await client.callWebhook(path, { items }, { timeoutMs }),
		remove: async () => {
			await client.deactivate(workflow.id).catch(() => undefined);
			await client.deleteWorkflow(workflow.id).catch(() => undefined);
		},
	};
}

export interface CsvRun {
	run: RunResult;
	/** The AML node's error, its output items. */
	error?: { message: string; description?: string };
	output: Json[];
}

/**
 * Runs the AML node (Data Upload parameters) on a file n8n makes itself: Split Out `items` → Convert to File
 * (text → binary `data`, one file per item from its `csv` field) → AML.
 */
export async function runOnCsv(
	items: Array<{ csv: string }>,
	parameters: Json,
	opts: { fileName?: string; continueOnFail?: boolean; timeoutMs?: number } = {},
): Promise<CsvRun> {
	const source: NodeSpec = {
		name: 'Source',
		type: 'n8n-nodes-base.convertToFile',
		typeVersion: 1.1,
		parameters: {
			operation: 'toText',
			sourceProperty: 'csv',
			options: { fileName: opts.fileName ?? 'data.csv' },
		},
	};
	const aml = {
		name: 'AML',
		type: 'n8n-nodes-aml.aml',
		typeVersion: 1,
		parameters,
		credentials: { amlOAuth2Api: context().credential },
		...(opts.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	};
	const run = await runNode(source, items, {
		extraNodes: [aml],
		extraConnections: { Source: { main: [[{ node: 'AML', type: 'main', index: 0 }]] } },
		timeoutMs: opts.timeoutMs,
	});
	return {
		run,
		error: nodeError(run.execution, 'AML') as CsvRun['error'],
		output: nodeOutput(run.execution, 'AML'),
	};
}
