import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';

import { openEditor, type EditorSession } from './browser';
import type { Json } from './client';
import { context, n8n } from './context';
import { EXAMPLES_DIR, prepareExample } from './examples';
import { DEFAULT_OWNER, REPO_ROOT } from './n8n';

/**
 * The editor labels the README names (buttons, menu entries, settings), each read from the editor of the running
 * n8n: test/e2e/browser.test.ts on the default n8n, test/compat/editorLabels.test.ts on 1.x. Each entry holds the
 * README's own words (which must stay in README.md) and the label they quote; `only` marks a label of one n8n line,
 * where the README says how the other line names it.
 */
type Place =
	| 'header' // the canvas header and its buttons
	| 'workflowMenu' // the workflow's ⋯ menu
	| 'importMenu' // ⋯ → Import (2.x: a submenu)
	| 'workflowSettings' // ⋯ → Settings
	| 'triggerPanel' // the AML Trigger's panel, its output pane empty
	| 'nodeSettings' // an AML node's panel → Settings tab
	| 'nodeOptions' // an AML node's panel → Options → Add option's list
	| 'onError' // ... → On Error's choices
	| 'communityNodes' // Settings → Community nodes
	| 'credentials'; // Overview → Credentials

export interface ReadmeLabel {
	readme: string;
	label: string;
	place: Place;
	/** The n8n line (major version) that shows this label; unset: every line. */
	only?: '1' | '2';
	/** The editor's label starts with `label` (e.g. "Error Workflow (to notify when this one errors)"). */
	prefix?: boolean;
}

export const README_LABELS: ReadmeLabel[] = [
	{
		readme: '**Publish** (n8n 1.123: switch the workflow to **Active**)',
		label: 'Publish',
		place: 'header',
		only: '2',
	},
	// 1.x: the header's activation switch reads Inactive until it is switched to Active
	{
		readme: '**Publish** (n8n 1.123: switch the workflow to **Active**)',
		label: 'Inactive',
		place: 'header',
		only: '1',
	},
	{
		readme: 'so **Execute workflow** runs them at once',
		label: 'Execute workflow',
		place: 'header',
	},
	{
		readme:
			"The workflow's **⋯** menu → **Import** → **From file** (n8n 1.123 and 2.0: **Import from File...**)",
		label: 'Import',
		place: 'workflowMenu',
		only: '2',
	},
	{
		readme:
			"The workflow's **⋯** menu → **Import** → **From file** (n8n 1.123 and 2.0: **Import from File...**)",
		label: 'From file',
		place: 'importMenu',
		only: '2',
	},
	{
		readme:
			"The workflow's **⋯** menu → **Import** → **From file** (n8n 1.123 and 2.0: **Import from File...**)",
		label: 'Import from File...',
		place: 'workflowMenu',
		only: '1',
	},
	{ readme: 'workflow **Settings → Error Workflow**', label: 'Settings', place: 'workflowMenu' },
	{
		readme: 'workflow **Settings → Error Workflow**',
		label: 'Error Workflow',
		place: 'workflowSettings',
		prefix: true,
	},
	{
		readme: '- **Save successful production executions** → **Do not save**',
		label: 'Save successful production executions',
		place: 'workflowSettings',
		// the label is followed by its tooltip's icon
		prefix: true,
	},
	{
		readme: '(**Save failed production executions**)',
		label: 'Save failed production executions',
		place: 'workflowSettings',
		// the label is followed by its tooltip's icon
		prefix: true,
	},
	{
		readme: '- **Save manual executions** → **Do not save**',
		label: 'Save manual executions',
		place: 'workflowSettings',
		// the label is followed by its tooltip's icon
		prefix: true,
	},
	{ readme: 'click **Execute step** on', label: 'Execute step', place: 'triggerPanel' },
	{
		readme: 'on n8n 2.x, **Test this trigger** in its empty output pane',
		label: 'Test this trigger',
		place: 'triggerPanel',
		// 1.x: the empty output pane offers Execute step and set mock data only
		only: '2',
	},
	{
		readme: 'click **set mock data** in its empty output pane',
		label: 'set mock data',
		place: 'triggerPanel',
	},
	{ readme: 'or risk level (**Add Option**)', label: 'Add Option', place: 'triggerPanel' },
	{ readme: "Paste the trigger's **Test URL**", label: 'Test URL', place: 'triggerPanel' },
	{
		readme: "copy the trigger's **Production URL**",
		label: 'Production URL',
		place: 'triggerPanel',
	},
	{ readme: '| **Retry On Fail** |', label: 'Retry On Fail', place: 'nodeSettings' },
	// this package's own label, with its unit, as the editor lists it under Options
	{
		readme: 'Options → **Timeout (Milliseconds)**',
		label: 'Timeout (Milliseconds)',
		place: 'nodeOptions',
	},
	{ readme: '| **Always Output Data** |', label: 'Always Output Data', place: 'nodeSettings' },
	{ readme: '| **Execute Once** |', label: 'Execute Once', place: 'nodeSettings' },
	{
		readme: '| **On Error → Continue (using error output)** |',
		label: 'On Error',
		place: 'nodeSettings',
	},
	{ readme: '**On Error → Continue** gives one error item', label: 'Continue', place: 'onError' },
	{
		readme: '**Continue (using error output)** sends it to',
		label: 'Continue (using error output)',
		place: 'onError',
	},
	{
		readme: '**Settings → Community nodes → Install**',
		label: 'Community nodes',
		place: 'communityNodes',
	},
	{
		readme: '**Settings → Community nodes → Install**',
		label: 'Install',
		place: 'communityNodes',
		prefix: true,
	},
	{
		readme: '**Credentials → Create credential → AML OAuth2 API**',
		label: 'Create credential',
		place: 'credentials',
	},
];

