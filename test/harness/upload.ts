import { randomUUID } from 'node:crypto';

import { webhookNode, type Json } from './client';
import { context, n8n } from './context';

/**
 * A Data Upload run in real n8n: Webhook → Split Out rows → Convert to File (CSV) → AML, or Read/Write Files from
 * Disk → AML for a file on disk. The CSV binary is made by n8n itself. Used by the e2e and queue suites.
 */
export type Source = { rows: Json[]; csvOptions?: Json } | { filePath: string };
export interface UploadRun {
	status: string;
	executionId: string;
	output: Json[];
	/** Items of every output of the AML node (with "Continue (using error output)" the last one is n8n's error output). */
	outputs: Json[][];
	error?: Json;
	binaryFields: string[];
}

function sourceNodes(source: Source): Json[] {
	if ('filePath' in source) {
		return [
			{
				id: randomUUID(),
				name: 'Source',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [300, 0],
				parameters: { operation: 'read', fileSelector: source.filePath, options: {} },
			},
		];
	}
	return [
		{
			id: randomUUID(),
			name: 'Rows',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [200, 0],
			parameters: { fieldToSplitOut: 'body.rows', options: {} },
		},
		{
			id: randomUUID(),
			name: 'Source',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			position: [400, 0],
			parameters: {
				operation: 'csv',
				options: { fileName: 'data.csv', ...(source.csvOptions ?? {}) },
			},
		},
	];
}

export async function upload(
	source: Source,
	parameters: Json,
	opts: {
		continueOnFail?: boolean;
		onError?: 'continueRegularOutput' | 'continueErrorOutput';
	} = {},
): Promise<UploadRun> {
	const client = n8n();
	const webhookPath = `upload-${randomUUID()}`;
	const nodes = sourceNodes(source);
	const first = nodes[0].name;
	const connections: Json = {
		Webhook: { main: [[{ node: first, type: 'main', index: 0 }]] },
		Source: { main: [[{ node: 'AML', type: 'main', index: 0 }]] },
	};
	if (first === 'Rows') connections.Rows = { main: [[{ node: 'Source', type: 'main', index: 0 }]] };
	const workflow = await client.createWorkflow({
		name: `upload ${webhookPath}`,
		nodes: [
			webhookNode(webhookPath, { responseData: 'noData' }),
			...nodes,
			{
				id: randomUUID(),
				name: 'AML',
				type: 'n8n-nodes-aml.aml',
				typeVersion: 1,
				position: [600, 0],
				parameters: { resource: 'dataUpload', operation: 'upload', ...parameters },
				credentials: { amlOAuth2Api: context().credential },
				...(opts.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
				...(opts.onError ? { onError: opts.onError } : {}),
			},
		],
		connections,
	});
	try {
		await client.activate(workflow.id);
		await client.callWebhook(webhookPath, 'rows' in source ? { rows: source.rows } : {});
		const execution = await client.waitForExecution(workflow.id);
		const runData = execution.data.resultData.runData;
		const run = runData.AML?.[0];
		const sourceItem = runData.Source?.[0]?.data?.main?.[0]?.[0];
		return {
			status: execution.status,
			executionId: String(execution.id),
			output: (run?.data?.main?.[0] ?? []).map((item: Json) => item.json),
			outputs: (run?.data?.main ?? []).map((branch: Json[] | null) =>
				(branch ?? []).map((item: Json) => item.json),
			),
			error: run?.error,
			binaryFields: Object.keys(sourceItem?.binary ?? {}),
		};
	} finally {
		await client.deactivate(workflow.id).catch(() => undefined);
		await client.deleteWorkflow(workflow.id);
	}
}
