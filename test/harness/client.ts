import type { AxiosInstance } from 'axios';
import axios from 'axios';
import { createHash, randomUUID } from 'node:crypto';

import { AmlOAuth2Api } from '../../credentials/AmlOAuth2Api.credentials';
import { AmlWebhookApi } from '../../credentials/AmlWebhookApi.credentials';

export type Json = Record<string, any>;

/** This package's credential fields and their defaults (what the editor fills in for a field the caller leaves out). */
const declaredFields = new Map(
	[new AmlOAuth2Api(), new AmlWebhookApi()].map((c) => [c.name, c.properties]),
);
function declaredDefault(type: string, field: string): unknown {
	return declaredFields.get(type)?.find((p) => p.name === field)?.default;
}
export type CredentialRef = { id: string; name: string };

export interface NodeSpec {
	type?: string;
	typeVersion?: number;
	parameters: Json;
	/** Credential type → { id, name } (defaults to the ones passed to runNode). */
	credentials?: Record<string, CredentialRef>;
	/** Node setting "On Error: Continue" (regular output). */
	continueOnFail?: boolean;
	/** Node setting "On Error: Continue (using error output)". */
	continueErrorOutput?: boolean;
	/** Other node settings (retryOnFail, maxTries, …) merged into the node. */
	settings?: Json;
	name?: string;
}

export interface RunOptions {
	credentials?: Record<string, CredentialRef>;
	/** More nodes after the node under test: each is a full n8n node JSON (name, type, typeVersion, parameters…). */
	extraNodes?: Json[];
	/** Connections of the extra nodes, in n8n's format ({ [from]: { main: [[{ node, type, index }]] } }). */
	extraConnections?: Json;
	/** Keep the workflow for later runs of the same spec (default true); false deletes it after the run. */
	reuse?: boolean;
	/** Milliseconds to wait for the execution (default 10 min). */
	timeoutMs?: number;
	/** Extra workflow settings. */
	workflowSettings?: Json;
	/**
	 * The execution is to be cancelled (the workflow's Timeout Workflow setting): n8n's webhook then answers "There was
	 * a problem executing the workflow", which is not taken for n8n refusing to run it.
	 */
	cancelled?: boolean;
}

export interface RunResult {
	status: string;
	execution: Json;
	executionId: string;
	workflowId: string;
	/** Items per output branch of the node under test (json only). */
	outputs: Json[][];
	/** The node's error, when it failed. */
	error?: { message: string; description?: string; [k: string]: unknown };
	hints: Json[];
	/** HTTP answer of the webhook that started the run. */
	httpStatus: number;
	ms: number;
}

/**
 * Execution data as n8n stores it is "flatted" (https://github.com/WebReflection/flatted): a JSON array whose
 * first entry is the root and where every string is an index into the array. The public API usually answers
 * with parsed objects; this accepts either.
 */
export function unflatten(value: unknown): any {
	if (typeof value !== 'string') return value;
	const input = JSON.parse(value);
	if (!Array.isArray(input)) return input;
	const seen = new Set<object>();
	const revive = (target: any): any => {
		if (seen.has(target)) return target;
		seen.add(target);
		for (const key of Object.keys(target)) {
			const v = target[key];
			if (typeof v === 'string') {
				const resolved = input[Number(v)];
				target[key] =
					resolved !== null && typeof resolved === 'object' ? revive(resolved) : resolved;
			}
		}
		return target;
	};
	const root = input[0];
	return root !== null && typeof root === 'object' ? revive(root) : root;
}

function runDataOf(execution: Json): Json {
	const data = unflatten(execution?.data);
	return data?.resultData?.runData ?? {};
}

/** The last run of a node (a node runs more than once in loops). */
function lastRun(execution: Json, nodeName: string, runIndex?: number): Json | undefined {
	const runs = runDataOf(execution)[nodeName] as Json[] | undefined;
	if (!runs?.length) return undefined;
	return runs[runIndex ?? runs.length - 1];
}

/** json items of one output branch of one node of an execution. */
export function nodeOutput(
	execution: Json,
	nodeName: string,
	outputIndex = 0,
	runIndex?: number,
): Json[] {
	return (lastRun(execution, nodeName, runIndex)?.data?.main?.[outputIndex] ?? []).map(
		(item: Json) => item.json,
	);
}

