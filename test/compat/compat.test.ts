import { randomUUID } from 'node:crypto';

import {
	amlCredentialData,
	context,
	control,
	loadedTypes,
	n8n,
	ownerRest,
	runAml,
} from '../harness/context';
import {
	cleanupMatrix,
	closedPortUrl,
	FAULTS,
	mismatches,
	prepareMatrix,
	ON_ERROR,
	runRow,
	SAMPLE,
} from '../harness/matrix';
import { OUTPUT_SELECTED, outputTools } from '../harness/mcp';
import {
	cleanup,
	deliveries,
	publish,
	runCleanup,
	settled,
	target,
	until,
} from '../harness/trigger';

/**
 * The compatibility subset, run on every supported n8n line (scripts/test.sh runs it on the oldest 1.x and the
 * oldest 2.x; `AML_N8N_VERSION=<v> npx jest --selectProjects compat` on any): the package loads, the credential
 * test passes, one operation per resource works, the resource locators work, a refused token is renewed with 1 s tokens, the trigger verifies
 * HMAC. Everything asserts what the sandbox stored or answered.
 */
const suffix = randomUUID().slice(0, 8);
const personId = `compat-${suffix}`;

afterAll(async () => {
	await control.post('/config', { tokenLifetimeSeconds: 3600 }).catch(() => undefined);
	await runCleanup();
	await cleanupMatrix();
});

