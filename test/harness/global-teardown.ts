import * as fs from 'node:fs';

/** Stops what the global set-up started. */
export default async function globalTeardown(): Promise<void> {
	const state = (globalThis as Record<string, any>).__AML_E2E__;
	if (!state) return;
	await state.instance.stop();
	await state.sandbox.close();
	if (process.env.AML_KEEP_N8N !== '1') fs.rmSync(state.instance.userFolder, { recursive: true, force: true });
	fs.rmSync(state.dir, { recursive: true, force: true });
}