/** json items of every output branch of one node. */
export function nodeOutputs(execution: Json, nodeName: string, runIndex?: number): Json[][] {
	return (lastRun(execution, nodeName, runIndex)?.data?.main ?? []).map((branch: Json[] | null) =>
		(branch ?? []).map((item) => item.json),
	);
}

/** Full items (json, binary, pairedItem, error) of one output branch. */
export function nodeItems(
	execution: Json,
	nodeName: string,
	outputIndex = 0,
	runIndex?: number,
): Json[] {
	return lastRun(execution, nodeName, runIndex)?.data?.main?.[outputIndex] ?? [];
}

export function nodeError(execution: Json, nodeName: string, runIndex?: number): Json | undefined {
	return lastRun(execution, nodeName, runIndex)?.error;
}

/** The execution's error (workflow level), if any. */
export function executionError(execution: Json): Json | undefined {
	return unflatten(execution?.data)?.resultData?.error;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** n8n's answer while its database health ping is late (a loaded machine): nothing was done, repeat later. */
export function dbNotReady(response: { status: number; data: unknown }): boolean {
	return response.status === 503 && /Database is not ready/.test(JSON.stringify(response.data));
}

/** The AML OAuth2 credential's data for a sandbox (its URLs and client), as users fill it in. */
/**
 * n8n's Webhook node (POST on `path`), the start of the workflows the tests and the bench publish. By default it
 * answers when the workflow is done, with the last node's first item (`responseMode: 'lastNode'`).
 */
export function webhookNode(
	path: string,
	opts: { name?: string; responseMode?: string; responseData?: string; position?: number[] } = {},
): Json {
	return {
		id: randomUUID(),
		name: opts.name ?? 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: opts.position ?? [0, 0],
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: opts.responseMode ?? 'lastNode',
			...(opts.responseData ? { responseData: opts.responseData } : {}),
			options: {},
		},
	};
}

/** AML node parameters: Person → Create, keyed by the item's `id`, every other input field an attribute. */
export const PERSON_CREATE_FROM_INPUT: Json = {
	resource: 'person',
	operation: 'create',
	personId: '={{ $json.id }}',
	attributesMode: 'input',
	excludeInputFields: 'id',
};

/** The AML Trigger's version (its only one). */
export const AML_TRIGGER_VERSION = 1.1;

/** A workflow with only the AML Trigger on `webhookId` (its production URL: /webhook/<webhookId>/aml). */
export function amlTriggerWorkflow(
	name: string,
	webhookId: string,
	parameters: Json,
	credential?: CredentialRef,
	typeVersion = AML_TRIGGER_VERSION,
): Json {
	return {
		name,
		nodes: [
			{
				id: randomUUID(),
				name: 'AML Trigger',
				type: 'n8n-nodes-aml.amlTrigger',
				typeVersion,
				position: [0, 0],
				webhookId,
				parameters,
				...(credential ? { credentials: { amlWebhookApi: credential } } : {}),
			},
		],
		connections: {},
	};
}

/** n8n's Split Out node making one item of each entry of the request body's `items`. */
export function bodyItemsNode(position = [220, 0]): Json {
	return {
		id: randomUUID(),
		name: 'Items',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position,
		parameters: { fieldToSplitOut: 'body.items', include: 'noOtherFields', options: {} },
	};
}

/** The Gate Signing Keys of every sandbox credential the tests, the bench and the demo create. */
export const SANDBOX_GATE_KEY = 'sandbox-1=sandbox gate key, not for a live account';

export function sandboxCredentialData(
	sb: { baseUrl: string; tokenUrl: string; clientId: string; clientSecret: string },
	overrides: Json = {},
): Json {
	return {
		baseUrl: sb.baseUrl,
		apiPathPrefix: '/api',
		accessTokenUrl: sb.tokenUrl,
		clientId: sb.clientId,
		clientSecret: sb.clientSecret,
		scope: 'aml',
		gateSigningSecrets: SANDBOX_GATE_KEY,
		...overrides,
	};
}

