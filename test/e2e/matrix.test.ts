import { randomUUID } from 'node:crypto';

import type { CredentialRef, Json } from '../harness/client';
import {
	amlCredentialData,
	control,
	customListSyncFromInput,
	n8n,
	runAml,
} from '../harness/context';
import {
	cleanupMatrix,
	closedPortUrl,
	FAULTS,
	mismatches,
	ON_ERROR,
	OPERATIONS,
	prepareMatrix,
	runRow,
	runToolRow,
	TOOL_OPERATIONS,
	toolMismatches,
	type Ids,
} from '../harness/matrix';
import { upload } from '../harness/upload';

/**
 * A payment gate never lets a payment through by mistake (issue 35): the fault matrix. Every operation of the AML
 * node (test/harness/matrix.ts: OPERATIONS) under every fault (FAULTS: the token endpoint on the first fetch and on a
 * renewal, the service request refused, dropped after it was stored, timed out, 503, 429, 401 after a renewal, 403,
 * 404, malformed 200s) in each On Error setting (Stop, Continue and Continue (using error output), for every operation):
 * what the item reports (its output, `decision` and reason, the error text and
 * whether it says "may have been applied") agrees with the rule `expected` and with what the sandbox received and
 * stored. Then the rows beyond one item: a refused client with 10 items, uploads the service did not complete, Sync.
 *
 * The token endpoint's own limit (5 a minute) is raised for this file, so that only the injected faults answer 429.
 */
const suffix = randomUUID().slice(0, 6);
const made: CredentialRef[] = [];

type Logged = { seq: number; method: string; path: string; status: number | string };
const since = async (mark: number): Promise<Logged[]> =>
	(await control.requestsSince(mark)) as Logged[];
const tokenRequests = (log: Logged[]) => log.filter((r) => r.path === '/oauth/token');
const apiRequests = (log: Logged[]) => log.filter((r) => r.path.startsWith('/api/'));

let base: Omit<Ids, 'u'>;
let closedUrl: string;

beforeAll(async () => {
	await control.post('/reset');
	await control.post('/config', { tokenRateLimit: { max: 100000, windowSeconds: 60 } });
	base = await prepareMatrix();
	closedUrl = await closedPortUrl();
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
	await cleanupMatrix();
	await n8n().cleanup();
});

describe('the matrix: every operation under every fault, in each On Error setting', () => {
	test('the table holds every operation of the node', () => {
		const { resources } =
			require('../../nodes/Aml/actions/router') as typeof import('../../nodes/Aml/actions/router');
		const all = Object.entries(resources).flatMap(([resource, module]) =>
			Object.keys(module.operations).map((operation) => `${resource}.${operation}`),
		);
		expect(OPERATIONS.map((operation) => operation.name).sort()).toEqual(all.sort());
	});

	test.each(FAULTS.map((fault) => [fault.name, fault] as const))('%s', async (_name, fault) => {
		const runs = await runRow(fault, base, OPERATIONS, ON_ERROR, { closedUrl });
		const problems: string[] = [];
		for (const run of runs) problems.push(...(await mismatches(run, fault)));
		expect(problems).toEqual([]);
	});
});

describe('tool mode: every check and the Gate as an AI tool called through the MCP Server Trigger, under every fault', () => {
	test.each(FAULTS.map((fault) => [fault.name, fault] as const))('%s', async (_name, fault) => {
		const runs = await runToolRow(fault, base, TOOL_OPERATIONS, { closedUrl });
		expect(runs.flatMap((run) => toolMismatches(run, fault))).toEqual([]);
	});
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
		// n8n keeps the error's message on its error output: it names the upload, its status and reason; the item's
		// fields under `details` (n8n 2.41)
		expect(run.outputs[1]).toEqual([
			{
				error: expect.stringMatching(
					/^Upload \d+ \(data\.csv\) ended with status FAILED: line 3: timestamp/,
				),
				details: expect.objectContaining({ status: 'FAILED', uploadId: expect.any(Number) }),
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
				details: expect.objectContaining({ uploadId: expect.any(Number) }),
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
		const run = await runAml(customListSyncFromInput(listId, { maxArchivePercent: 100 }), [
			{ id: 'a', name: 'a' },
		]);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({
			archived: 1,
			archivedIds: ['b'],
			alreadyArchived: 1,
			alreadyArchivedIds: ['c'],
		});
	});
});
