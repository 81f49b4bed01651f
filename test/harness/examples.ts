import * as fs from 'node:fs';
import * as path from 'node:path';

import type { CredentialRef, Json, N8nClient } from './client';
import { REPO_ROOT } from './n8n';

export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/**
 * Values for the placeholders example workflows may contain (`__NAME__` anywhere in a string):
 * __SANDBOX_URL__, __SANDBOX_CONTROL_URL__, __N8N_URL__, __SLACK_WEBHOOK_URL__ (the sandbox's Slack stand-in),
 * __AML_CREDENTIAL_ID__, __AML_CREDENTIAL_NAME__, and any
 * other `__X__` given in `extra` (e.g. __SLACK_WEBHOOK_URL__; unknown ones are left as they are).
 */
export interface ExampleValues {
	sandboxUrl: string;
	sandboxControlUrl?: string;
	n8nUrl?: string;
	credential: CredentialRef;
	extra?: Record<string, string>;
}

export function exampleFiles(dir = EXAMPLES_DIR): string[] {
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => path.join(dir, f));
}

/** An example workflow with its placeholders filled and every AML OAuth2 credential pointed at `values.credential`. */
export function prepareExample(file: string, values: ExampleValues): Json {
	const map: Record<string, string> = {
		__SANDBOX_URL__: values.sandboxUrl,
		__SANDBOX_CONTROL_URL__: values.sandboxControlUrl ?? `${values.sandboxUrl}/_control`,
		__N8N_URL__: values.n8nUrl ?? '',
		// the sandbox's Slack stand-in (what it received: GET <control>/slack)
		__SLACK_WEBHOOK_URL__: `${values.sandboxUrl}/_demo/slack`,
		__AML_CREDENTIAL_ID__: values.credential.id,
		__AML_CREDENTIAL_NAME__: values.credential.name,
		...(values.extra ?? {}),
	};
	const fill = (value: unknown): unknown => {
		if (typeof value === 'string') return value.replace(/__[A-Z0-9_]+__/g, (m) => (m in map && map[m] !== '' ? map[m] : m));
		if (Array.isArray(value)) return value.map(fill);
		if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
		return value;
	};
	const workflow = fill(JSON.parse(fs.readFileSync(file, 'utf8'))) as Json;
	for (const node of (workflow.nodes ?? []) as Json[]) {
		if (node.credentials?.amlOAuth2Api) node.credentials.amlOAuth2Api = { ...values.credential };
	}
	return workflow;
}

/**
 * Imports every example (examples/*.json) into n8n; an example whose name already exists is updated in place
 * (PUT), so running the demo again does not duplicate workflows. Returns name → workflow id.
 */
export async function importExamples(client: N8nClient, values: ExampleValues, dir = EXAMPLES_DIR): Promise<Array<{ file: string; name: string; id: string; updated: boolean }>> {
	const existing = await client.listWorkflows();
	const result: Array<{ file: string; name: string; id: string; updated: boolean }> = [];
	for (const file of exampleFiles(dir)) {
		const workflow = prepareExample(file, values);
		const same = existing.find((w) => w.name === workflow.name);
		if (same) {
			const body = { name: workflow.name, nodes: workflow.nodes, connections: workflow.connections, settings: workflow.settings ?? { executionOrder: 'v1' } };
			const response = await client.api.put(`/workflows/${same.id}`, body);
			if (response.status >= 300) throw new Error(`update of ${path.basename(file)} failed: ${response.status} ${JSON.stringify(response.data)}`);
			result.push({ file, name: workflow.name, id: same.id, updated: true });
		} else {
			const created = await client.createWorkflow(workflow);
			result.push({ file, name: workflow.name, id: created.id, updated: false });
		}
	}
	return result;
}