/** A small API over n8n's public REST API (`/api/v1`) for tests and the demo. */
export class N8nClient {
	readonly api: AxiosInstance;
	/**
	 * Where production webhooks are called (default: baseUrl). In queue mode, n8n's webhook processes: calls go to
	 * them in turn.
	 */
	webhookBaseUrls: string[] = [];

	private webhookTurn = 0;

	/** Workflows built by runNode, by spec hash, reused across runs of this client. */
	private readonly runners = new Map<string, { id: string; path: string; nodeName: string }>();

	constructor(
		readonly baseUrl: string,
		apiKey: string,
	) {
		this.api = axios.create({
			baseURL: `${baseUrl}/api/v1`,
			headers: { 'X-N8N-API-KEY': apiKey },
			validateStatus: () => true,
			timeout: 120_000,
		});
		// n8n answers 503 "Database is not ready!" while a health ping of its database is late: wait and repeat.
		this.api.interceptors.response.use(async (response) => {
			const config = response.config as typeof response.config & { dbRetries?: number };
			if (!dbNotReady(response) || (config.dbRetries ?? 0) >= 60) return response;
			config.dbRetries = (config.dbRetries ?? 0) + 1;
			await sleep(1000);
			return await this.api.request(config);
		});
	}

	private ok<T = any>(response: { status: number; data: T }, what: string): T {
		if (response.status >= 300)
			throw new Error(`${what} failed: HTTP ${response.status} ${JSON.stringify(response.data)}`);
		return response.data;
	}

	/** What each credential this client made was made with (for the REST credential test of n8n 1.x). */
	readonly madeCredentials = new Map<string, { type: string; data: Json }>();

	async createCredential(name: string, type: string, data: Json): Promise<CredentialRef> {
		let response = await this.api.post('/credentials', { name, type, data });
		// n8n 1.x's public API checks the data against a schema that requires some of the generic OAuth2 credential's
		// conditional fields (which the editor fills with their defaults): send those defaults and try once more.
		const required = [
			...String(response.data?.message ?? '').matchAll(/requires property \\?"(\w+)\\?"/g),
		].map((m) => m[1]);
		if (response.status === 400 && required.length) {
			const defaults: Json = {};
			for (const field of required)
				if (!(field in data))
					defaults[field] = declaredDefault(type, field) ?? (field.startsWith('send') ? false : '');
			response = await this.api.post('/credentials', {
				name,
				type,
				data: { ...defaults, ...data },
			});
		}
		if (
			response.status === 400 &&
			this.restFallback &&
			/request\.body\.data/.test(String(response.data?.message))
		) {
			// n8n 1.x's public API cannot express some credentials' conditional fields in its schema (a field shown
			// for one method only): the editor's REST call stores them as the editor would.
			const { rest } = await this.restFallback('');
			const stored = await rest.post('/credentials', { name, type, data });
			if (stored.status === 200) response = { ...stored, data: stored.data.data ?? stored.data };
		}
		const created = this.ok(response, `create credential ${type}`);
		this.madeCredentials.set(String(created.id), { type, data });
		return { id: created.id, name: created.name };
	}

	/** Replaces a credential's data (the public API merges nothing: send every field). */
	async updateCredential(id: string, data: Json, name?: string): Promise<CredentialRef> {
		const updated = this.ok(
			await this.api.patch(`/credentials/${id}`, { ...(name ? { name } : {}), data }),
			'update credential',
		);
		return { id: updated.id ?? id, name: updated.name ?? name ?? '' };
	}

	async getCredential(id: string): Promise<Json> {
		const response = await this.api.get(`/credentials/${id}`);
		if (response.status === 405 && this.restFallback) {
			// n8n 1.x has no public route to read one credential: the editor's REST call (it hands no secrets back either)
			const { rest } = await this.restFallback('');
			return this.ok(await rest.get(`/credentials/${id}`), 'get credential (REST)').data;
		}
		return this.ok(response, 'get credential');
	}

