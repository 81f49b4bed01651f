import { randomUUID } from 'node:crypto';

import { amlCredentialData, context, control, n8n, runAml } from '../harness/context';

/**
 * Alert resource in real n8n against the sandbox. Alerts are produced by real causes (a person in a
 * high-risk country → the sandbox's post-event monitoring scenario; a screening check of a person whose
 * name is on the synthetic sanctions list). No /reset: ids are unique per run, so other suites may run.
 */
type Logged = { seq: number; method: string; path: string; status: number };

const suffix = randomUUID().slice(0, 8);
const highRiskPerson = `al-ir-${suffix}`;

async function apiRequestsSince(mark: number, pathPart: string): Promise<Logged[]> {
	return (await control.requestsSince(mark)).filter(
		(r) => r.path.startsWith('/api') && r.path.includes(pathPart),
	);
}

/**
 * An AML credential n8n's HTTP Request node may use towards the sandbox (the credential's default, None, lets the HTTP
 * Request node use it nowhere).
 */
let httpCredential: { id: string; name: string } | undefined;
async function forHttpRequest(): Promise<{ id: string; name: string }> {
	httpCredential ??= await n8n().createCredential(
		`alert test HTTP Request ${suffix}`,
		'amlOAuth2Api',
		amlCredentialData({ allowedHttpRequestDomains: 'domains', allowedDomains: '127.0.0.1' }),
	);
	return httpCredential;
}
afterAll(async () => {
	if (httpCredential)
		await n8n()
			.deleteCredential(httpCredential.id)
			.catch(() => undefined);
});

/** Calls the sandbox API through n8n's own HTTP Request node with an AML credential (a real client). */
async function callService(method: string, path: string): Promise<any> {
	const credentials = { amlOAuth2Api: await forHttpRequest() };
	const run = await runAml(
		{
			method,
			url: `${context().sandbox.baseUrl}/api${path}`,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'amlOAuth2Api',
			options: {},
		},
		[{}],
		{ type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, name: 'HTTP', credentials },
		{ credentials },
	);
	if (run.status !== 'success')
		throw new Error(`${method} ${path} failed: ${JSON.stringify(run.error)}`);
	return run.outputs[0][0];
}

