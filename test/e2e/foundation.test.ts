import { amlCredentialData, context, control, n8n, runAml } from '../harness/context';

/** The package loads in real n8n, the credential works, tokens are economical, bad input is stopped. */
describe('foundation in real n8n', () => {
	beforeAll(async () => {
		await control.post('/reset');
	});

	test('Person → Get returns the seeded person', async () => {
		const run = await runAml(
			{ resource: 'person', operation: 'get', personId: '={{ $json.id }}' },
			[{ id: 'cust-1001' }, { id: 'cust-1003' }],
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0].map((p) => p.id)).toEqual(['cust-1001', 'cust-1003']);
		expect(run.outputs[0][0].attributes.last_name).toBe('Schmidt');
	});

	test('one run over many items costs one token request; an expired token costs exactly one more', async () => {
		await control.post('/reset');
		const client = n8n();
		const fresh = await client.createCredential(
			`fresh ${Date.now()}`,
			'amlOAuth2Api',
			amlCredentialData(),
		);
		const credentials = { amlOAuth2Api: fresh };
		const items = Array.from({ length: 60 }, (_, i) => ({
			id: `tok-${i}`,
			first_name: `Test${i}`,
			last_name: 'Token',
		}));
		const params = {
			resource: 'person',
			operation: 'create',
			personId: '={{ $json.id }}',
			personType: 'INDIVIDUAL',
			attributesMode: 'input',
			excludeInputFields: 'id',
			options: { parallelRequests: 8 },
		};
		const run = await client.runNode({ parameters: params, credentials }, items, { credentials });
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toHaveLength(60);
		let stats = await control.get('/stats');
		expect(stats.tokenRequests).toBe(1);
		const stored = await control.get<any[]>('/persons');
		expect(stored.filter((p) => p.id.startsWith('tok-'))).toHaveLength(60);
		expect(stored.find((p) => p.id === 'tok-7').attributes).toEqual({
			first_name: 'Test7',
			last_name: 'Token',
		});

		await control.post('/tokens/expire');
		const again = await client.runNode(
			{
				parameters: {
					resource: 'person',
					operation: 'get',
					personId: '={{ $json.id }}',
					options: { parallelRequests: 8 },
				},
				credentials,
			},
			items,
			{ credentials },
		);
		expect(again.status).toBe('success');
		expect(again.outputs[0]).toHaveLength(60);
		stats = await control.get('/stats');
		expect(stats.tokenRequests).toBe(2);
		expect(stats.tokenRequests429).toBe(0);
	});

	test('bad input fails before any request and names item, field and rule', async () => {
		const before = await control.mark();
		const run = await runAml(
			{
				resource: 'person',
				operation: 'create',
				personId: '={{ $json.id }}',
				personType: 'INDIVIDUAL',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			[
				{ id: 'ok-1', first_name: 'A' },
				{ id: 'ok-2', first_name: 'B' },
				{ id: 'bad id/3', first_name: 'C' },
			],
		);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Item 2: "Person ID" may only contain/);
		expect(run.error?.message).toContain('space');
		const after = await control.requestsSince(before);
		expect(after.filter((r) => r.path.startsWith('/api'))).toHaveLength(0);
		const stored = await control.get<any[]>('/persons');
		expect(stored.find((p) => p.id === 'ok-1')).toBeUndefined();
	});

	test('if the person already exists: skip leaves it, merge patches it, error reports 422 with the spec meaning', async () => {
		const base = {
			resource: 'person',
			operation: 'create',
			personId: 'cust-1002',
			personType: 'INDIVIDUAL',
			attributesMode: 'json',
		};
		const skip = await runAml({ ...base, attributesJson: '{"city":"Prague"}', onExisting: 'skip' });
		expect(skip.outputs[0][0].result).toBe('skipped');
		expect((await control.get('/persons/cust-1002')).attributes.city).toBe('Brno');
		const merge = await runAml({
			...base,
			attributesJson: '{"city":"Prague"}',
			onExisting: 'merge',
		});
		expect(merge.outputs[0][0].result).toBe('merged');
		const stored = await control.get('/persons/cust-1002');
		expect(stored.attributes).toMatchObject({ first_name: 'Lukas', city: 'Prague' });
		const error = await runAml({ ...base, attributesJson: '{}', onExisting: 'error' });
		expect(error.status).toBe('error');
		expect(error.error?.message).toMatch(/Already exists/);
		expect(error.error?.message).toMatch(/cust-1002 already exists/);
	});

	test('continue on fail keeps every item with pairing: an error item for the bad one', async () => {
		const run = await runAml(
			{ resource: 'person', operation: 'get', personId: '={{ $json.id }}' },
			[{ id: 'cust-1001' }, { id: 'no-such-person' }, { id: 'cust-1004' }],
			{ continueOnFail: true },
		);
		expect(run.status).toBe('success');
		const out = run.outputs[0];
		expect(out).toHaveLength(3);
		expect(out[0].id).toBe('cust-1001');
		expect(out[1].error).toMatch(/Not found/);
		expect(out[2].id).toBe('cust-1004');
	});

	test('On Error "Continue (using error output)": the failed item leaves on the error output, the others on the main one; a check that failed (not one that blocked) too', async () => {
		const run = await runAml(
			{ resource: 'person', operation: 'get', personId: '={{ $json.id }}' },
			[{ id: 'cust-1001' }, { id: 'no-such-person' }, { id: 'cust-1004' }],
			{ continueErrorOutput: true },
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0].map((i) => i.id)).toEqual(['cust-1001', 'cust-1004']);
		expect(run.outputs[1]).toHaveLength(1);
		// n8n keeps only `error` (and, on 2.41, `details`) in an error-output item: the message is in `error`, the
		// fields the item has with "Continue" under `details`
		expect(run.outputs[1][0].error).toMatch(/^Not found: .*no-such-person/);
		expect(run.execution.data.resultData.runData.AML[0].data.main[1][0]).toMatchObject({
			pairedItem: { item: 1 },
			json: { details: expect.objectContaining({ itemIndex: 1, httpCode: '404' }) },
		});

		const check = await runAml(
			{
				resource: 'transaction',
				operation: 'runMonitoringCheck',
				transactionId: '={{ $json.id }}',
			},
			[{ id: 'no-such-transaction' }],
			{ continueErrorOutput: true },
		);
		expect(check.status).toBe('success');
		// Block is output 0, Clear output 1, n8n's error output 2
		const [block, clear, errors] = check.outputs;
		expect(clear ?? []).toEqual([]);
		expect(block ?? []).toEqual([]);
		// n8n merges the item over its input item (`id`)
		expect(errors).toEqual([
			{
				id: 'no-such-transaction',
				error: expect.stringMatching(/^Not found/),
				details: expect.objectContaining({
					decision: 'block',
					transactionId: 'no-such-transaction',
				}),
			},
		]);
	});

	test('a base URL that redirects elsewhere gets no token sent on: the node fails naming the redirect, the credential test fails', async () => {
		const http = await import('node:http');
		const sandboxUrl = context().sandbox.baseUrl;
		// The configured base URL answers every request with a redirect to another origin (here: the sandbox).
		const seen: Array<{ url?: string; authorization?: string }> = [];
		const redirector = http.createServer((req, res) => {
			seen.push({ url: req.url, authorization: req.headers.authorization });
			req.resume();
			res.writeHead(302, { location: `${sandboxUrl}${req.url}` }).end();
		});
		await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
		const port = (redirector.address() as { port: number }).port;
		try {
			const client = n8n();
			const cred = await client.createCredential(
				`redirecting ${Date.now()}`,
				'amlOAuth2Api',
				amlCredentialData({ baseUrl: `http://127.0.0.1:${port}` }),
			);
			const before = await control.mark();
			const run = await client.runNode(
				{
					parameters: { resource: 'person', operation: 'get', personId: 'cust-1001' },
					credentials: { amlOAuth2Api: cred },
					continueOnFail: true,
				},
				[{}],
				{ credentials: { amlOAuth2Api: cred } },
			);
			expect(run.outputs[0][0].error).toMatch(/^Redirect \(HTTP 302\).*base URL/);
			// the new credential's token step (the credential test's read), then the item's request: neither followed
			expect(seen.map((r) => r.url)).toEqual([
				'/api/v1/screening-list-groups',
				'/api/v1/persons/cust-1001',
			]);
			for (const request of seen) expect(request.authorization).toMatch(/^Bearer /);
			// The other origin got the token request of the credential's token URL, and no API request at all.
			const after = await control.requestsSince(before);
			expect(after.filter((r) => r.path.startsWith('/api/'))).toEqual([]);
			expect((await client.testCredential(cred.id)).status).not.toBe('OK');
			expect(
				(await control.requestsSince(before)).filter((r) => r.path.startsWith('/api/')),
			).toEqual([]);
		} finally {
			await new Promise((resolve) => redirector.close(resolve));
		}
	});

	test('no secret in the n8n log', async () => {
		const fs = await import('node:fs');
		const log = fs.readFileSync(context().n8n.logFile, 'utf8');
		expect(log).not.toContain(context().sandbox.clientSecret);
	});
});