	/** n8n's credential test (the credential type's `test` request), as the editor's "Retry"/save does. */
	async testCredential(id: string): Promise<{ status: string; message?: string }> {
		const response = await this.api.post(`/credentials/${id}/test`, {});
		if (response.status === 404 && this.restFallback) {
			// n8n 1.x has no public route for it: the editor's REST call, with the data the credential was made with
			// (n8n puts the stored secrets back in).
			const { rest, data } = await this.restFallback(id);
			const tested = await rest.post('/credentials/test', {
				credentials: { id, name: 'test', type: data.type, data: data.data },
			});
			return this.ok(tested, 'test credential (REST)').data;
		}
		return this.ok(response, 'test credential');
	}

	/** For n8n versions without the public credential-test route: an owner session and the credential's data. */
	restFallback?: (
		id: string,
	) => Promise<{ rest: AxiosInstance; data: { type: string; data: Json } }>;

	async deleteCredential(id: string): Promise<void> {
		await this.api.delete(`/credentials/${id}`);
	}

	async createWorkflow(workflow: Json): Promise<Json> {
		const { name, nodes, connections, settings } = workflow;
		// the public API accepts only these fields (plus staticData); drop the rest of an exported workflow
		const body: Json = {
			name: name ?? 'workflow',
			nodes: nodes ?? [],
			connections: connections ?? {},
			settings: {
				executionOrder: 'v1',
				saveDataSuccessExecution: 'all',
				saveDataErrorExecution: 'all',
				saveManualExecutions: true,
				...(settings ?? {}),
			},
		};
		if (workflow.staticData) body.staticData = workflow.staticData;
		return this.ok(await this.api.post('/workflows', body), 'create workflow');
	}

	async getWorkflow(id: string): Promise<Json> {
		return this.ok(await this.api.get(`/workflows/${id}`), 'get workflow');
	}

	async listWorkflows(): Promise<Json[]> {
		return this.ok(await this.api.get('/workflows', { params: { limit: 250 } }), 'list workflows')
			.data;
	}

	/** Publishes (activates) a workflow; with N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false its webhooks answer at once. */
	async activate(id: string): Promise<void> {
		this.ok(await this.api.post(`/workflows/${id}/activate`, {}), 'activate workflow');
	}

	async deactivate(id: string): Promise<void> {
		this.ok(await this.api.post(`/workflows/${id}/deactivate`, {}), 'deactivate workflow');
	}

	async deleteWorkflow(id: string): Promise<void> {
		const response = await this.api.delete(`/workflows/${id}`);
		if (response.status >= 300 && response.status !== 404) this.ok(response, 'delete workflow');
	}

	/** Executions of a workflow, newest first (finished ones; `status: 'running'` lists running ones). */
	async listExecutions(
		workflowId: string,
		opts: { limit?: number; includeData?: boolean; status?: string } = {},
	): Promise<Json[]> {
		const params: Json = {
			workflowId,
			limit: opts.limit ?? 20,
			includeData: opts.includeData ?? false,
		};
		if (opts.status) params.status = opts.status;
		return this.ok(await this.api.get('/executions', { params }), 'list executions').data;
	}

	async getExecution(id: string, includeData = true): Promise<Json> {
		let response = await this.api.get(`/executions/${id}`, {
			params: { includeData, ignoreDataSizeLimit: true },
		});
		// n8n 1.x knows no size limit on execution data (and no parameter for it)
		if (response.status === 400 && /ignoreDataSizeLimit/.test(String(response.data?.message))) {
			response = await this.api.get(`/executions/${id}`, { params: { includeData } });
		}
		const execution = this.ok(response, 'get execution');
		if (execution.data) execution.data = unflatten(execution.data);
		return execution;
	}

	/** Kept for older callers: getExecution with data. */
	async execution(id: string): Promise<Json> {
		return await this.getExecution(id, true);
	}

	async executions(workflowId: string, limit = 50): Promise<Json[]> {
		return await this.listExecutions(workflowId, { limit, includeData: true });
	}

	static nodeOutput = nodeOutput;
	static nodeOutputs = nodeOutputs;
	static nodeError = nodeError;

