import * as fs from 'node:fs';
import * as path from 'node:path';

import type { AxiosInstance } from 'axios';

import type { CredentialRef, Json, N8nClient } from './client';
import { REPO_ROOT } from './n8n';

export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/**
 * The example workflows are shipped exactly as a user imports them into n8n: no placeholders. Credentials are
 * referenced by name only (`{ id: null, name }`): n8n selects a credential of that type and name when the user has
 * exactly one, otherwise the node shows the credential to choose. What else a user sets after import (a download URL,
 * a Slack channel) is written in the workflow's sticky notes.
 *
 * Tests and the demo import a file unchanged and then do what the user does after import: choose credentials
 * (`credentials`, by credential type) and, where a sticky note asks for it, set a parameter (`settings`).
 */
export interface ExampleChoices {
	/** Credential type → the credential to choose on every node that uses that type. */
	credentials?: Record<string, CredentialRef>;
	/** Node name → parameter values to set; only nodes a sticky note of the workflow names may be changed. */
	settings?: Record<string, Json>;
	/**
	 * Workflow settings to change (the tests keep every execution, `saveDataSuccessExecution: 'all'`, to read what a
	 * run did; the examples ship what their sticky notes say).
	 */
	workflowSettings?: Json;
}

export function exampleFiles(dir = EXAMPLES_DIR): string[] {
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => path.join(dir, f));
}

/** The file as shipped (a bare file name is looked up in examples/). */
export function readExample(file: string): Json {
	const full = path.isAbsolute(file) ? file : path.join(EXAMPLES_DIR, file);
	return JSON.parse(fs.readFileSync(full, 'utf8')) as Json;
}

/** Text of every sticky note of a workflow. */
export function stickyText(workflow: Json): string {
	return ((workflow.nodes ?? []) as Json[])
		.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
		.map((n) => String(n.parameters?.content ?? ''))
		.join('\n');
}

/**
 * What a user does after import: the chosen credentials on every node of their type, and the settings the sticky
 * notes ask for. Returns a changed copy; throws when a setting names a node that no sticky note tells the user to set
 * (the examples must say what has to be set).
 */
export function applyChoices(workflow: Json, choices: ExampleChoices): Json {
	const copy = JSON.parse(JSON.stringify(workflow)) as Json;
	const notes = stickyText(copy);
	for (const [nodeName, values] of Object.entries(choices.settings ?? {})) {
		const node = (copy.nodes as Json[]).find((n) => n.name === nodeName);
		if (!node) throw new Error(`${copy.name}: no node "${nodeName}"`);
		if (!notes.includes(`**${nodeName}**`))
			throw new Error(`${copy.name}: no sticky note tells the user to set "${nodeName}"`);
		node.parameters = { ...node.parameters, ...values };
	}
	if (choices.workflowSettings) copy.settings = { ...copy.settings, ...choices.workflowSettings };
	for (const node of copy.nodes as Json[]) {
		for (const type of Object.keys(node.credentials ?? {})) {
			const chosen = choices.credentials?.[type];
			if (chosen) node.credentials[type] = { id: chosen.id, name: chosen.name };
		}
	}
	return copy;
}

/** Credential types the example's nodes use (what the user has to choose after import). */
export function credentialTypes(workflow: Json): string[] {
	return [
		...new Set(((workflow.nodes ?? []) as Json[]).flatMap((n) => Object.keys(n.credentials ?? {}))),
	].sort();
}

/**
 * An example with its AML OAuth2 credential chosen (for tests that open or run one example with the test's AML
 * credential). `sandboxUrl` and `extra` are accepted for older callers and unused: the files have no placeholders.
 */
export function prepareExample(
	file: string,
	values: { credential: CredentialRef; sandboxUrl?: string; extra?: Record<string, string> },
): Json {
	return applyChoices(readExample(file), { credentials: { amlOAuth2Api: values.credential } });
}

/**
 * Imports an example as a user does and makes the choices a user makes afterwards: the file is sent to n8n unchanged
 * (n8n keeps the name-only credential references it cannot resolve), then the workflow is saved again with the
 * credentials chosen and the sticky notes' settings set. `existingId` updates that workflow instead (the demo run
 * again). Returns n8n's stored workflow after import (before the choices) and the workflow id.
 */
