import * as fs from 'node:fs';

/** Stops what the global set-up started (n8n, sandbox, Slack stand-in) and removes its temp folders (AML_KEEP_N8N=1 keeps n8n's). */
export default async function globalTeardown(): Promise<void> {
	const state = (globalThis as Record<string, any>).__AML_E2E__;
	if (!state) return;
	(globalThis as Record<string, any>).__AML_E2E__ = undefined;
	try {
		await state.instance.stop();
	} finally {
		await state.sandbox.close().catch(() => undefined);
		await state.slack?.close().catch(() => undefined);
		if (process.env.AML_KEEP_N8N !== '1')
			fs.rmSync(state.instance.userFolder, { recursive: true, force: true });
		else console.log(`[e2e] kept n8n user folder ${state.instance.userFolder}`);
		fs.rmSync(state.dir, { recursive: true, force: true });
	}
}
