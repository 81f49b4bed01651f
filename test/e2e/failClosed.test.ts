import { randomUUID } from 'node:crypto';

import type { CredentialRef, Json, RunResult } from '../harness/client';
import { amlCredentialData, control, n8n, runAml } from '../harness/context';
import { upload } from '../harness/upload';

/**
 * A payment gate never lets a payment through by mistake (issue 35): what an item reports agrees with what the
 * sandbox stored and with what was really sent, under faults at the token endpoint and at the service. Small tables
 * (fault × operation × On Error setting) that grow into the full matrix: a new row is one entry.
 *
 * Token endpoint faults need a credential without a token (the first fetch) or with an expired one (the renewal):
 * each row makes its own credential. The token endpoint's own limit (5 a minute) is raised for this file, so that only
 * the injected faults answer 429.
 */
const suffix = randomUUID().slice(0, 6);
const made: CredentialRef[] = [];

type Logged = { seq: number; method: string; path: string; status: number | string };
const since = async (mark: number): Promise<Logged[]> =>
	(await control.requestsSince(mark)) as Logged[];
const tokenRequests = (log: Logged[]) => log.filter((r) => r.path === '/oauth/token');
const apiRequests = (log: Logged[]) => log.filter((r) => r.path.startsWith('/api/'));

beforeAll(async () => {
	await control.post('/reset');
	await control.post('/config', { tokenRateLimit: { max: 1000, windowSeconds: 60 } });
});

afterEach(async () => {
	await control.del('/faults');
});

afterAll(async () => {
	await control.post('/config', { tokenRateLimit: { max: 5, windowSeconds: 60 } });
	for (const credential of made)
		await n8n()
			.deleteCredential(credential.id)
			.catch(() => undefined);
	await n8n().cleanup();
});

/** A new AML credential: it holds no token until its first request. */
async function freshCredential(label: string): Promise<CredentialRef> {
	const credential = await n8n().createCredential(
		`fc ${label} ${randomUUID().slice(0, 6)}`,
		'amlOAuth2Api',
		amlCredentialData(),
	);
	made.push(credential);
	return credential;
}

/** A credential that holds a token, then every token expires: its next request renews. */
async function expiredCredential(label: string): Promise<CredentialRef> {
	const credential = await freshCredential(label);
	const first = await runAml(
		{ resource: 'person', operation: 'get', personId: 'cust-1001' },
		[{}],
		{},
		{ credentials: { amlOAuth2Api: credential }, reuse: false },
	);
	expect(first.status).toBe('success');
	await control.post('/tokens/expire');
	return credential;
}

const oauthBody = (error: string, description: string) =>
	JSON.stringify({ error, error_description: description });

/** Token endpoint faults (sandbox rules for `POST /oauth/token`); `times` 1: the next request only. */
const TOKEN_FAULTS: Record<string, Json> = {
	drop: { dropRate: 1, times: 1 },
	'429 OAuth body + Retry-After': {
		answer: {
			status: 429,
			body: oauthBody('too_many_requests', 'token endpoint rate limit'),
			contentType: 'application/json',
			headers: { 'retry-after': '1' },
		},
		times: 1,
	},
	'503': { errorRate: 1, errorStatus: 503, times: 1 },
};
const INVALID_CLIENT = {
	answer: {
		status: 401,
		body: oauthBody('invalid_client', 'Bad client credentials'),
		contentType: 'application/json',
	},
};

async function tokenFault(rule: Json): Promise<void> {
	await control.post('/faults', { rules: [{ method: 'POST', path: '^/oauth/token$', ...rule }] });
}

interface OperationRow {
	parameters: Json;
	items?: Json[];
	/** What the item reports and what the sandbox saw, after a token endpoint that failed once and then answered. */
	check: (run: RunResult, api: Logged[]) => Promise<void> | void;
}

/**
 * Operations of every retry mode, each where a misread token failure would report something the service did not do:
 * a delete whose repeat finds nothing (safe, doneOnRepeat 404), a create of an existing ID (create, 422), a one-shot
 * (none), a check (safe, decides a payment).
 */