describe(`compatibility subset on n8n ${process.env.AML_N8N_VERSION ?? '(default)'}`, () => {
	test('both nodes and both credentials load', async () => {
		const { nodes, credentials } = await loadedTypes();
		const nodeNames = nodes.map((n) => n.name);
		expect(nodeNames).toEqual(
			expect.arrayContaining(['n8n-nodes-aml.aml', 'n8n-nodes-aml.amlTrigger']),
		);
		expect(credentials.map((c) => c.name)).toEqual(
			expect.arrayContaining(['amlOAuth2Api', 'amlWebhookApi']),
		);
	});

	test('the credential test passes with the right secret and fails with a wrong one', async () => {
		const good = await n8n().createCredential(
			`compat good ${suffix}`,
			'amlOAuth2Api',
			amlCredentialData(),
		);
		const bad = await n8n().createCredential(
			`compat bad ${suffix}`,
			'amlOAuth2Api',
			amlCredentialData({ clientSecret: 'wrong-secret' }),
		);
		cleanup.push(
			() => n8n().deleteCredential(good.id),
			() => n8n().deleteCredential(bad.id),
		);
		expect((await n8n().testCredential(good.id)).status).toBe('OK');
		expect((await n8n().testCredential(bad.id)).status).not.toBe('OK');
	});

	test('one operation per resource: person, transaction with its Clear/Block check, alert, screening, custom list', async () => {
		const person = await runAml({
			resource: 'person',
			operation: 'create',
			personId,
			personType: 'INDIVIDUAL',
			attributesMode: 'json',
			attributesJson: JSON.stringify({ first_name: 'Compat', last_name: 'Tester', country: 'DE' }),
		});
		expect(person.status).toBe('success');
		expect(await control.get<any>(`/persons/${personId}`)).toMatchObject({
			id: personId,
			type: 'INDIVIDUAL',
		});

		const small = `${personId}-small`;
		const large = `${personId}-large`;
		for (const [transactionId, amount] of [
			[small, '25.00'],
			[large, '25000.00'],
		]) {
			const created = await runAml({
				resource: 'transaction',
				operation: 'create',
				personId,
				transactionId,
				attributesMode: 'json',
				attributesJson: JSON.stringify({
					amount,
					type: 'wire_transfer',
					direction: 'O',
					timestamp: '2026-03-07T10:00:00Z',
				}),
			});
			expect(created.status).toBe('success');
		}
		expect(
			(await control.get<any[]>('/transactions', { personId })).map((t) => t.id).sort(),
		).toEqual([large, small].sort());

		const checked = await runAml(
			{
				resource: 'transaction',
				operation: 'runMonitoringCheck',
				transactionId: '={{ $json.id }}',
			},
			[{ id: small }, { id: large }],
		);
		expect(checked.status).toBe('success');
		// Block is output 0, Clear output 1
		const [block, clear] = checked.outputs;
		expect(clear.map((t) => t.transactionId)).toEqual([small]);
		expect(block.map((t) => t.transactionId)).toEqual([large]);
		expect(block[0].alertIds.length).toBeGreaterThan(0);

		const alert = await runAml({
			resource: 'alert',
			operation: 'getMonitoringAlert',
			alertId: String(block[0].alertIds[0]),
		});
		expect(alert.status).toBe('success');
		expect(alert.outputs[0][0]).toMatchObject({ id: block[0].alertIds[0] });

		const screening = await runAml({
			resource: 'screening',
			operation: 'search',
			name: 'Viktor Drabenko',
			recordEntityType: 'ALL',
			configurations: {
				configuration: [{ type: 'SANCTION', matchType: 'FUZZY_MATCH', score: 90 }],
			},
		});
		expect(screening.status).toBe('success');
		expect(screening.outputs[0].length).toBeGreaterThan(0);

		const { id: listId } = await control.post<{ id: string }>('/custom-lists', {
			name: `compat ${suffix}`,
			fields: [{ id: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' }],
		});
		const record = await runAml({
			resource: 'customList',
			operation: 'create',
			customListId: listId,
			recordId: 'r-1',
			attributesMode: 'json',
			attributesJson: '{"name":"Compat Ltd"}',
		});
		expect(record.status).toBe('success');
		expect((await control.get<any[]>(`/custom-lists/${listId}/records`)).map((r) => r.id)).toEqual([
			'r-1',
		]);
	});

	test("the resource locators run By ID, By URL and with a From List value, and the Person ID list answers n8n's REST call", async () => {
		const rl = (mode: string, value: string) => ({ __rl: true, mode, value });
		const v12 = { typeVersion: 1 };
		const got = await runAml(
			{ resource: 'person', operation: 'get', personId: rl('list', personId) },
			[{}],
			v12,
		);
		expect(got.outputs[0][0]).toMatchObject({ id: personId });
		const { id: listId } = await control.post<{ id: string }>('/custom-lists', {
			name: `compat rl ${suffix}`,
			fields: [{ id: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' }],
		});
		const record = await runAml(
			{
				resource: 'customList',
				operation: 'create',
				customListId: rl('url', `https://app.example.com/lists/${listId}`),
				recordId: '={{ $json.id }}',
				attributesMode: 'json',
				attributesJson: '{"name":"Compat RL"}',
			},
			[{ id: 'rl-1' }],
			v12,
		);
		expect(record.status).toBe('success');
		expect((await control.get<any[]>(`/custom-lists/${listId}/records`)).map((r) => r.id)).toEqual([
			'rl-1',
		]);
		const alert = await runAml(
			{
				resource: 'alert',
				operation: 'createManualAlert',
				personId: rl('id', personId),
				rationale: 'OTHER',
			},
			[{}],
			v12,
		);
		const alertId = alert.outputs[0][0].id as number;
		const closed = await runAml(
			{
				resource: 'alert',
				operation: 'updateStatus',
				alertType: 'MANUAL',
				alertId: rl('url', `https://app.example.com/alerts/${alertId}`),
				status: 'CLOSED',
			},
			[{}],
			v12,
		);
		expect(closed.status).toBe('success');
		expect(
			(await control.get<any[]>('/manual-alerts')).find((a) => a.id === alertId),
		).toMatchObject({ personId, status: 'CLOSED' });

		const rest = await ownerRest();
		const listed = await rest.post('/dynamic-node-parameters/resource-locator-results', {
			nodeTypeAndVersion: { name: 'n8n-nodes-aml.aml', version: 1 },
			methodName: 'searchPersons',
			path: 'personId',
			currentNodeParameters: { resource: 'person', operation: 'get', personId: rl('list', '') },
			credentials: { amlOAuth2Api: context().credential },
			filter: 'Tester',
		});
		expect(listed.status).toBe(200);
		expect((listed.data.data ?? listed.data).results).toContainEqual({
			name: `Compat Tester (${personId})`,
			value: personId,
			description: 'Customer',
		});
	});

	test('as an MCP tool, Output → Selected Fields answers with the chosen fields and the ID, nothing else', async () => {
		const owner = `${personId}-out`;
		const tools = await outputTools(owner, `aml-compat-output-${suffix}`);
		try {
			expect(await tools.call('person_selected')).toEqual(OUTPUT_SELECTED.person(owner));
			expect(await tools.call('transactions_selected')).toEqual(
				OUTPUT_SELECTED.transactions(owner),
			);
		} finally {
			await tools.close();
		}
	});

	test('1 s tokens: every refused token is renewed, no item fails, one token request per expiry at most', async () => {
		// the token endpoint's own limit (5 a minute) is lifted here: this test is about renewal, not throttling
		await control.post('/config', {
			tokenLifetimeSeconds: 1,
			tokenRateLimit: { max: 100, windowSeconds: 60 },
		});
		// the token n8n holds now was issued for an hour: end it, so that every token of this test lives 1 s
		await control.post('/tokens/expire');
		try {
			const before = (await control.get<{ issued: string[] }>('/tokens')).issued.length;
			for (let run = 0; run < 3; run++) {
				const started = Date.now();
				const result = await runAml({ resource: 'person', operation: 'get', personId }, [
					{},
					{},
					{},
				]);
				expect(result.status).toBe('success');
				expect(result.outputs[0].map((p) => p.id)).toEqual([personId, personId, personId]);
				// let the token expire between runs
				await new Promise((resolve) =>
					setTimeout(resolve, Math.max(0, 1500 - (Date.now() - started))),
				);
			}
			const issued = (await control.get<{ issued: string[] }>('/tokens')).issued.length - before;
			expect(issued).toBeGreaterThanOrEqual(2);
			expect(issued).toBeLessThanOrEqual(6);
		} finally {
			await control.post('/config', {
				tokenLifetimeSeconds: 3600,
				tokenRateLimit: { max: 5, windowSeconds: 60 },
			});
		}
	});

	test('trigger with HMAC: a signed delivery starts one execution, a wrongly signed one is refused', async () => {
		const cred = await n8n().createCredential(`compat hmac ${suffix}`, 'amlWebhookApi', {
			method: 'hmac',
			hmacHeaderName: 'X-AML-Signature',
			hmacSecret: 'compat-key',
		});
		cleanup.push(() => n8n().deleteCredential(cred.id));
		const wf = await publish({ authentication: 'amlWebhookApi', events: ['*'] }, cred);
		const wrong = await target(wf.url, { verification: { mode: 'hmac', secret: 'not-the-key' } });
		const event = (alertId: number) => ({
			action: 'MANUAL_ALERT_CREATED',
			metadata: { alertId, personId, transactionId: null, rationale: 'OTHER', status: 'NEW' },
		});
		await control.post('/webhooks/emit', event(9101));
		const refused = await until('a refused attempt', async () => {
			const d = await deliveries(wf.url);
			return d.length >= 1 ? d : undefined;
		});
		expect(refused.every((d) => d.status === 401 && !d.accepted)).toBe(true);
		await control.del(`/webhooks/${wrong}`);
		await target(wf.url, { verification: { mode: 'hmac', secret: 'compat-key' } });
		await control.post('/webhooks/emit', event(9102));
		await until('accepted', async () => (await deliveries(wf.url)).some((d) => d.accepted));
		expect((await settled(wf.id, 1)).map((o) => o.metadata.alertId)).toEqual([9102]);
		expect(context().n8n.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:/);
	});
});

/**
 * A sample of the fault matrix (test/harness/matrix.ts, the whole of it runs in test/e2e/matrix.test.ts): every fault
 * point, one operation of each kind (read, create, delete, one-shot, upload, check, transaction check, Gate), in
 * Continue (using error output) and, for every failure, Stop; the same rule decides what each item must report.
 */
describe(`fault matrix sample on n8n ${process.env.AML_N8N_VERSION ?? '(default)'}`, () => {
	let base: Awaited<ReturnType<typeof prepareMatrix>>;
	let closedUrl: string;
	beforeAll(async () => {
		await control.post('/config', { tokenRateLimit: { max: 100000, windowSeconds: 60 } });
		base = await prepareMatrix();
		closedUrl = await closedPortUrl();
	});
	afterAll(async () => {
		await control.post('/config', { tokenRateLimit: { max: 5, windowSeconds: 60 } });
	});

	test.each(FAULTS.map((fault) => [fault.name, fault] as const))('%s', async (_name, fault) => {
		const runs = await runRow(fault, base, SAMPLE, ON_ERROR, { closedUrl });
		const problems: string[] = [];
		for (const run of runs) problems.push(...(await mismatches(run, fault)));
		expect(problems).toEqual([]);
	});
});