	/**
	 * Calls a production webhook, retrying while n8n still answers 404 "not registered" (briefly after
	 * activation). Returns the HTTP answer.
	 */
	async callWebhook(
		path: string,
		body: unknown,
		opts: { method?: string; headers?: Json; timeoutMs?: number } = {},
	): Promise<{ status: number; data: any; headers: Json }> {
		const started = Date.now();
		const base = this.webhookBaseUrls.length
			? this.webhookBaseUrls[this.webhookTurn++ % this.webhookBaseUrls.length]
			: this.baseUrl;
		for (;;) {
			const response = await axios.request({
				method: opts.method ?? 'POST',
				url: `${base}/webhook/${path}`,
				data: body,
				headers: opts.headers,
				validateStatus: () => true,
				timeout: opts.timeoutMs ?? 600_000,
				maxContentLength: Infinity,
				maxBodyLength: Infinity,
			});
			const notRegistered =
				response.status === 404 && /not registered/.test(JSON.stringify(response.data));
			if (dbNotReady(response) && Date.now() - started < 60_000) {
				await sleep(1000);
				continue;
			}
			if (!notRegistered || Date.now() - started > 20_000)
				return { status: response.status, data: response.data, headers: response.headers as Json };
			await sleep(100);
		}
	}

	/** Waits for the execution of `workflowId` (newer than `afterId`) whose Webhook body carries `marker`. */
	async waitForExecution(
		workflowId: string,
		opts: { marker?: string; afterId?: number; timeoutMs?: number } | number = {},
	): Promise<Json> {
		const o = typeof opts === 'number' ? { timeoutMs: opts } : opts;
		const timeoutMs = o.timeoutMs ?? 600_000;
		const started = Date.now();
		const checked = new Set<string>();
		let delay = 50;
		while (Date.now() - started < timeoutMs) {
			const list = await this.listExecutions(workflowId, { limit: 10 });
			for (const entry of list) {
				if (checked.has(entry.id) || (o.afterId !== undefined && Number(entry.id) <= o.afterId))
					continue;
				if (
					['new', 'running', 'waiting'].includes(entry.status) &&
					entry.finished === false &&
					!entry.stoppedAt
				)
					continue;
				checked.add(entry.id);
				const execution = await this.getExecution(entry.id, true);
				if (!o.marker) return execution;
				const webhook = nodeOutput(execution, 'Webhook')[0];
				if (webhook?.body?.__amlRun === o.marker) return execution;
			}
			await sleep(delay);
			delay = Math.min(delay * 2, 500);
		}
		throw new Error(
			`no finished execution of workflow ${workflowId}${o.marker ? ` with marker ${o.marker}` : ''} within ${timeoutMs} ms`,
		);
	}

	/** The workflow runNode builds: Webhook (POST, answers when done) → Split Out body.items → node under test → extras. */
	runnerWorkflow(node: NodeSpec, opts: RunOptions, path: string): Json {
		const name = node.name ?? 'AML';
		const settings: Json = { ...(node.settings ?? {}) };
		if (node.continueOnFail) settings.onError = 'continueRegularOutput';
		if (node.continueErrorOutput) settings.onError = 'continueErrorOutput';
		const credentials = node.credentials ?? opts.credentials;
		return {
			name: `test ${name} ${path.slice(-8)}`,
			nodes: [
				webhookNode(path, { responseData: 'noData' }),
				bodyItemsNode(),
				{
					id: randomUUID(),
					name,
					type: node.type ?? 'n8n-nodes-aml.aml',
					typeVersion: node.typeVersion ?? 1,
					position: [440, 0],
					parameters: node.parameters,
					...(credentials && Object.keys(credentials).length ? { credentials } : {}),
					...settings,
				},
				...(opts.extraNodes ?? []).map((n, i) => ({
					id: randomUUID(),
					position: [660 + 220 * i, 0],
					typeVersion: 1,
					...n,
				})),
			],
			connections: {
				Webhook: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
				Items: { main: [[{ node: name, type: 'main', index: 0 }]] },
				...(opts.extraConnections ?? {}),
			},
			settings: opts.workflowSettings ?? {},
		};
	}