const OPERATIONS: Record<string, OperationRow> = {
	'Person Delete of an ID that never existed': {
		parameters: { resource: 'person', operation: 'delete', personId: `never-${suffix}` },
		check: (run, api) => {
			expect(run.status).toBe('error');
			expect(run.error?.message).toMatch(/^Not found/);
			expect(api.map((r) => `${r.method} ${r.status}`)).toEqual(['DELETE 404']);
		},
	},
	'Person Create (Error if it exists) of an existing ID': {
		parameters: {
			resource: 'person',
			operation: 'create',
			personId: 'cust-1001',
			personType: 'INDIVIDUAL',
			attributesMode: 'json',
			attributesJson: '{"first_name":"Again"}',
			onExisting: 'error',
		},
		check: (run, api) => {
			expect(run.status).toBe('error');
			expect(run.error?.message).toMatch(/^Already exists/);
			expect(api.map((r) => `${r.method} ${r.status}`)).toEqual(['POST 422']);
		},
	},
	'Create Manual Alert (one-shot)': {
		parameters: {
			resource: 'alert',
			operation: 'createManualAlert',
			personId: 'cust-1001',
			rationale: 'OTHER',
			rationaleComment: `token fault ${suffix}`,
		},
		check: async (run, api) => {
			expect(run.status).toBe('success');
			expect(run.outputs[0][0]).toMatchObject({ personId: 'cust-1001' });
			expect(api.map((r) => `${r.method} ${r.status}`)).toEqual(['POST 200']);
		},
	},
	'Transaction Run Monitoring Check (clear transaction)': {
		parameters: {
			resource: 'transaction',
			operation: 'runMonitoringCheck',
			transactionId: 'tx-cust-1001-1',
			routeOutputs: false,
		},
		check: (run, api) => {
			expect(run.status).toBe('success');
			expect(run.outputs[0]).toEqual([
				expect.objectContaining({ transactionId: 'tx-cust-1001-1', decision: 'clear' }),
			]);
			expect(run.outputs[0][0].afterLostAnswer).toBeUndefined();
			expect(api.map((r) => `${r.method} ${r.status}`)).toEqual(['POST 200']);
		},
	},
};

describe('defect 1: a failure at the token endpoint is never a service request that may have been applied', () => {
	const rows = Object.keys(TOKEN_FAULTS).flatMap((fault) =>
		(['first fetch', 'renewal'] as const).flatMap((when) =>
			Object.keys(OPERATIONS).map((operation) => [fault, when, operation] as const),
		),
	);
	test.each(rows)(
		'token endpoint %s on the %s → %s reports what the service did',
		async (fault, when, operation) => {
			const row = OPERATIONS[operation];
			const credential =
				when === 'first fetch' ? await freshCredential(fault) : await expiredCredential(fault);
			await tokenFault(TOKEN_FAULTS[fault]);
			const mark = await control.mark();
			const run = await runAml(
				row.parameters,
				row.items ?? [{}],
				{},
				{ credentials: { amlOAuth2Api: credential }, reuse: false },
			);
			const log = await since(mark);
			// the token endpoint failed once, was asked again (after a wait) and answered; the service saw one request
			const tokens = tokenRequests(log).map((r) => r.status);
			expect(tokens[0]).not.toBe(200);
			expect(tokens.slice(1).every((status) => status === 200)).toBe(true);
			expect(tokens.length).toBeGreaterThanOrEqual(2);
			// on a renewal the first request is the refused one (401), answered by the renewal
			const api = apiRequests(log).filter((r) => r.status !== 401 || when !== 'renewal');
			await row.check(run, api);
			expect(JSON.stringify(run.outputs)).not.toMatch(/afterLostAnswer|may have been applied/);
			expect(run.error?.message ?? '').not.toMatch(/may have been applied/);
		},
	);
});

describe('defect 6: a token endpoint that refuses the client stops the run: one token request, reported as the credential refused', () => {
	test.each(['first fetch', 'renewal'] as const)(
		'invalid_client on the %s: 10 items, Continue On Fail → 10 error items naming the refused credential, one token request',
		async (when) => {
			const credential =
				when === 'first fetch'
					? await freshCredential('invalid')
					: await expiredCredential('invalid');
			await tokenFault(INVALID_CLIENT);
			const mark = await control.mark();
			const items = Array.from({ length: 10 }, () => ({ id: 'cust-1001' }));
			const run = await runAml(
				{ resource: 'person', operation: 'get', personId: '={{ $json.id }}' },
				items,
				{ continueOnFail: true },
				{ credentials: { amlOAuth2Api: credential }, reuse: false },
			);
			const log = await since(mark);
			expect(tokenRequests(log).map((r) => r.status)).toEqual([401]);
			expect(run.status).toBe('success');
			expect(run.outputs[0]).toHaveLength(10);
			for (const item of run.outputs[0]) {
				expect(item.error).toMatch(/token endpoint refused the credential/);
				expect(item.error).not.toMatch(/Rate limit|may have been applied/);
			}
			// the renewal follows the one request the expired token was refused for; nothing else reaches the service
			expect(apiRequests(log).map((r) => r.status)).toEqual(when === 'renewal' ? [401] : []);
		},
	);
});

/** Check operations, each asked about an ID the service does not know (404: a non-retryable failure). */
const CHECKS: Record<
	string,
	{ parameters: Json; outputs: number; blockOutput: number; idKey: string }