/** The README's words of every entry that README.md no longer contains. */
export function readmeWordsMissing(): string[] {
	const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
	return [...new Set(README_LABELS.map((l) => l.readme))].filter(
		(words) => !readme.includes(words),
	);
}

const LONG = { timeout: 60_000 };
const SHORT = { timeout: 15_000 };

/** Whether `scope` shows an element whose own text (or placeholder) is the label. */
async function shows(scope: Locator | Page, entry: ReadmeLabel): Promise<boolean> {
	const text = entry.prefix
		? new RegExp(`^\\s*${entry.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)
		: entry.label;
	return await scope
		.getByText(text, { exact: !entry.prefix })
		.or(scope.getByRole('button', { name: text, exact: !entry.prefix }))
		.or(scope.getByPlaceholder(entry.label, { exact: true }))
		.first()
		.waitFor({ state: 'visible', ...SHORT })
		.then(
			() => true,
			() => false,
		);
}

async function visibleText(scope: Locator | Page): Promise<string> {
	const text = await (
		'locator' in scope && 'goto' in scope
			? scope.locator('body').innerText()
			: (scope as Locator).innerText()
	).catch(() => '');
	return text.replace(/\s+/g, ' ').slice(0, 1500);
}

/**
 * Each entry of this n8n line against the editor: the labels it does not show, with what the place showed instead.
 * On a copy of example 03 (AML Trigger, an AML node called "Get monitoring alert") without its pinned events, so that
 * the trigger's output pane is empty, as on a new trigger.
 */
export async function labelsNotShown(session: EditorSession, line: '1' | '2'): Promise<string[]> {
	const c = context();
	const workflow = prepareExample(path.join(EXAMPLES_DIR, '03-alert-notification.json'), {
		sandboxUrl: c.sandbox.baseUrl,
		credential: c.credential,
		extra: { __SLACK_WEBHOOK_URL__: 'https://hooks.slack.com/services/T0/B0/X' },
	});
	delete workflow.pinData;
	for (const node of workflow.nodes as Json[]) if (node.webhookId) node.webhookId = randomUUID();
	const workflowId = (await n8n().createWorkflow(workflow)).id;
	try {
		return await notShown(session, workflowId, line);
	} finally {
		await n8n().deleteWorkflow(workflowId);
	}
}

async function notShown(
	session: EditorSession,
	workflowId: string,
	line: '1' | '2',
): Promise<string[]> {
	const entries = README_LABELS.filter((l) => !l.only || l.only === line);
	const missing: string[] = [];
	const baseUrl = context().n8n.baseUrl;
	const byPlace = new Map<Place, ReadmeLabel[]>();
	for (const entry of entries)
		byPlace.set(entry.place, [...(byPlace.get(entry.place) ?? []), entry]);
	const check = async (place: Place, scope: Locator | Page) => {
		for (const entry of byPlace.get(place) ?? [])
			if (!(await shows(scope, entry)))
				missing.push(`${place}: "${entry.label}" not shown (shown: ${await visibleText(scope)})`);
	};
	const page = await session.context.newPage();
	// One page for the workflow's places, one after another (each load of the editor costs seconds): a place that
	// cannot be reached is reported, the page is loaded again, and the other places are still read.
	let loaded = false;
	const openWorkflow = async () => {
		await page.goto(`${baseUrl}/workflow/${workflowId}`, {
			waitUntil: 'domcontentloaded',
			...LONG,
		});
		await page.locator('[data-test-id="canvas-node"]').first().waitFor(LONG);
		loaded = true;
	};
	const step = async (places: Place[], read: () => Promise<void>, onWorkflow = true) => {
		if (!places.some((place) => byPlace.has(place))) return;
		try {
			if (onWorkflow && !loaded) await openWorkflow();
			await read();
		} catch (error) {
			loaded = false;
			missing.push(
				`${places.join(', ')}: not reached (${String((error as Error).message).split('\n')[0]})`,
			);
		}
	};
	const menus = page.locator('.el-dropdown-menu:visible, [role="menu"]:visible');
	const closeAll = async () => {
		for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
		await page.waitForTimeout(300);
	};
	const openNode = async (name: string) => {
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.locator('[data-test-id="node-parameters"]').waitFor(LONG);
		return ndv;
	};
	const openPage = async (at: string) => {
		loaded = false;
		await page.goto(`${baseUrl}${at}`, { waitUntil: 'domcontentloaded', ...LONG });
		await page.waitForTimeout(1000);
	};
	try {
		await step(['header'], async () => {
			await check('header', page);
		});
		await step(['workflowMenu', 'importMenu', 'workflowSettings'], async () => {
			await page.locator('[data-test-id="workflow-menu"]').first().click();
			await menus.first().waitFor(SHORT);
			await check('workflowMenu', menus);
			if (byPlace.has('importMenu')) {
				await menus.getByText('Import', { exact: true }).first().hover();
				await page.waitForTimeout(500);
				await check('importMenu', menus);
			}
			await menus.getByText('Settings', { exact: true }).first().click();
			const settings = page.locator('.el-dialog:visible, [role="dialog"]:visible').first();
			await settings.waitFor(LONG);
			await check('workflowSettings', settings);
			await closeAll();
		});
		await step(['triggerPanel'], async () => {
			const trigger = await openNode('AML Trigger');
			// the trigger's webhook addresses are folded under "Webhook URLs"
			await trigger
				.getByText('Webhook URLs')
				.first()
				.click(SHORT)
				.catch(() => undefined);
			await check('triggerPanel', trigger);
			await closeAll();
		});
		await step(['nodeSettings', 'onError'], async () => {
			const node = await openNode('Get monitoring alert');
			await node.getByText('Settings', { exact: true }).first().click();
			const onError = node.locator('[data-test-id="parameter-input-onError"]').first();
			await onError.waitFor(LONG);
			await check('nodeSettings', node);
			await onError.click();
			const choices = page.locator('.el-select-dropdown:visible').first();
			await choices.waitFor(LONG);
			await check('onError', choices);
			await closeAll();
		});
		await step(['nodeOptions'], async () => {
			// a fresh page: the panel of the step before may still hold the canvas
			await openWorkflow();
			const node = await openNode('Get monitoring alert');
			await node
				.getByPlaceholder('Add Option', { exact: true })
				.or(node.getByRole('button', { name: /^add option$/i }))
				.or(node.getByText(/^add option$/i))
				.first()
				.click(LONG);
			const options = page
				.locator('.el-select-dropdown:visible, [role="listbox"]:visible, .el-popper:visible')
				.first();
			await options.waitFor(LONG);
			await check('nodeOptions', options);
			await closeAll();
		});
		await step(
			['communityNodes'],
			async () => {
				await openPage('/settings/community-nodes');
				await check('communityNodes', page);
			},
			false,
		);
		await step(
			['credentials'],
			async () => {
				await openPage('/home/credentials');
				await check('credentials', page);
			},
			false,
		);
	} finally {
		await page.close();
	}
	return missing;
}

/** The README's labels against the editor of the running n8n, in its own browser. */
export function describeEditorLabels(line: '1' | '2'): void {
	describe(`the labels the README names, in the n8n ${line}.x editor`, () => {
		let session: EditorSession | undefined;

		beforeAll(async () => {
			const c = context();
			const owner = c.n8n.owner ?? DEFAULT_OWNER;
			session = await openEditor({
				baseUrl: c.n8n.baseUrl,
				email: owner.email,
				password: owner.password,
				viewport: { width: 1400, height: 800 },
			});
		});

		afterAll(async () => {
			await session?.close();
		});

		test(`each label the README names for n8n ${line}.x is shown by the editor, and the README still holds its words`, async () => {
			if (!session) throw new Error('the browser did not start (see beforeAll)');
			const notShown = await labelsNotShown(session, line);
			expect({ readme: readmeWordsMissing(), editor: notShown }).toEqual({
				readme: [],
				editor: [],
			});
		});
	});
}
