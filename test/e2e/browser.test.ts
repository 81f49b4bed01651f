import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';

import { EVENT_ACTIONS } from '../../nodes/AmlTrigger/events';
import { chromiumPath, openEditor, type EditorSession } from '../harness/browser';
import axios from 'axios';

import { context, n8n } from '../harness/context';
import { amlTriggerWorkflow, type Json } from '../harness/client';
import { EXAMPLES_DIR, prepareExample } from '../harness/examples';
import { DEFAULT_OWNER, REPO_ROOT } from '../harness/n8n';
import { labelsNotShown, readmeWordsMissing } from '../harness/editorLabels';

/**
 * The editor in a real browser (Debian's Chromium through playwright-core, no browser download): the example
 * workflows 01 (AML nodes) and 03 (AML Trigger) open, the package's icons load, and the parameter panels show
 * the resources, operations and fields. Saves the README's screenshots to docs/screenshots/ when
 * AML_SCREENSHOTS=1 (`npm run screenshots`) or when one is missing, so that ordinary runs leave the repo clean.
 */

const SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1400, height: 800 };
const AML_NODE = 'n8n-nodes-aml.aml';
const AML_TRIGGER = 'n8n-nodes-aml.amlTrigger';
const NODE_TRIGGER = 'AML Trigger';
/** Where n8n serves a community package's icons: /icons/<package>/<path of the file in the package>. */
const ICONS = {
	// one copy of each icon (icons/), shared by both nodes and the credentials
	[AML_NODE]: {
		light: '/icons/n8n-nodes-aml/dist/icons/aml.svg',
		dark: '/icons/n8n-nodes-aml/dist/icons/aml.dark.svg',
	},
	[AML_TRIGGER]: {
		light: '/icons/n8n-nodes-aml/dist/icons/aml.svg',
		dark: '/icons/n8n-nodes-aml/dist/icons/aml.dark.svg',
	},
};
const LONG = { timeout: 60_000 };
/** The sandbox's demo custom list and its usable fields (test/sandbox/seed.ts). */
const DEMO_LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';

async function screenshot(page: Page, name: string): Promise<void> {
	const file = path.join(SCREENSHOTS, name);
	if (process.env.AML_SCREENSHOTS !== '1' && fs.existsSync(file)) return;
	fs.mkdirSync(SCREENSHOTS, { recursive: true });
	await page.mouse.move(0, VIEWPORT.height - 1); // no hover toolbar on a node
	await page.waitForTimeout(300);
	await page.screenshot({ path: file });
}

interface IconState {
	type: string;
	src: string;
	complete: boolean;
	naturalWidth: number;
}

/** The `<img>` of every AML node on the canvas, once all of them have loaded (or after 30 s, as they are). */
async function amlIcons(page: Page): Promise<IconState[]> {
	const selector = '[data-test-id="canvas-node"][data-node-type^="n8n-nodes-aml."] img';
	await page
		.waitForFunction(
			`(() => { const imgs = [...document.querySelectorAll('${selector}')]; return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0); })()`,
			undefined,
			{ timeout: 30_000 },
		)
		.catch(() => undefined);
	return await page.locator(selector).evaluateAll((imgs) =>
		imgs.map((element) => {
			const img = element as unknown as {
				src: string;
				complete: boolean;
				naturalWidth: number;
				closest(s: string): { getAttribute(a: string): string | null } | null;
			};
			return {
				type: img.closest('[data-test-id="canvas-node"]')?.getAttribute('data-node-type') ?? '',
				src: new URL(img.src).pathname,
				complete: img.complete,
				naturalWidth: img.naturalWidth,
			};
		}),
	);
}

/** Opens a workflow in a new tab of the logged-in browser and waits for its nodes. */
async function openWorkflow(
	session: EditorSession,
	id: string,
	colorScheme: 'light' | 'dark' = 'light',
): Promise<Page> {
	const page = await session.context.newPage();
	await page.emulateMedia({ colorScheme });
	await page.goto(`${context().n8n.baseUrl}/workflow/${id}`, {
		waitUntil: 'domcontentloaded',
		...LONG,
	});
	await page.locator('[data-test-id="canvas-node"]').first().waitFor(LONG);
	return page;
}

/** Double-clicks a node on the canvas; returns the node details view (its parameter panel). */
async function openNode(page: Page, name: string): Promise<Locator> {
	await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).dblclick();
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.locator('[data-test-id="node-parameters"]').waitFor(LONG);
	return ndv;
}

/** The value an options parameter shows (its select input). */
async function shownValue(ndv: Locator, parameter: string): Promise<string> {
	const input = ndv.locator(`[data-test-id="parameter-input-${parameter}"] input`).first();
	await input.waitFor(LONG);
	return await input.inputValue();
}

