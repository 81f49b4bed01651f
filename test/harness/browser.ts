import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

import { REPO_ROOT } from './n8n';

/**
 * Screenshots of the n8n editor with playwright-core and Debian's Chromium (scripts/install-browser.sh installs
 * it when missing). Headless, no sandbox, no network beyond 127.0.0.1 in practice, a fresh profile each time.
 */

export const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
];

export function chromiumPath(install = true): string {
	const candidate = process.env.AML_CHROMIUM ?? '/usr/bin/chromium';
	if (fs.existsSync(candidate)) return candidate;
	if (!install) throw new Error(`${candidate} not found: run scripts/install-browser.sh`);
	const run = spawnSync('bash', [path.join(REPO_ROOT, 'scripts', 'install-browser.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	process.stderr.write(run.stderr ?? '');
	if (run.status !== 0) {
		// the reason (apt-get's or the shell's last words) goes into the error, which the test report shows
		const tail = (run.stderr ?? '').trim().split('\n').slice(-8).join('\n');
		throw new Error(
			`scripts/install-browser.sh failed (${run.error?.message ?? `exit ${run.status}`}):\n${tail}`,
		);
	}
	const line = run.stdout.split('\n').find((l) => l.startsWith('AML_CHROMIUM='));
	return line ? line.slice('AML_CHROMIUM='.length) : candidate;
}

export interface EditorSession {
	browser: Browser;
	context: BrowserContext;
	page: Page;
	userDataDir: string;
	close(): Promise<void>;
}

/** Starts Chromium with a fresh profile and logs into the n8n editor. */
export async function openEditor(opts: {
	baseUrl: string;
	email: string;
	password: string;
	viewport?: { width: number; height: number };
}): Promise<EditorSession> {
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-chromium-'));
	// launchPersistentContext gives the fresh user data dir; playwright adds its own flags on top of these
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: chromiumPath(),
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: opts.viewport ?? { width: 1600, height: 900 },
	});
	const browser = context.browser() as Browser;
	const page = context.pages()[0] ?? (await context.newPage());
	const close = async () => {
		await context.close().catch(() => undefined);
		fs.rmSync(userDataDir, { recursive: true, force: true });
	};
	try {
		await page.goto(`${opts.baseUrl}/signin`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
		const email = page
			.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]')
			.first();
		await email.waitFor({ timeout: 60_000 });
		await email.fill(opts.email);
		await page.locator('input[type="password"]').first().fill(opts.password);
		await Promise.all([
			page.waitForURL((url) => !url.pathname.includes('/signin'), { timeout: 60_000 }),
			page.locator('button[type="submit"], [data-test-id="form-submit-button"]').first().click(),
		]);
		return { browser, context, page, userDataDir, close };
	} catch (error) {
		await close();
		throw error;
	}
}

/** Opens a workflow in the editor and saves a screenshot (PNG) of the canvas. */
export async function screenshotWorkflow(
	session: EditorSession,
	baseUrl: string,
	workflowId: string,
	file: string,
): Promise<string> {
	const { page } = session;
	await page.goto(`${baseUrl}/workflow/${workflowId}`, {
		waitUntil: 'domcontentloaded',
		timeout: 60_000,
	});
	await page
		.locator('[data-test-id="canvas-node"], .vue-flow__node')
		.first()
		.waitFor({ timeout: 60_000 });
	await page.waitForTimeout(1000); // let the canvas fit and icons load
	fs.mkdirSync(path.dirname(file), { recursive: true });
	await page.screenshot({ path: file, fullPage: false });
	return file;
}

/** One call: log in, open the workflow, screenshot to `file`, close the browser. */
export async function screenshot(opts: {
	baseUrl: string;
	email: string;
	password: string;
	workflowId: string;
	file: string;
}): Promise<string> {
	const session = await openEditor(opts);
	try {
		return await screenshotWorkflow(session, opts.baseUrl, opts.workflowId, opts.file);
	} finally {
		await session.close();
	}
}
