import { context, control, runAml, type Json } from './context';

/**
 * jest setupFilesAfterEnv of the e2e, faults and compat projects. Before a test file's first test, the file's own
 * credential (test/harness/global-setup.ts) fetches its token with a read, the token endpoint's limit lifted
 * meanwhile: every file asks once, and that request must not use up the limit (5 a minute) its tests run under. The
 * limit is set back after it, which starts its window afresh (as every test that changes the limit does). A failed
 * read is left to the tests, which fetch the token themselves.
 */
beforeAll(async () => {
	if (!context().tag) return;
	const { tokenRateLimit } = await control.get<Json>('/config');
	await control.post('/config', { tokenRateLimit: { max: 100000, windowSeconds: 60 } });
	try {
		await runAml({ resource: 'screening', operation: 'getListGroups' }).catch(() => undefined);
	} finally {
		await control.post('/config', { tokenRateLimit });
	}
}, 180_000);