> = {
	'Transaction Run Monitoring Check, Clear/Block outputs': {
		parameters: {
			resource: 'transaction',
			operation: 'runMonitoringCheck',
			transactionId: `unknown-${suffix}`,
		},
		outputs: 2,
		blockOutput: 1,
		idKey: 'transactionId',
	},
	'Transaction Run Monitoring Check, one output': {
		parameters: {
			resource: 'transaction',
			operation: 'runMonitoringCheck',
			transactionId: `unknown-${suffix}`,
			routeOutputs: false,
		},
		outputs: 1,
		blockOutput: 0,
		idKey: 'transactionId',
	},
	'Transaction Run Screening Check, Clear/Block outputs': {
		parameters: {
			resource: 'transaction',
			operation: 'runScreeningCheck',
			transactionId: `unknown-${suffix}`,
		},
		outputs: 2,
		blockOutput: 1,
		idKey: 'transactionId',
	},
	'Person Run Monitoring Check': {
		parameters: {
			resource: 'person',
			operation: 'runMonitoringCheck',
			personId: `unknown-${suffix}`,
		},
		outputs: 1,
		blockOutput: 0,
		idKey: 'personId',
	},
	'Person Run Screening Check': {
		parameters: {
			resource: 'person',
			operation: 'runScreeningCheck',
			personId: `unknown-${suffix}`,
		},
		outputs: 1,
		blockOutput: 0,
		idKey: 'personId',
	},
	'Person Has Unresolved Alerts': {
		parameters: {
			resource: 'person',
			operation: 'hasUnresolvedAlerts',
			personId: `unknown-${suffix}`,
		},
		outputs: 1,
		blockOutput: 0,
		idKey: 'personId',
	},
	'Transaction Has Unresolved Alerts': {
		parameters: {
			resource: 'transaction',
			operation: 'hasUnresolvedAlerts',
			transactionId: `unknown-${suffix}`,
		},
		outputs: 1,
		blockOutput: 0,
		idKey: 'transactionId',
	},
};
const ON_ERROR = {
	'Continue (regular output)': { continueOnFail: true },
	'Continue (using error output)': { continueErrorOutput: true },
} as const;

describe('defect 2: a check item that failed carries decision "block" with the reason, on every output it can take', () => {
	const rows = Object.keys(CHECKS).flatMap((check) =>
		(Object.keys(ON_ERROR) as Array<keyof typeof ON_ERROR>).map((mode) => [check, mode] as const),
	);
	test.each(rows)('%s, On Error %s: unknown ID (404)', async (check, mode) => {
		const row = CHECKS[check];
		const run = await runAml(row.parameters, [{}], ON_ERROR[mode]);
		expect(run.status).toBe('success');
		// n8n adds the error output after the node's own outputs
		const output = mode === 'Continue (using error output)' ? row.outputs : row.blockOutput;
		const everywhere = run.outputs.flatMap((items, index) =>
			items.map((item) => ({ index, item })),
		);
		expect(everywhere.map(({ index }) => index)).toEqual([output]);
		const [{ item }] = everywhere;
		if (mode === 'Continue (using error output)') {
			// n8n rebuilds every item of its error output from the error's message alone (as for its own nodes): an item
			// there is a failure, whatever it carried
			expect(item).toEqual({ error: expect.stringMatching(/^Not found/) });
			return;
		}
		expect(item).toMatchObject({
			[row.idKey]: `unknown-${suffix}`,
			decision: 'block',
			httpCode: '404',
		});
		expect(item.reason).toMatch(/^check failed: Not found/);
	});

	test('Has Unresolved Alerts on a malformed 200 (no flag): fails like a check (Block), never "no alerts"', async () => {
		await control.post('/faults', {
			rules: [
				{
					method: 'GET',
					path: '^/api/v1/transactions/tx-cust-1001-1/unresolved-alerts$',
					answer: { status: 200, body: '{}', contentType: 'application/json' },
				},
			],
		});
		const parameters = {
			resource: 'transaction',
			operation: 'hasUnresolvedAlerts',
			transactionId: 'tx-cust-1001-1',
		};
		const stopped = await runAml(parameters);
		expect(stopped.status).toBe('error');
		expect(stopped.error?.message).toMatch(/could not be read/);
		const continued = await runAml(parameters, [{}], { continueOnFail: true });
		expect(continued.outputs[0]).toEqual([
			expect.objectContaining({ transactionId: 'tx-cust-1001-1', decision: 'block' }),
		]);
		expect(continued.outputs[0][0].hasUnresolvedAlerts).toBeUndefined();
		expect(continued.outputs[0][0].reason).toMatch(/^check failed: .*could not be read/);
	});
});

