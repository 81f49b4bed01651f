import type { AxiosInstance } from 'axios';
import axios from 'axios';
import { randomUUID } from 'node:crypto';

export type Json = Record<string, any>;

export interface NodeSpec {
	type?: string;
	typeVersion?: number;
	parameters: Json;
	/** Credential type → id (defaults to the AML credential of the context). */
	credentials?: Record<string, { id: string; name: string }>;
	continueOnFail?: boolean;
	name?: string;
}

export interface RunResult {
	status: string;
	execution: Json;
	/** Items per output branch of the node under test (json only). */
	outputs: Json[][];
	/** The node's error, when it failed. */
	error?: { message: string; description?: string; [k: string]: unknown };
	hints: Json[];
	/** HTTP answer of the webhook that started the run. */
	httpStatus: number;
}

/** A small API over n8n's public REST API for tests and the demo. */
export class N8nClient {
	readonly api: AxiosInstance;

	constructor(
		readonly baseUrl: string,
		apiKey: string,
	) {
		this.api = axios.create({ baseURL: `${baseUrl}/api/v1`, headers: { 'X-N8N-API-KEY': apiKey }, validateStatus: () => true });
	}

	private ok<T>(response: { status: number; data: T }, what: string): T {
		if (response.status >= 300) throw new Error(`${what} failed: HTTP ${response.status} ${JSON.stringify(response.data)}`);
		return response.data;
	}

	async createCredential(name: string, type: string, data: Json): Promise<{ id: string; name: string }> {
		const created = this.ok(await this.api.post('/credentials', { name, type, data }), 'create credential');
		return { id: created.id, name: created.name };
	}

	async createWorkflow(workflow: Json): Promise<Json> {
		return this.ok(await this.api.post('/workflows', { settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveManualExecutions: true }, ...workflow }), 'create workflow');
	}

	async activate(id: string): Promise<void> {
		this.ok(await this.api.post(`/workflows/${id}/activate`, {}), 'activate workflow');
	}

	async deactivate(id: string): Promise<void> {
		this.ok(await this.api.post(`/workflows/${id}/deactivate`, {}), 'deactivate workflow');
	}

	async deleteWorkflow(id: string): Promise<void> {
		await this.api.delete(`/workflows/${id}`);
	}

	async executions(workflowId: string, limit = 50): Promise<Json[]> {
		return this.ok(await this.api.get('/executions', { params: { workflowId, limit, includeData: true } }), 'list executions').data;
	}

	async execution(id: string): Promise<Json> {
		return this.ok(await this.api.get(`/executions/${id}`, { params: { includeData: true } }), 'get execution');
	}

	/** json items of one output branch of one node of an execution. */
	static nodeOutput(execution: Json, nodeName: string, outputIndex = 0): Json[] {
		const run = execution.data?.resultData?.runData?.[nodeName]?.[0];
		return (run?.data?.main?.[outputIndex] ?? []).map((item: Json) => item.json);
	}

	static nodeOutputs(execution: Json, nodeName: string): Json[][] {
		const run = execution.data?.resultData?.runData?.[nodeName]?.[0];
		return (run?.data?.main ?? []).map((branch: Json[] | null) => (branch ?? []).map((item) => item.json));
	}

	static nodeError(execution: Json, nodeName: string): Json | undefined {
		return execution.data?.resultData?.runData?.[nodeName]?.[0]?.error;
	}

	/**
	 * Builds `Webhook → Split Out → <node under test>`, publishes it, posts the items, waits for the
	 * execution and returns the node's outputs per branch. The workflow is deleted afterwards.
	 */
	async runNode(node: NodeSpec, items: Json[], defaults: { credentials: Record<string, { id: string; name: string }> }): Promise<RunResult> {
		const path = `aml-test-${randomUUID()}`;
		const name = node.name ?? 'AML';
		const workflow = await this.createWorkflow({
			name: `test ${path}`,
			nodes: [
				{ id: randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID(), parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'noData', options: {} } },
				{ id: randomUUID(), name: 'Items', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.items', options: {} } },
				{
					id: randomUUID(),
					name,
					type: node.type ?? 'n8n-nodes-aml.aml',
					typeVersion: node.typeVersion ?? 1,
					position: [400, 0],
					parameters: node.parameters,
					credentials: node.credentials ?? defaults.credentials,
					...(node.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
				},
			],
			connections: {
				Webhook: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
				Items: { main: [[{ node: name, type: 'main', index: 0 }]] },
			},
		});
		try {
			await this.activate(workflow.id);
			const response = await this.callWebhook(path, { items });
			const execution = await this.waitForExecution(workflow.id);
			const run = execution.data?.resultData?.runData?.[name]?.[0];
			return {
				status: execution.status,
				execution,
				outputs: N8nClient.nodeOutputs(execution, name),
				error: run?.error,
				hints: run?.hints ?? [],
				httpStatus: response.status,
			};
		} finally {
			await this.deleteWorkflow(workflow.id);
		}
	}

	/** POSTs to a production webhook; n8n registers it a moment after activation, so 404 is retried briefly. */
	async callWebhook(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; data: unknown }> {
		const started = Date.now();
		for (;;) {
			const response = await axios.post(`${this.baseUrl}/webhook/${path}`, body, { headers, validateStatus: () => true, timeout: 600_000 });
			if (response.status !== 404 || Date.now() - started > 15_000) return response;
			await new Promise((r) => setTimeout(r, 100));
		}
	}

	async waitForExecution(workflowId: string, timeoutMs = 600_000): Promise<Json> {
		const started = Date.now();
		while (Date.now() - started < timeoutMs) {
			const list = await this.executions(workflowId, 1);
			const latest = list[0];
			if (latest && latest.finished !== false && latest.status !== 'running' && latest.status !== 'new') {
				return latest.data ? latest : await this.execution(latest.id);
			}
			if (latest && ['error', 'crashed', 'success', 'canceled'].includes(latest.status)) return await this.execution(latest.id);
			await new Promise((r) => setTimeout(r, 100));
		}
		throw new Error(`no finished execution of workflow ${workflowId} within ${timeoutMs} ms`);
	}
}
