import type { IExecuteFunctions } from 'n8n-workflow';

import {
	inN8nProcess,
	N8N_VERSION,
	n8nCoreContains,
	n8nDeduplicationHelpers,
	withN8n,
} from './n8n';

/**
 * Seam nodes/shared/n8n/deduplication.ts against this n8n's deduplication store (its n8n-core's helper over its n8n's
 * DeduplicationHelper, the table in memory with a round trip per read and write): the trigger's execute context is
 * offered `checkProcessedAndRecord`; the seam records keys and answers the ones recorded before, across processes; and
 * what the store does not do (the trigger promises no more): copies checked at once all pass (no atomic claim), and a
 * write at the same moment as another drops the other's key.
 */
const seam = withN8n(
	() =>
		require('../../nodes/shared/n8n/deduplication') as typeof import('../../nodes/shared/n8n/deduplication'),
);
let helpers: (workflow: object, node: object) => any;

beforeAll(async () => {
	helpers = await n8nDeduplicationHelpers();
});

/** The trigger's execute context, as far as the seam reads it: n8n's deduplication helpers for one trigger node. */
function triggerContext(nodeId: string): IExecuteFunctions {
	return {
		helpers: helpers({ id: 'w1' }, { id: nodeId, name: 'AML Trigger' }),
	} as unknown as IExecuteFunctions;
}

describe(`n8n's deduplication store on n8n ${N8N_VERSION}`, () => {
	test("n8n-core offers it to a node's execute context", () => {
		expect(n8nCoreContains('getDeduplicationHelperFunctions')).toBe(true);
		expect(seam.deduplicationStore(triggerContext('n0'))).toBeInstanceOf(Function);
	});

	test('the seam records keys and answers the ones recorded before, per trigger node', async () => {
		const trigger = triggerContext('n1');
		expect([...(await seam.recordedBefore(trigger, ['k1', 'k2'], 10))]).toEqual([]);
		expect([...(await seam.recordedBefore(trigger, ['k2', 'k3'], 10))]).toEqual(['k2']);
		expect([...(await seam.recordedBefore(triggerContext('n2'), ['k2'], 10))]).toEqual([]);
	});

	test('the newest maxEntries keys are kept', async () => {
		const trigger = triggerContext('n3');
		for (const key of ['a', 'b', 'c', 'd']) await seam.recordedBefore(trigger, [key], 3);
		expect([...(await seam.recordedBefore(trigger, ['a', 'd'], 3))]).toEqual(['d']);
	});

	test('an n8n without the store: nothing is answered, the delivery runs', async () => {
		expect([
			...(await seam.recordedBefore({ helpers: {} } as IExecuteFunctions, ['k'], 10)),
		]).toEqual([]);
	});

	test('a store whose call fails: nothing is answered at once, the delivery runs', async () => {
		const ctx = {
			helpers: {
				checkProcessedAndRecord: async () => {
					throw new Error('connection refused');
				},
			},
		} as unknown as IExecuteFunctions;
		expect([...(await seam.recordedBefore(ctx, ['k'], 10))]).toEqual([]);
	});

	test("a key recorded before a copy asks is found, whichever process asks (n8n's store in its database)", async () => {
		// two contexts of one trigger node stand for two processes reading the same table
		const first = triggerContext('n4');
		const other = triggerContext('n4');
		expect([...(await seam.recordedBefore(first, ['event'], 10))]).toEqual([]);
		expect([...(await seam.recordedBefore(other, ['event'], 10))]).toEqual(['event']);
	});

	// What the trigger promises no more than (README, SECURITY.md): n8n's store reads, changes and writes a record whole.
	// If an n8n makes it atomic, these two fail, and the README may promise more.
	test("no atomic claim in n8n's store: 5 copies of a new key checked at once on a trigger with a record all pass", async () => {
		const store = triggerContext('n5').helpers;
		const check = async (key: string) =>
			(await store.checkProcessedAndRecord([key], 'node', { mode: 'entries', maxEntries: 10 }))
				.processed;
		await check('first');
		const answers = await Promise.all(Array.from({ length: 5 }, async () => await check('copy')));
		expect(answers).toEqual([[], [], [], [], []]);
		expect(await check('copy')).toEqual(['copy']);
	});

	test("two other keys recorded at the same moment: the later write drops the earlier one's key", async () => {
		const trigger = triggerContext('n6');
		await seam.recordedBefore(trigger, ['first'], 10);
		await Promise.all([
			seam.recordedBefore(trigger, ['a'], 10),
			seam.recordedBefore(trigger, ['b'], 10),
		]);
		const found = [...(await seam.recordedBefore(trigger, ['first', 'a', 'b'], 10))].sort();
		expect(found).toHaveLength(2);
		expect(found).toContain('first');
	});
});

/**
 * The execution a delivery starts, as n8n builds and runs it (its webhook helpers' execution data where this n8n
 * exports them, its n8n-core's WorkflowExecute): for a start node whose type has both `webhook` and `execute`, n8n runs
 * `execute` first, given the items `webhook` returned, and the next node gets what `execute` returned. The trigger's
 * duplicate check is that step. Run in n8n's own process (n8n's modules are ES-module heavy).
 */
