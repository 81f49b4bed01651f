import axios from 'axios';
import { randomUUID } from 'node:crypto';

import { AML_TRIGGER_VERSION, amlTriggerWorkflow, type CredentialRef, type Json } from './client';
import { context, control, n8n, nodeOutput } from './context';

/**
 * AML Trigger helpers for tests in real n8n: published trigger workflows (public API), sandbox webhook targets
 * (POST /_control/webhooks) and their delivery log, executions read back through n8n's public API.
 */
export const NODE = 'AML Trigger';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Published {
	id: string;
	url: string;
}

export interface Delivery {
	eventId: string;
	action: string;
	url: string;
	attempt: number;
	status: number | null;
	accepted: boolean;
}

/** Undo steps of what the helpers created (workflows, targets); run them with runCleanup() in afterAll. */
export const cleanup: Array<() => Promise<unknown>> = [];

export async function until<T>(
	what: string,
	check: () => Promise<T | undefined | false>,
	ms = 30_000,
): Promise<T> {
	const started = Date.now();
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() - started > ms) throw new Error(`not reached within ${ms} ms: ${what}`);
		await sleep(200);
	}
}

/** Creates and publishes a workflow with only the AML Trigger (fixed webhookId → known production URL); the newest version unless told. */
export async function publish(
	parameters: Json,
	credential?: CredentialRef,
	typeVersion = AML_TRIGGER_VERSION,
): Promise<Published> {
	const webhookId = randomUUID();
	const wf = await n8n().createWorkflow(
		amlTriggerWorkflow(
			`AML Trigger e2e ${webhookId.slice(0, 8)}`,
			webhookId,
			parameters,
			credential,
			typeVersion,
		),
	);
	cleanup.push(() => n8n().deleteWorkflow(wf.id));
	await n8n().activate(wf.id);
	const url = `${context().n8n.baseUrl}/webhook/${webhookId}/aml`;
	await registered(url);
	return { id: wf.id, url };
}

/** Waits until n8n serves the URL. The probe `{}` is not an event (400) or fails verification (401): it starts nothing. */
export async function registered(url: string): Promise<void> {
	await until(
		`webhook ${url} registered`,
		async () => (await axios.post(url, {}, { validateStatus: () => true })).status !== 404,
	);
}

/** Adds a sandbox webhook target; removed after the file. */
export async function target(url: string, extra: Json = {}): Promise<string> {
	const t = await control.post<{ id: string }>('/webhooks', { url, ...extra });
	cleanup.push(() => control.del(`/webhooks/${t.id}`).catch(() => undefined));
	return t.id;
}

export async function deliveries(url: string): Promise<Delivery[]> {
	return (await control.get<Delivery[]>('/webhooks/deliveries')).filter((d) => d.url === url);
}

/** Trigger output (one item per execution) of every finished execution of a workflow (all pages), oldest first. */
export async function runs(workflowId: string): Promise<Json[]> {
	const list: Json[] = [];
	let cursor: string | undefined;
	do {
		const page = await n8n().api.get('/executions', {
			params: { workflowId, limit: 250, includeData: true, ...(cursor ? { cursor } : {}) },
		});
		if (page.status !== 200)
			throw new Error(`list executions: HTTP ${page.status} ${JSON.stringify(page.data)}`);
		list.push(...page.data.data);
		cursor = page.data.nextCursor ?? undefined;
	} while (cursor);
	return list
		.filter((e) => e.finished || e.status === 'success' || e.status === 'error')
		.sort((a, b) => Number(a.id) - Number(b.id))
		.flatMap((e) => {
			const items = nodeOutput(e, NODE);
			// The execution's error, when there is one, is in the failure message.
			const error = e.data?.resultData?.error;
			expect({
				id: e.id,
				status: e.status,
				error: error ? `${error.message ?? ''} ${error.description ?? ''}`.trim() : undefined,
			}).toEqual({ id: e.id, status: 'success', error: undefined });
			// A redelivered copy (the service retries a delivery answered late, e.g. under load) whose key n8n's
			// deduplication store already holds starts an execution that stops at the trigger without output, by design:
			// it ran nothing, so it is not a run of the workflow.
			if (items.length === 0) return [];
			expect(items).toHaveLength(1);
			return [items[0]];
		});
}

/** Waits until the workflow has `count` executions, then a little longer to see that no more arrive. */
export async function settled(workflowId: string, count: number, quietMs = 1500): Promise<Json[]> {
	await until(
		`${count} executions of ${workflowId}`,
		async () => (await runs(workflowId)).length >= count,
	);
	await sleep(quietMs);
	return await runs(workflowId);
}

/** Runs (and forgets) the undo steps, newest first. */
export async function runCleanup(): Promise<void> {
	for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
}