export async function importExample(
	client: N8nClient,
	file: string,
	choices: ExampleChoices,
	existingId?: string,
): Promise<{ id: string; name: string; imported: Json; workflow: Json }> {
	const shipped = readExample(file);
	const save = async (workflowId: string, workflow: Json, what: string): Promise<Json> => {
		const response = await client.api.put(`/workflows/${workflowId}`, {
			name: workflow.name,
			nodes: workflow.nodes,
			connections: workflow.connections,
			settings: workflow.settings ?? { executionOrder: 'v1' },
		});
		if (response.status >= 300)
			throw new Error(
				`${what} ${path.basename(file)} failed: HTTP ${response.status} ${JSON.stringify(response.data)}`,
			);
		return response.data as Json;
	};
	if (existingId) {
		// An update of a workflow that may be published: n8n refuses to save a published workflow without its
		// credentials, so the file goes in with the choices already made, and credentials chosen in the editor since
		// (Slack, Jira) are kept.
		const before = (await client.getWorkflow(existingId)) as Json;
		const updated = applyChoices(shipped, choices);
		for (const node of updated.nodes as Json[]) {
			const old = ((before.nodes ?? []) as Json[]).find(
				(n) => n.name === node.name && n.type === node.type,
			);
			for (const [type, ref] of Object.entries((node.credentials ?? {}) as Record<string, Json>)) {
				if (ref.id === null && old?.credentials?.[type]?.id)
					node.credentials[type] = old.credentials[type];
			}
		}
		return {
			id: existingId,
			name: shipped.name,
			imported: shipped,
			workflow: await save(existingId, updated, 'update of'),
		};
	}
	const imported = await client.createWorkflow(shipped);
	const id = String(imported.id);
	const workflow = await save(id, applyChoices(imported, choices), 'saving with the choices made');
	return { id, name: shipped.name, imported, workflow };
}

/**
 * The demo's choices for one example: its credentials by type, and the sandbox's copies of the files the scheduled
 * examples download (a user sets their own export's URL there).
 */
export function demoChoices(
	file: string,
	sandboxUrl: string,
	credentials: Record<string, CredentialRef>,
	coreBankingUrl?: string,
): ExampleChoices {
	const settings: Record<string, Json> = {};
	const name = path.basename(file);
	if (name.startsWith('02-')) {
		settings['Download blocklist CSV'] = { url: `${sandboxUrl}/files/blocklist.csv` };
		// the demo sandbox's list (the file ships the Custom List ID empty)
		settings['Sync blocklist'] = {
			customListId: { __rl: true, mode: 'id', value: '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10' },
		};
	}
	if (name.startsWith('04-'))
		settings['Download persons export'] = { url: `${sandboxUrl}/files/persons-nightly.csv` };
	if (name.startsWith('08-') && coreBankingUrl) {
		// the demo's core banking stand-in (test/harness/coreBanking.ts)
		settings['Tell core banking to release'] = { url: `${coreBankingUrl}/payments/release` };
		settings['Tell core banking to reject'] = { url: `${coreBankingUrl}/payments/reject` };
	}
	return { credentials, settings };
}

/**
 * Stores the example's pinned sample data on the imported workflow (n8n's public API drops `pinData`; the editor's
 * REST call keeps it, as Import from File does), so Execute workflow runs the samples at once.
 */
export async function pinSamples(rest: AxiosInstance, id: string, shipped: Json): Promise<void> {
	if (!shipped.pinData) return;
	const current = await rest.get(`/workflows/${id}`);
	if (current.status !== 200) throw new Error(`read workflow ${id}: HTTP ${current.status}`);
	const saved = await rest.patch(`/workflows/${id}`, {
		versionId: current.data.data.versionId,
		pinData: shipped.pinData,
	});
	if (saved.status !== 200)
		throw new Error(
			`pin the samples of ${shipped.name}: HTTP ${saved.status} ${JSON.stringify(saved.data)}`,
		);
}

/**
 * Imports every example (examples/*.json) into n8n as a user does and chooses the given credentials; an example whose
 * name already exists is updated in place, so running the demo again does not duplicate workflows. Credential types
 * without a given credential are left for the user to choose in the editor.
 */
export async function importExamples(
	client: N8nClient,
	values: {
		sandboxUrl: string;
		credentials: Record<string, CredentialRef>;
		coreBankingUrl?: string;
		/** An owner session of n8n's REST API: the examples' pinned samples are stored through it, as Import from File does. */
		rest?: AxiosInstance;
	},
	dir = EXAMPLES_DIR,
): Promise<
	Array<{ file: string; name: string; id: string; updated: boolean; toChoose: string[] }>
> {
	const existing = await client.listWorkflows();
	const result: Array<{
		file: string;
		name: string;
		id: string;
		updated: boolean;
		toChoose: string[];
	}> = [];
	for (const file of exampleFiles(dir)) {
		const same = existing.find((w) => w.name === readExample(file).name);
		const imported = await importExample(
			client,
			file,
			demoChoices(file, values.sandboxUrl, values.credentials, values.coreBankingUrl),
			same?.id,
		);
		if (values.rest) await pinSamples(values.rest, imported.id, readExample(file));
		const toChoose = credentialTypes(imported.workflow).filter((type) =>
			(imported.workflow.nodes as Json[]).some(
				(n) => n.credentials?.[type] && !n.credentials[type].id,
			),
		);
		result.push({ file, name: imported.name, id: imported.id, updated: Boolean(same), toChoose });
	}
	return result;
}