const EXECUTION_SCRIPT = `
const { Workflow, createRunExecutionData } = require('n8n-workflow');
const { WorkflowExecute, ExecutionLifecycleHooks } = require('n8n-core');
let helpersMod; try { helpersMod = require('n8n/dist/webhooks/webhook-helpers'); } catch (e) { helpersMod = {}; }
const calls = [];
const trigger = {
	description: { name: 'amlTrigger', displayName: 'T', group: ['trigger'], version: 1.1, defaults: {}, inputs: [], outputs: ['main'], properties: [], webhooks: [{ name: 'default', httpMethod: 'POST', path: 'aml' }] },
	async webhook() { calls.push('webhook'); return { workflowData: [[]] }; },
	async execute() { calls.push('execute'); const items = this.getInputData(); return [items.filter((i) => i.json.deliveryKey !== 'seen').map((i) => ({ json: { ...i.json, checked: true } }))]; },
};
const next = {
	description: { name: 'next', displayName: 'N', group: ['transform'], version: 1, defaults: {}, inputs: ['main'], outputs: ['main'], properties: [] },
	async execute() { calls.push('next'); return [this.getInputData()]; },
};
const types = { amlTrigger: trigger, next };
const nodeTypes = { getByName: (t) => types[t.split('.').pop()], getByNameAndVersion: (t) => types[t.split('.').pop()], getKnownTypes: () => ({}) };
const nodes = [
	{ id: 'a', name: 'AML Trigger', type: 'n8n-nodes-aml.amlTrigger', typeVersion: 1.1, position: [0, 0], parameters: {}, webhookId: 'w' },
	{ id: 'b', name: 'Next', type: 'x.next', typeVersion: 1, position: [200, 0], parameters: {} },
];
const connections = { 'AML Trigger': { main: [[{ node: 'Next', type: 'main', index: 0 }]] } };
(async () => {
	const workflowData = { id: 'w1', name: 'c', nodes, connections, active: true, settings: {} };
	const workflow = new Workflow({ ...workflowData, nodeTypes, staticData: {} });
	const start = workflow.getNode('AML Trigger');
	const webhookResultData = { workflowData: [[{ json: { deliveryKey: 'new' } }, { json: { deliveryKey: 'seen' } }]] };
	let runExecutionData;
	if (typeof helpersMod.prepareExecutionData === 'function') {
		runExecutionData = helpersMod.prepareExecutionData('webhook', start, webhookResultData, undefined, {}, undefined, '1', workflowData);
		runExecutionData = runExecutionData.runExecutionData ?? runExecutionData;
	} else {
		const stack = [{ node: start, data: { main: webhookResultData.workflowData }, source: null }];
		runExecutionData = typeof createRunExecutionData === 'function' ? createRunExecutionData({ executionData: { nodeExecutionStack: stack } }) : { startData: {}, resultData: { runData: {} }, executionData: { contextData: {}, nodeExecutionStack: stack, metadata: {}, waitingExecution: {}, waitingExecutionSource: {} } };
	}
	const hooks = new ExecutionLifecycleHooks('webhook', '1', workflowData);
	const additionalData = { hooks, executionId: '1', timezone: 'UTC', variables: {}, restApiUrl: '', instanceBaseUrl: '', webhookBaseUrl: '', webhookWaitingBaseUrl: '', webhookTestBaseUrl: '', formWaitingBaseUrl: '', currentNodeParameters: undefined, executeWorkflow: async () => ({}), setExecutionStatus: () => {}, getRunExecutionData: async () => undefined, logAiEvent: () => {} };
	const run = await new WorkflowExecute(additionalData, 'webhook', runExecutionData).processRunExecutionData(workflow);
	const out = (n) => run.data.resultData.runData[n]?.[0]?.data?.main?.[0]?.map((i) => i.json);
	console.log(JSON.stringify({ calls, trigger: out('AML Trigger'), next: out('Next'), error: run.data.resultData.error?.message, prepared: typeof helpersMod.prepareExecutionData === 'function' }));
	process.exit(0);
})().catch((e) => { console.log(JSON.stringify({ failed: String(e && e.stack) })); process.exit(0); });
`;

describe(`the execution a delivery starts, on n8n ${N8N_VERSION}`, () => {
	let seen: {
		calls?: string[];
		trigger?: unknown[];
		next?: unknown[];
		error?: string;
		failed?: string;
	};
	beforeAll(() => {
		seen = inN8nProcess(EXECUTION_SCRIPT, {});
	});

	test("the start node's execute runs first, with the webhook's items, and the next node gets its output", () => {
		expect(seen.failed).toBeUndefined();
		expect(seen.error).toBeUndefined();
		expect(seen.calls).toEqual(['execute', 'next']);
		expect(seen.trigger).toEqual([{ deliveryKey: 'new', checked: true }]);
		expect(seen.next).toEqual([{ deliveryKey: 'new', checked: true }]);
	});
});