describe('Alert resource in real n8n', () => {
	let monitoringAlertId: number;

	beforeAll(async () => {
		// Real cause: a person in IR triggers the post-event scenario "High-risk country (post-event)" (score 90).
		const created = await runAml({
			resource: 'person',
			operation: 'create',
			personId: highRiskPerson,
			personType: 'INDIVIDUAL',
			attributesMode: 'json',
			attributesJson: JSON.stringify({ first_name: 'Reza', last_name: 'Testpour', country: 'IR' }),
		});
		expect(created.status).toBe('success');
		const alerts = await control.get<any[]>('/alerts');
		const mine = alerts.filter((a) => a.personId === highRiskPerson);
		expect(mine.length).toBeGreaterThanOrEqual(1);
		monitoringAlertId = mine[0].id;
	});

	test('Get Monitoring Alert returns the alert the scenario raised; Simplify keeps the essentials', async () => {
		const run = await runAml(
			{
				resource: 'alert',
				operation: 'getMonitoringAlert',
				alertId: '={{ $json.alertId }}',
				simplify: false,
			},
			[{ alertId: monitoringAlertId }, { alertId: String(monitoringAlertId) }],
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toHaveLength(2);
		const alert = run.outputs[0][0];
		expect(alert.id).toBe(monitoringAlertId);
		expect(alert.status).toBe('NEW');
		expect(alert.person.id).toBe(highRiskPerson);
		expect(alert.score.results[0].reason).toMatch(/High-risk country/);

		const simple = await runAml({
			resource: 'alert',
			operation: 'getMonitoringAlert',
			alertId: String(monitoringAlertId),
			simplify: true,
		});
		expect(simple.status).toBe('success');
		expect(simple.outputs[0][0]).toEqual({
			id: monitoringAlertId,
			status: 'NEW',
			priority: 'HIGH',
			personId: highRiskPerson,
			transactionId: null,
			results: alert.score.results,
			createdTime: alert.createdTime,
		});
	});

	test('Get Monitoring Alert of an unknown id reports 404 with the spec meaning', async () => {
		const run = await runAml({
			resource: 'alert',
			operation: 'getMonitoringAlert',
			alertId: '987654321',
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Not found: the resource does not exist/);
	});

	test('Update Status to a configured code stores status and note; an unknown code is a 404 naming both causes', async () => {
		const run = await runAml({
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MONITORING',
			alertId: String(monitoringAlertId),
			status: 'CLOSED AS FALSE POSITIVE',
			note: 'Reviewed by e2e: not the listed person',
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toEqual({
			alertType: 'MONITORING',
			alertId: monitoringAlertId,
			status: 'CLOSED AS FALSE POSITIVE',
			note: 'Reviewed by e2e: not the listed person',
			updated: true,
		});
		let stored = (await control.get<any[]>('/alerts')).find((a) => a.id === monitoringAlertId);
		expect(stored.status).toBe('CLOSED AS FALSE POSITIVE');
		expect(stored.notes.map((n: any) => n.content)).toContain(
			'Reviewed by e2e: not the listed person',
		);

		const unknown = await runAml({
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MONITORING',
			alertId: String(monitoringAlertId),
			status: 'NO SUCH CODE',
		});
		expect(unknown.status).toBe('error');
		expect(unknown.error?.message).toMatch(/Not found/);
		expect(unknown.error?.message).toMatch(/status NO SUCH CODE not found/i);
		expect(unknown.error?.description).toMatch(
			/status code "NO SUCH CODE" is not configured for your organisation/,
		);
		stored = (await control.get<any[]>('/alerts')).find((a) => a.id === monitoringAlertId);
		expect(stored.status).toBe('CLOSED AS FALSE POSITIVE');
	});

	test('screening check of a sanctioned name → Get Screening Alert Hits (Return All, Limit, Simplify)', async () => {
		// cust-1006 is "Wiktor Drabienko", an alias of a record of the synthetic sanctions list.
		const check = await callService('POST', '/v1/persons/cust-1006/screening-checks');
		expect(check.matches.length).toBeGreaterThanOrEqual(1);
		const screeningAlertId = check.matches[0].alertId as number;
		const stored = (await control.get<any[]>('/screening-alerts')).find(
			(a) => a.id === screeningAlertId,
		);
		expect(stored.hits.length).toBeGreaterThanOrEqual(1);

		const all = await runAml({
			resource: 'alert',
			operation: 'getScreeningHits',
			screeningAlertId: String(screeningAlertId),
			returnAll: true,
			simplify: false,
		});
		expect(all.status).toBe('success');
		expect(all.outputs[0].map((h) => h.id)).toEqual(stored.hits.map((h: any) => h.id));
		expect(all.outputs[0][0].attributes.name).toBe('Viktor Drabenko');

		const mark = await control.mark();
		const limited = await runAml({
			resource: 'alert',
			operation: 'getScreeningHits',
			screeningAlertId: String(screeningAlertId),
			returnAll: false,
			limit: 1,
			simplify: true,
		});
		expect(limited.status).toBe('success');
		expect(limited.outputs[0]).toEqual([
			{
				id: stored.hits[0].id,
				name: 'Viktor Drabenko',
				listName: 'Synthetic Sanctions List',
				listType: 'SANCTION',
				score: stored.hits[0].score,
			},
		]);
		const requests = await apiRequestsSince(mark, `/screening-alerts/${screeningAlertId}/hits`);
		expect(requests).toHaveLength(1);
	});

	test('Create Manual Alert stores it; Update Manual Alert with status and note stores both', async () => {
		const comment = `Cash deposits just under the limit (${suffix})`;
		const created = await runAml({
			resource: 'alert',
			operation: 'createManualAlert',
			personId: 'cust-1001',
			transactionId: 'tx-cust-1001-1',
			rationale: 'UNUSUAL_TRANSACTION',
			rationaleComment: comment,
		});
		expect(created.status).toBe('success');
		const out = created.outputs[0][0];
		expect(out).toMatchObject({
			personId: 'cust-1001',
			transactionId: 'tx-cust-1001-1',
			rationale: 'UNUSUAL_TRANSACTION',
			rationaleComment: comment,
			status: 'NEW',
		});
		let stored = (await control.get<any[]>('/manual-alerts')).find((a) => a.id === out.id);
		expect(stored).toMatchObject({
			personId: 'cust-1001',
			transactionId: 'tx-cust-1001-1',
			rationale: 'UNUSUAL_TRANSACTION',
			rationaleComment: comment,
		});

		const updated = await runAml({
			resource: 'alert',
			operation: 'updateManualAlert',
			alertId: String(out.id),
			rationale: 'SUSPICIOUS_ACTIVITY',
			rationaleComment: '',
			status: 'CLOSED',
			note: `Closed after review (${suffix})`,
		});
		expect(updated.status).toBe('success');
		expect(updated.outputs[0][0]).toMatchObject({
			id: out.id,
			status: 'CLOSED',
			rationale: 'SUSPICIOUS_ACTIVITY',
		});
		stored = (await control.get<any[]>('/manual-alerts')).find((a) => a.id === out.id);
		expect(stored.status).toBe('CLOSED');
		expect(stored.rationale).toBe('SUSPICIOUS_ACTIVITY');
		expect(stored.rationaleComment).toBe(comment);
		expect(stored.notes.map((n: any) => n.content)).toContain(`Closed after review (${suffix})`);

		// Update Status also reaches manual alerts.
		const reopened = await runAml({
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MANUAL',
			alertId: String(out.id),
			status: 'IN_PROGRESS',
		});
		expect(reopened.status).toBe('success');
		stored = (await control.get<any[]>('/manual-alerts')).find((a) => a.id === out.id);
		expect(stored.status).toBe('IN_PROGRESS');
	});

	test('Update Manual Alert has no preset Rationale, so closing by status alone cannot rewrite the stored one', async () => {
		const mark = await control.mark();
		let message: string | undefined;
		try {
			const run = await runAml(
				{ resource: 'alert', operation: 'updateManualAlert', alertId: '501', status: 'CLOSED' },
				[{}],
				{},
				{ timeoutMs: 20_000 },
			);
			expect(run.status).toBe('error');
			message = run.error?.message;
		} catch (error) {
			// n8n 2.x already refuses to publish a workflow whose required parameter is empty; n8n 1.x publishes it and
			// refuses to start it (its log: "The workflow has issues"; its webhook: "There was a problem executing the
			// workflow")
			message = (error as Error).message;
		}
		expect(message).toMatch(/rationale|has issues|problem executing the workflow/i);
		expect(
			(await control.requestsSince(mark)).filter((r: { path: string }) =>
				r.path.includes('/manual-alerts'),
			),
		).toHaveLength(0);
	});

	describe('bad input fails before any request, naming item and field', () => {
		test.each([
			[
				'alert id "abc"',
				{ resource: 'alert', operation: 'getMonitoringAlert', alertId: '={{ $json.v }}' },
				[{ v: '1001' }, { v: 'abc' }],
				/Item 1: "Alert ID" must be a whole-number alert ID of at least 1\b.*"abc"/,
				'/alerts',
			],
			[
				'alert id 0 for get',
				{ resource: 'alert', operation: 'getMonitoringAlert', alertId: '0' },
				[{}],
				/Item 0: "Alert ID" must be a whole-number alert ID of at least 1/,
				'/alerts',
			],
			[
				'screening alert id 1.5',
				{
					resource: 'alert',
					operation: 'getScreeningHits',
					screeningAlertId: '1.5',
					returnAll: true,
				},
				[{}],
				/Item 0: "Screening Alert ID" must be a whole-number/,
				'/screening-alerts',
			],
			[
				'empty status',
				{
					resource: 'alert',
					operation: 'updateStatus',
					alertType: 'MONITORING',
					alertId: '={{ $json.id }}',
					status: '={{ $json.status }}',
				},
				[
					{ id: 5, status: 'CLOSED' },
					{ id: 6, status: '   ' },
				],
				/Item 1: "Status Code" must not be empty/,
				'/alerts',
			],
			[
				'negative alert id for status',
				{
					resource: 'alert',
					operation: 'updateStatus',
					alertType: 'SCREENING',
					alertId: '-1',
					status: 'CLOSED',
				},
				[{}],
				/Item 0: "Alert ID" must be a whole-number alert ID of at least 0/,
				'/alerts',
			],
			[
				'1001-character comment',
				{
					resource: 'alert',
					operation: 'createManualAlert',
					personId: 'cust-1001',
					rationale: 'OTHER',
					rationaleComment: '={{ $json.c }}',
				},
				[{ c: 'ok' }, { c: 'x'.repeat(1001) }],
				/Item 1: "Rationale Comment" may have at most 1000 characters \(has 1001\)/,
				'/manual-alerts',
			],
			[
				'comment that is an object',
				{
					resource: 'alert',
					operation: 'createManualAlert',
					personId: 'cust-1001',
					rationale: 'OTHER',
					rationaleComment: '={{ $json.c }}',
				},
				[{ c: 'ok' }, { c: { text: 'not text' } }],
				/Item 1: "Rationale Comment" must be text, not an object or a list \(value: \{"text":"not text"\}\)/,
				'/manual-alerts',
			],
			[
				'bad person id',
				{
					resource: 'alert',
					operation: 'createManualAlert',
					personId: 'cust 1001',
					rationale: 'OTHER',
				},
				[{}],
				/Item 0: "Person ID" may only contain/,
				'/manual-alerts',
			],
			[
				'note without status',
				{
					resource: 'alert',
					operation: 'updateManualAlert',
					alertId: '501',
					rationale: 'OTHER',
					note: 'only a note',
				},
				[{}],
				/Item 0: "Note" is only used together with a status change/,
				'/manual-alerts',
			],
		])('%s', async (_name, parameters, items, message, pathPart) => {
			const mark = await control.mark();
			const manualBefore = (await control.get<any[]>('/manual-alerts')).length;
			const run = await runAml(parameters, items);
			expect(run.status).toBe('error');
			expect(run.error?.message).toMatch(message);
			expect(run.error?.description).toMatch(/Nothing was sent to the AML service/);
			expect(await apiRequestsSince(mark, pathPart)).toHaveLength(0);
			expect((await control.get<any[]>('/manual-alerts')).length).toBe(manualBefore);
		});
	});
});