describe('defects 3 and 4: an upload the service did not complete never leaves on the success output, and its ID is never lost', () => {
	const badRows = [
		{
			id: `fu-${suffix}-1`,
			person_id: 'cust-1001',
			timestamp: '2026-01-01T00:00:00Z',
			amount: '1.00',
			direction: 'I',
		},
		{
			id: `fu-${suffix}-2`,
			person_id: 'cust-1001',
			timestamp: 'yesterday',
			amount: '2.00',
			direction: 'O',
		},
	];
	const goodRows = [{ id: `fu-${suffix}-p`, type: 'INDIVIDUAL', first_name: 'Poll' }];

	test('FAILED, "Continue (using error output)": the item with the status and reason goes to the error output', async () => {
		const run = await upload(
			{ rows: badRows },
			{ uploadType: 'TRANSACTION' },
			{ onError: 'continueErrorOutput' },
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toEqual([]);
		// n8n keeps the error's message on its error output: it names the upload, its status and reason
		expect(run.outputs[1]).toEqual([
			{
				error: expect.stringMatching(
					/^Upload \d+ \(data\.csv\) ended with status FAILED: line 3: timestamp/,
				),
			},
		]);
		const cof = await upload(
			{ rows: badRows },
			{ uploadType: 'TRANSACTION' },
			{ onError: 'continueRegularOutput' },
		);
		expect(cof.outputs[0]).toEqual([
			expect.objectContaining({
				status: 'FAILED',
				success: false,
				uploadId: expect.any(Number),
				error: expect.stringMatching(/FAILED/),
			}),
		]);
	});

	test('still processing after Max Wait (status reads time out), "Continue (using error output)": the timed-out item goes to the error output', async () => {
		await control.post('/faults', {
			rules: [{ method: 'GET', path: '^/api/v1/data-upload/\\d+/status$', hangRate: 1 }],
		});
		const run = await upload(
			{ rows: goodRows },
			{ uploadType: 'PERSON', options: { maxWait: 1, timeout: 1000 } },
			{ onError: 'continueErrorOutput' },
		);
		expect(run.outputs[0]).toEqual([]);
		expect(run.outputs[1]).toEqual([
			{
				error: expect.stringMatching(
					/^Upload (\d+) \(data\.csv\): its status could not be read .* check later with Get Status, upload id \1$/,
				),
			},
		]);
	});

	test('a status poll refused for good (403) after the 202: the error names the upload ID and that the file was accepted', async () => {
		await control.post('/faults', {
			rules: [
				{
					method: 'GET',
					path: '^/api/v1/data-upload/\\d+/status$',
					errorRate: 1,
					errorStatus: 403,
				},
			],
		});
		const before = (await control.get<Json[]>('/uploads')).length;
		const run = await upload({ rows: goodRows }, { uploadType: 'PERSON' });
		const uploads = await control.get<Json[]>('/uploads');
		expect(uploads).toHaveLength(before + 1);
		const uploadId = uploads[uploads.length - 1].id;
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			new RegExp(`^Upload ${uploadId} \\(data\\.csv\\) was accepted by the service`),
		);
		expect(run.error?.description).toMatch(
			new RegExp(`Do not upload it again: use Data Upload → Get Status with upload id ${uploadId}`),
		);
		const cof = await upload(
			{ rows: goodRows.map((r) => ({ ...r, id: `${r.id}-2` })) },
			{ uploadType: 'PERSON' },
			{ onError: 'continueRegularOutput' },
		);
		expect(cof.output).toEqual([
			expect.objectContaining({ uploadId: expect.any(Number), status: 'UNKNOWN', success: false }),
		]);
	});
});

describe('smaller: Sync counts only what it archived', () => {
	test('an archive answered 404 ("already gone") is not counted as archived', async () => {
		const { id: listId } = await control.post<{ id: string }>('/custom-lists', {
			name: `sync gone ${suffix}`,
		});
		const created = await runAml(
			{
				resource: 'customList',
				operation: 'create',
				customListId: listId,
				recordId: '={{ $json.id }}',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			['a', 'b', 'c'].map((id) => ({ id, name: id })),
		);
		expect(created.status).toBe('success');
		await control.post('/faults', {
			rules: [
				{
					method: 'DELETE',
					path: `^/api/v1/custom-lists/${listId}/records/c$`,
					answer: {
						status: 404,
						body: '{"message":"record c not found"}',
						contentType: 'application/json',
					},
				},
			],
		});
		const run = await runAml(
			{
				resource: 'customList',
				operation: 'sync',
				customListId: listId,
				recordId: '={{ $json.id }}',
				attributesMode: 'input',
				excludeInputFields: 'id',
				onMissing: 'archive',
				options: { maxArchivePercent: 100 },
			},
			[{ id: 'a', name: 'a' }],
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({
			archived: 1,
			archivedIds: ['b'],
			alreadyArchived: 1,
			alreadyArchivedIds: ['c'],
		});
	});
});