	/**
	 * Runs one node in real n8n with the given input items: builds (once per distinct spec, then reuses)
	 * `Webhook → Split Out → <node>`, activates it, posts `{ items }`, waits for the execution and returns the
	 * node's outputs per branch and its error. Items must be JSON objects; an empty list runs nothing.
	 */
	async runNode(node: NodeSpec, items: Json[] = [{}], opts: RunOptions = {}): Promise<RunResult> {
		const started = Date.now();
		const name = node.name ?? 'AML';
		const reuse = opts.reuse !== false;
		const key = createHash('sha256')
			.update(
				JSON.stringify({
					node,
					credentials: opts.credentials,
					extraNodes: opts.extraNodes,
					extraConnections: opts.extraConnections,
					ws: opts.workflowSettings,
				}),
			)
			.digest('hex');
		let runner = reuse ? this.runners.get(key) : undefined;
		if (!runner) {
			const path = `aml-test-${randomUUID()}`;
			const workflow = await this.createWorkflow(this.runnerWorkflow(node, opts, path));
			try {
				await this.activate(workflow.id);
			} catch (error) {
				await this.deleteWorkflow(workflow.id).catch(() => undefined);
				throw error;
			}
			runner = { id: workflow.id, path, nodeName: name };
			if (reuse) this.runners.set(key, runner);
		}
		try {
			const marker = randomUUID();
			const response = await this.callWebhook(
				runner.path,
				{ __amlRun: marker, items },
				{ timeoutMs: opts.timeoutMs },
			);
			if (response.status === 404)
				throw new Error(
					`webhook of workflow ${runner.id} not registered: ${JSON.stringify(response.data)}`,
				);
			// n8n 1.x starts no execution for a workflow whose node lacks a required parameter ("The workflow has issues"
			// in its log); its webhook answers "There was a problem executing the workflow"
			if (
				!opts.cancelled &&
				response.status >= 500 &&
				/has issues|cannot be executed|problem executing the workflow/i.test(
					JSON.stringify(response.data),
				)
			)
				throw new Error(
					`n8n refused to run workflow ${runner.id}: ${JSON.stringify(response.data)}`,
				);
			const execution = await this.waitForExecution(runner.id, {
				marker,
				timeoutMs: opts.timeoutMs,
			});
			const run = lastRun(execution, name);
			return {
				status: execution.status,
				execution,
				executionId: String(execution.id),
				workflowId: runner.id,
				outputs: nodeOutputs(execution, name),
				error: run?.error,
				hints: run?.hints ?? [],
				httpStatus: response.status,
				ms: Date.now() - started,
			};
		} finally {
			if (!reuse) await this.deleteWorkflow(runner.id).catch(() => undefined);
		}
	}

	/** Deletes the workflows runNode kept for reuse (call in afterAll). */
	async cleanup(): Promise<void> {
		const ids = [...this.runners.values()].map((r) => r.id);
		this.runners.clear();
		for (const id of ids) {
			await this.deactivate(id).catch(() => undefined);
			await this.deleteWorkflow(id).catch(() => undefined);
		}
	}

	/**
	 * Runs a whole workflow that starts with a Webhook node (POST, path `path`): creates it, activates it,
	 * posts `body`, waits for the execution and deletes the workflow unless `keep`.
	 */
	async runWorkflow(
		workflow: Json,
		body: Json = {},
		opts: { keep?: boolean; timeoutMs?: number } = {},
	): Promise<{ execution: Json; workflowId: string; httpStatus: number; response: any }> {
		const webhook = (workflow.nodes as Json[]).find((n) => n.type === 'n8n-nodes-base.webhook');
		if (!webhook) throw new Error('runWorkflow needs a workflow with a Webhook node');
		const created = await this.createWorkflow(workflow);
		try {
			await this.activate(created.id);
			const before = await this.listExecutions(created.id, { limit: 1 });
			const response = await this.callWebhook(webhook.parameters.path, body, {
				method: webhook.parameters.httpMethod ?? 'GET',
				timeoutMs: opts.timeoutMs,
			});
			const execution = await this.waitForExecution(created.id, {
				afterId: before[0] ? Number(before[0].id) : 0,
				timeoutMs: opts.timeoutMs,
			});
			return {
				execution,
				workflowId: created.id,
				httpStatus: response.status,
				response: response.data,
			};
		} finally {
			if (!opts.keep) {
				await this.deactivate(created.id).catch(() => undefined);
				await this.deleteWorkflow(created.id).catch(() => undefined);
			}
		}
	}
}