/** Opens an options parameter's dropdown and returns the names of its entries (the first line of each). */
async function dropdownNames(page: Page, ndv: Locator, parameter: string): Promise<string[]> {
	await ndv.locator(`[data-test-id="parameter-input-${parameter}"]`).click();
	const items = page.locator('.el-select-dropdown:visible .el-select-dropdown__item');
	await items.first().waitFor(LONG);
	return (await items.allInnerTexts()).map((t) => t.split('\n')[0].trim());
}

function parameterShown(ndv: Locator, parameter: string): Locator {
	return ndv.locator(`[data-test-id="parameter-input-${parameter}"]`);
}

describe('the editor in Chromium: icons, parameter panels, screenshots', () => {
	let session: EditorSession | undefined;
	const workflows: Record<'gate' | 'alerts' | 'mapper' | 'listen', string> = {
		gate: '',
		alerts: '',
		mapper: '',
		listen: '',
	};
	const listenWebhookId = randomUUID();
	let webhookCredential = '';
	const iconResponses: Array<{ url: string; status: number }> = [];

	beforeAll(async () => {
		const c = context();
		const values = {
			sandboxUrl: c.sandbox.baseUrl,
			credential: c.credential,
			// never called here: a Slack-style address reads better in the screenshots than the sandbox's port
			extra: {
				__SLACK_WEBHOOK_URL__:
					'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
			},
		};
		for (const [key, file] of [
			['gate', '01-transaction-gate.json'],
			['alerts', '03-alert-notification.json'],
		] as const) {
			const workflow = prepareExample(path.join(EXAMPLES_DIR, file), values);
			// inactive workflows, but their own webhook ids all the same (other tests deploy the same examples)
			for (const node of workflow.nodes as Json[])
				if (node.webhookId) node.webhookId = randomUUID();
			workflows[key] = (await n8n().createWorkflow(workflow)).id;
		}
		workflows.mapper = (
			await n8n().createWorkflow({
				name: 'Custom list fields',
				nodes: [
					{
						id: randomUUID(),
						name: 'Add to blocklist',
						type: AML_NODE,
						typeVersion: 1,
						position: [0, 0],
						parameters: {
							resource: 'customList',
							operation: 'create',
							customListId: { __rl: true, mode: 'id', value: DEMO_LIST },
							recordId: '={{ $json.id }}',
							attributesMode: 'mapper',
						},
						credentials: { amlOAuth2Api: c.credential },
					},
				],
				connections: {},
			})
		).id;
		const hmac = await n8n().createCredential(
			`AML webhook listen ${listenWebhookId.slice(0, 8)}`,
			'amlWebhookApi',
			{ method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: randomUUID() },
		);
		webhookCredential = hmac.id;
		workflows.listen = (
			await n8n().createWorkflow(
				amlTriggerWorkflow(
					`AML Trigger listening ${listenWebhookId.slice(0, 8)}`,
					listenWebhookId,
					{ authentication: 'amlWebhookApi', events: ['*'] },
					hmac,
				),
			)
		).id;
		let executable: string;
		try {
			executable = chromiumPath(); // installs Debian's chromium through scripts/install-browser.sh when missing
		} catch (error) {
			throw new Error(
				`Chromium is missing and scripts/install-browser.sh could not install it (apt-get chromium): ${(error as Error).message}`,
			);
		}
		process.env.AML_CHROMIUM = executable;
		const owner = c.n8n.owner ?? DEFAULT_OWNER;
		session = await openEditor({
			baseUrl: c.n8n.baseUrl,
			email: owner.email,
			password: owner.password,
			viewport: VIEWPORT,
		});
		session.context.on('response', (response) => {
			if (new URL(response.url()).pathname.startsWith('/icons/n8n-nodes-aml/'))
				iconResponses.push({ url: response.url(), status: response.status() });
		});
	});

	afterAll(async () => {
		await session?.close();
		for (const id of Object.values(workflows)) if (id) await n8n().deleteWorkflow(id);
		if (webhookCredential) await n8n().deleteCredential(webhookCredential);
	});

	const editor = (): EditorSession => {
		if (!session) throw new Error('the browser did not start (see beforeAll)');
		return session;
	};

	test('example 01 on the canvas: every AML node shows the package icon, served as our SVG', async () => {
		const page = await openWorkflow(editor(), workflows.gate);
		try {
			const icons = await amlIcons(page);
			// AML Gate, Store customer, Screen customer
			expect(icons).toHaveLength(3);
			for (const icon of icons)
				expect(icon).toEqual({
					type: AML_NODE,
					src: ICONS[AML_NODE].light,
					complete: true,
					naturalWidth: expect.any(Number),
				});
			expect(Math.min(...icons.map((i) => i.naturalWidth))).toBeGreaterThan(0);

			const response = await page.request.get(`${context().n8n.baseUrl}${ICONS[AML_NODE].light}`);
			expect(response.status()).toBe(200);
			expect(response.headers()['content-type']).toMatch(/^image\/svg\+xml/);
			expect(await response.text()).toBe(
				fs.readFileSync(path.join(REPO_ROOT, 'dist', 'icons', 'aml.svg'), 'utf8'),
			);

			await screenshot(page, 'workflow-transaction-gate.png');
		} finally {
			await page.close();
		}
	});

	test('example 03 on the canvas: the AML Trigger and the AML nodes show their icons', async () => {
		const page = await openWorkflow(editor(), workflows.alerts);
		try {
			const icons = await amlIcons(page);
			expect(icons.map((i) => i.type).sort()).toEqual([AML_NODE, AML_NODE, AML_TRIGGER]);
			for (const icon of icons) {
				expect(icon.src).toBe(ICONS[icon.type as keyof typeof ICONS].light);
				expect(icon.complete).toBe(true);
				expect(icon.naturalWidth).toBeGreaterThan(0);
			}
			await screenshot(page, 'workflow-alert-notification.png');
		} finally {
			await page.close();
		}
	});

	test('the AML node panel: resources, operations and the fields of the chosen operation', async () => {
		const page = await openWorkflow(editor(), workflows.gate);
		try {
			const ndv = await openNode(page, 'AML Gate');
			expect(await ndv.locator('[data-test-id="node-credentials-select"] input').inputValue()).toBe(
				'AML sandbox',
			);
			expect(await shownValue(ndv, 'resource')).toBe('Transaction');
			expect(await shownValue(ndv, 'operation')).toBe('Gate');
			for (const field of [
				'personId',
				'transactionId',
				'attributesMode',
				'amount',
				'transactionType',
				'direction',
				'timestamp',
				'onExisting',
				'runMonitoring',
				'runScreening',
				'routeOutputs',
			]) {
				await expect(parameterShown(ndv, field).count()).resolves.toBe(1);
			}
			const labels = (
				await ndv
					.locator('[data-test-id="parameter-item"] [data-test-id="input-label"]')
					.allInnerTexts()
			).map((l) => l.split('\n')[0].trim());
			expect(labels).toEqual(
				expect.arrayContaining([
					'Resource',
					'Operation',
					'Person ID',
					'Transaction ID',
					'Amount',
					'Transaction Type',
					'Direction',
					'Timestamp',
				]),
			);
			expect(await ndv.locator('[data-test-id="node-parameters"]').innerText()).not.toContain(
				context().sandbox.clientSecret,
			);
			await screenshot(page, 'node-transaction-gate.png');

			// n8n adds "Custom API Call" to nodes whose credential it can attach to an HTTP Request node
			expect(await dropdownNames(page, ndv, 'resource')).toEqual([
				'Alert',
				'Custom List Record',
				'Data Upload',
				'Person',
				'Screening',
				'Transaction',
				'Custom API Call',
			]);
			await page.keyboard.press('Escape');
			await page.locator('.el-select-dropdown:visible').waitFor({ state: 'hidden', ...LONG });

			const operations = await dropdownNames(page, ndv, 'operation');
			expect(operations).toEqual(
				expect.arrayContaining([
					'Create',
					'Gate',
					'Get',
					'Get Many',
					'Run Monitoring Check',
					'Run Screening Check',
					'Update',
				]),
			);
			await screenshot(page, 'node-operations.png');

			// another operation, other fields: the monitoring check has no attributes but the Clear/Block routing
			await page
				.locator('.el-select-dropdown:visible .el-select-dropdown__item', {
					hasText: 'Run Monitoring Check',
				})
				.first()
				.click();
			await parameterShown(ndv, 'routeOutputs').waitFor(LONG);
			expect(await shownValue(ndv, 'operation')).toBe('Run Monitoring Check');
			await expect(parameterShown(ndv, 'transactionId').count()).resolves.toBe(1);
			await expect(parameterShown(ndv, 'amount').count()).resolves.toBe(0);
			await expect(parameterShown(ndv, 'personId').count()).resolves.toBe(0);
		} finally {
			await page.close(); // the change of operation is never saved
		}
	});

	test('the AML Trigger panel: the Events field with the chosen events and every event to choose from', async () => {
		const page = await openWorkflow(editor(), workflows.alerts);
		try {
			const ndv = await openNode(page, 'AML Trigger');
			expect(await shownValue(ndv, 'authentication')).toBe('AML Webhook API');
			const events = parameterShown(ndv, 'events');
			await events.waitFor(LONG);
			expect(
				(await events.innerText())
					.split('\n')
					.map((t) => t.trim())
					.filter(Boolean),
			).toEqual(['Alert Created', 'Screening Alert Created']);
			expect(await ndv.innerText()).toContain("into the AML web UI's webhook settings");
			await screenshot(page, 'trigger-events.png');

			const names = await dropdownNames(page, ndv, 'events');
			expect(names).toEqual(
				expect.arrayContaining(['All Events', ...EVENT_ACTIONS.map((e) => e.name)]),
			);
		} finally {
			await page.close();
		}
	});

	test("the AML Trigger's notice names the editor's button (Execute step) and no label of older editors (the README's labels: the next test)", async () => {
		const page = await openWorkflow(editor(), workflows.alerts);
		try {
			const ndv = await openNode(page, 'AML Trigger');
			await ndv.getByRole('button', { name: 'Execute step' }).first().waitFor(LONG);
			const text = await ndv.innerText();
			expect(text).toContain('click Execute step');
			expect(text).not.toMatch(/Listen for test event|Test workflow|Edit Output/);
		} finally {
			await page.close();
		}
	});

	test('the labels the README names are shown by this editor (1.x: test/compat/editorLabels.test.ts), and the README still holds their words', async () => {
		const line = (process.env.AML_N8N_VERSION ?? '').startsWith('1.') ? '1' : '2';
		const notShown = await labelsNotShown(editor(), line);
		expect({ readme: readmeWordsMissing(), editor: notShown }).toEqual({ readme: [], editor: [] });
	}, 600_000);

	test("Custom List → Create, Map List Fields: n8n's resource mapper shows the list's fields, set below or mapped automatically", async () => {
		const page = await openWorkflow(editor(), workflows.mapper);
		try {
			const ndv = await openNode(page, 'Add to blocklist');
			expect(await shownValue(ndv, 'attributesMode')).toBe('Map List Fields');
			const fields = ndv.locator('[data-test-id="mapping-fields-container"]');
			await fields.getByText('bank_account_numbers').first().waitFor(LONG);
			const shown = await fields.innerText();
			expect(shown).toContain('name');
			expect(shown).toContain('bank_account_numbers');
			const modes = ndv.locator('[data-test-id="mapping-mode-select"]');
			expect(await modes.innerText()).toMatch(
				/Map Each Field Manually|Mapping Column Mode|Mapping Field Mode/i,
			);
			await screenshot(page, 'node-custom-list-fields.png');

			await modes.locator('input').first().click();
			const names = page.locator('.el-select-dropdown:visible .el-select-dropdown__item');
			await names.first().waitFor(LONG);
			expect((await names.allInnerTexts()).map((t) => t.split('\n')[0].trim())).toEqual(
				expect.arrayContaining(['Map Automatically']),
			);
		} finally {
			await page.close(); // nothing is saved
		}
	});

	test('AML Trigger, Execute workflow while it listens: an unsigned delivery is refused and the editor shows why, with the headers that arrived', async () => {
		const page = await openWorkflow(editor(), workflows.listen);
		try {
			await page.locator('[data-test-id="execute-workflow-button"]').first().click();
			const url = `${context().n8n.baseUrl}/webhook-test/${listenWebhookId}/aml`;
			const body = JSON.stringify({
				action: 'ALERT_CREATED',
				createdTime: new Date().toISOString(),
			});
			// the editor registers the test webhook when listening starts: 404 until then
			let status = 404;
			for (let attempt = 0; attempt < 60 && status === 404; attempt++) {
				status = (
					await axios.post(url, body, {
						headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'browser-check' },
						validateStatus: () => true,
					})
				).status;
				if (status === 404) await page.waitForTimeout(500);
			}
			expect(status).toBe(401);
			const message =
				'Delivery refused (401): no X-AML-Signature header arrived (HMAC-SHA256 Signature method)';
			await page.getByText(message).first().waitFor(LONG);
			const ndv = await openNode(page, NODE_TRIGGER);
			await ndv.getByText(message).first().waitFor(LONG);
			const text = await ndv.innerText();
			expect(text).toMatch(/Headers that arrived \(names only\): .*x-request-id/);
			await screenshot(page, 'trigger-refused-delivery.png');
		} finally {
			await page.close();
		}
	});

	test('dark theme: the nodes switch to the dark icons, which load', async () => {
		const page = await openWorkflow(editor(), workflows.alerts, 'dark');
		try {
			const icons = await amlIcons(page);
			expect(icons).toHaveLength(3);
			for (const icon of icons) {
				expect(icon.src).toBe(ICONS[icon.type as keyof typeof ICONS].dark);
				expect(icon.naturalWidth).toBeGreaterThan(0);
			}
			await screenshot(page, 'workflow-dark.png');
		} finally {
			await page.close();
		}
	});

	test('no icon request of the package failed', () => {
		expect(iconResponses.length).toBeGreaterThan(0);
		expect(iconResponses.filter((r) => r.status !== 200 && r.status !== 304)).toEqual([]);
	});
});
