import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import type { INodeExecutionData } from 'n8n-workflow';

import { BLOCK_OUTPUT } from '../../nodes/Aml/actions/outputs';
import { router } from '../../nodes/Aml/actions/router';

/**
 * Every operation of the AML node, run through the router with n8n's real HTTP client (`httpRequest`, axios)
 * against a local recorder: the method, path, query and body each operation sends, and its retry mode, observed
 * (the recorder answers the first request of each run 503: a repeatable request is sent again, a one-shot one is
 * not). A change to one operation is checked here in seconds, before the e2e suite runs it in real n8n.
 * Data Upload → Upload (a multipart stream of n8n's binary data) is checked the same way in dataUpload.test.ts.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { httpRequest } = require(
	path.join(require.resolve('@n8n/backend-network'), '..', 'http', 'axios', 'request.js'),
);

type Seen = { method: string; path: string; query: string; body: unknown };

const LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';
const page = { number: 0, size: 50, total: 0, content: [] };
/** What the recorder answers (after the first 503), by path. */
function answer(method: string, url: string): unknown {
	if (/monitoring-checks|screening-checks/.test(url)) return { results: [], matches: [] };
	if (/screening-searches/.test(url)) return [];
	if (/screening-list-groups/.test(url)) return [{ code: 'SANCTIONS', name: 'Sanctions' }];
	if (/screening-fields/.test(url)) return [];
	if (/unresolved-alerts/.test(url)) return { hasUnresolvedAlerts: false };
	if (/\/status$/.test(url) && method === 'GET')
		return { id: 7, status: 'COMPLETED', reason: null };
	if (
		/persons\/search|\/transactions\?|\/records\?|custom-lists\?|\/hits/.test(url) ||
		(method === 'GET' && /\/(records|transactions|hits)$/.test(url.split('?')[0]))
	)
		return page;
	// as the interface describes them: the node fails an answer without its fields (could not be read)
	if (/\/statuses$/.test(url)) return { statuses: [], snoozeHistory: [] };
	if (/\/risks$/.test(url)) return { finalRisk: 'LOW', risks: [] };
	return { id: 'x' };
}

async function recorder() {
	const seen: Seen[] = [];
	let first = true;
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (c) => (body += c));
		req.on('end', () => {
			const [p, q = ''] = (req.url ?? '').split('?');
			let parsed: unknown = body;
			try {
				parsed = body ? JSON.parse(body) : undefined;
			} catch {
				/* text */
			}
			seen.push({ method: req.method ?? '', path: p, query: q, body: parsed });
			if (first) {
				first = false;
				res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"try again"}');
				return;
			}
			res
				.writeHead(200, { 'content-type': 'application/json' })
				.end(JSON.stringify(answer(req.method ?? '', req.url ?? '')));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		baseUrl,
		seen,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

function executeContext(baseUrl: string, parameters: Record<string, unknown>) {
	const node = {
		id: 'n1',
		name: 'AML',
		type: 'n8n-nodes-aml.aml',
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const get = (name: string) =>
		name
			.split('.')
			.reduce<unknown>(
				(at, key) =>
					at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined,
				parameters,
			);
	return {
		getNode: () => node,
		getInputData: () => [{ json: {} }],
		getNodeParameter: (name: string, _i: number, fallback?: unknown) => get(name) ?? fallback,
		getCredentials: async () => ({
			baseUrl,
			apiPathPrefix: '/api',
			accessTokenUrl: `${baseUrl}/oauth/token`,
			clientSecret: 'secret',
			gateSigningSecrets: 'unit-1=in-process gate key, long enough',
			oauthTokenData: { access_token: 'tok', token_type: 'Bearer' },
		}),
		continueOnFail: () => false,
		getExecutionId: () => 'e1',
		getExecutionCancelSignal: () => undefined,
		addExecutionHints: () => undefined,
		helpers: {
			httpRequest: async (options: Record<string, unknown>) => await httpRequest(options),
			httpRequestWithAuthentication: async (_t: string, options: Record<string, unknown>) =>
				await httpRequest(options),
			refreshOAuth2Token: async () => ({ access_token: 'tok' }),
		},
	} as never;
}

const json = (attributes: object) => ({
	attributesMode: 'json',
	attributesJson: JSON.stringify(attributes),
});
type Case = [
	string,
	string,
	Record<string, unknown>,
	{
		method: string;
		path: string;
		query?: RegExp;
		body?: unknown;
		repeated: boolean;
		/** A check that routes: the 503 blocks the item (not repeated: the check may have run). */
		blocks?: boolean;
	},
];

const cases: Case[] = [
	[
		'person',
		'create',
		{ personId: 'p-1', personType: 'INDIVIDUAL', onExisting: 'error', ...json({ country: 'DE' }) },
		{
			method: 'POST',
			path: '/api/v2/persons',
			body: { id: 'p-1', type: 'INDIVIDUAL', attributes: { country: 'DE' } },
			repeated: true,
		},
	],
	[
		'person',
		'get',
		{ personId: 'p-1' },
		{ method: 'GET', path: '/api/v1/persons/p-1', repeated: true },
	],
	[
		'person',
		'replace',
		{ personId: 'p-1', personType: 'LEGAL', ...json({ name: 'X' }) },
		{
			method: 'PUT',
			path: '/api/v2/persons/p-1',
			body: { type: 'LEGAL', attributes: { name: 'X' } },
			repeated: true,
		},
	],
	[
		'person',
		'update',
		{ personId: 'p-1', ...json({ name: 'X' }) },
		{
			method: 'PATCH',
			path: '/api/v2/persons/p-1',
			body: { attributes: { name: 'X' } },
			repeated: true,
		},
	],
	[
		'person',
		'search',
		{
			category: 'CUSTOMER',
			logicalOperator: 'AND',
			returnAll: false,
			limit: 5,
			filters: { filter: [] },
		},
		{ method: 'POST', path: '/api/v2/persons/search', repeated: true },
	],
	[
		'person',
		'delete',
		{ personId: 'p-1' },
		{ method: 'DELETE', path: '/api/v2/persons/p-1', repeated: true },
	],
	[
		'person',
		'getStatusHistory',
		{ personId: 'p-1' },
		{ method: 'GET', path: '/api/v1/persons/p-1/statuses', repeated: true },
	],
	[
		'person',
		'getRisk',
		{ personId: 'p-1' },
		{ method: 'GET', path: '/api/v1/persons/p-1/risks', repeated: true },
	],
	[
		'person',
		'addNote',
		{ personId: 'p-1', content: 'checked' },
		{
			method: 'POST',
			path: '/api/v1/persons/p-1/notes',
			body: { content: 'checked' },
			repeated: false,
		},
	],
	[
		'person',
		'runMonitoringCheck',
		{ personId: 'p-1', allResults: false },
		{
			method: 'POST',
			path: '/api/v1/persons/p-1/monitoring-checks',
			query: /all-results=false/,
			repeated: false,
		},
	],
	[
		'person',
		'runScreeningCheck',
		{ personId: 'p-1' },
		{ method: 'POST', path: '/api/v1/persons/p-1/screening-checks', repeated: false },
	],
	[
		'person',
		'setStatus',
		{ personId: 'p-1', setFields: { status: 'REVIEWED' } },
		{
			method: 'PATCH',
			path: '/api/v1/persons/p-1',
			body: { id: 'p-1', status: 'REVIEWED' },
			repeated: true,
		},
	],
	[
		'person',
		'hasUnresolvedAlerts',
		{ personId: 'p-1' },
		{ method: 'GET', path: '/api/v1/persons/p-1/unresolved-alerts', repeated: true },
	],
	[
		'transaction',
		'create',
		{
			personId: 'p-1',
			transactionId: 't-1',
			onExisting: 'error',
			...json({ amount: '10.00', timestamp: '2026-01-01T00:00:00Z' }),
		},
		{
			method: 'POST',
			path: '/api/v1/persons/p-1/transactions',
			body: { id: 't-1', attributes: { amount: '10.00', timestamp: '2026-01-01T00:00:00Z' } },
			repeated: true,
		},
	],
	// the store first (then the two checks side by side, proven in the e2e gate suite)
	[
		'transaction',
		'gate',
		{
			personId: 'p-1',
			transactionId: 't-1',
			onExisting: 'skip',
			routeOutputs: true,
			...json({ amount: '10.00' }),
		},
		{
			method: 'POST',
			path: '/api/v1/persons/p-1/transactions',
			body: { id: 't-1', attributes: { amount: '10.00' } },
			repeated: true,
		},
	],
	[
		'transaction',
		'get',
		{ personId: 'p-1', transactionId: 't-1' },
		{ method: 'GET', path: '/api/v1/persons/p-1/transactions/t-1', repeated: true },
	],
	[
		'transaction',
		'getAll',
		{ personId: 'p-1', returnAll: false, limit: 5 },
		{ method: 'GET', path: '/api/v1/persons/p-1/transactions', query: /size=5/, repeated: true },
	],
	[
		'transaction',
		'update',
		{ personId: 'p-1', transactionId: 't-1', ...json({ status: 'DONE' }) },
		{
			method: 'PATCH',
			path: '/api/v1/persons/p-1/transactions/t-1',
			body: { id: 't-1', attributes: { status: 'DONE' } },
			repeated: true,
		},
	],
	[
		'transaction',
		'runMonitoringCheck',
		{ transactionId: 't-1', routeOutputs: true },
		{
			method: 'POST',
			path: '/api/v1/transactions/t-1/monitoring-checks',
			repeated: false,
			blocks: true,
		},
	],
	[
		'transaction',
		'runScreeningCheck',
		{ transactionId: 't-1', routeOutputs: true },
		{
			method: 'POST',
			path: '/api/v1/transactions/t-1/screening-checks',
			repeated: false,
			blocks: true,
		},
	],
	[
		'transaction',
		'hasUnresolvedAlerts',
		{ transactionId: 't-1' },
		{ method: 'GET', path: '/api/v1/transactions/t-1/unresolved-alerts', repeated: true },
	],
	[
		'alert',
		'getMonitoringAlert',
		{ alertId: '42' },
		{ method: 'GET', path: '/api/v1/alerts/42', repeated: true },
	],
	[
		'alert',
		'updateStatus',
		{ alertType: 'MONITORING', alertId: '42', status: 'CLOSED' },
		{
			method: 'PUT',
			path: '/api/v1/alerts/status',
			body: { alertType: 'MONITORING', alertId: 42, status: 'CLOSED' },
			repeated: false,
		},
	],
	[
		'alert',
		'getScreeningHits',
		{ screeningAlertId: '42', returnAll: false, limit: 5 },
		{ method: 'GET', path: '/api/v1/screening-alerts/42/hits', repeated: true },
	],
	[
		'alert',
		'createManualAlert',
		{ personId: 'p-1', rationale: 'OTHER' },
		{
			method: 'POST',
			path: '/api/v1/manual-alerts',
			body: { personId: 'p-1', rationale: 'OTHER' },
			repeated: false,
		},
	],
	[
		'alert',
		'updateManualAlert',
		{ alertId: '42', rationale: 'OTHER', status: 'CLOSED' },
		{
			method: 'PUT',
			path: '/api/v1/manual-alerts/42',
			body: { rationale: 'OTHER', status: 'CLOSED' },
			repeated: false,
		},
	],
	[
		'screening',
		'search',
		{
			name: 'Viktor',
			recordEntityType: 'ALL',
			configurations: { configuration: [{ type: 'SANCTION' }] },
		},
		{
			method: 'POST',
			path: '/api/v2/screening-searches',
			body: { name: 'Viktor', recordEntityType: 'ALL', configurations: [{ type: 'SANCTION' }] },
			repeated: true,
		},
	],
	[
		'screening',
		'getListGroups',
		{},
		{ method: 'GET', path: '/api/v1/screening-list-groups', repeated: true },
	],
	[
		'customList',
		'create',
		{ customListId: LIST, recordId: 'r-1', ...json({ name: 'A' }) },
		{
			method: 'POST',
			path: `/api/v1/custom-lists/${LIST}/records`,
			body: { id: 'r-1', attributes: { name: 'A' } },
			repeated: true,
		},
	],
	[
		'customList',
		'get',
		{ customListId: LIST, recordId: 'r-1' },
		{ method: 'GET', path: `/api/v1/custom-lists/${LIST}/records/r-1`, repeated: true },
	],
	[
		'customList',
		'getAll',
		{ customListId: LIST, returnAll: false, limit: 5 },
		{ method: 'GET', path: `/api/v1/custom-lists/${LIST}/records`, repeated: true },
	],
	[
		'customList',
		'update',
		{ customListId: LIST, recordId: 'r-1', ...json({ name: 'B' }) },
		{
			method: 'PUT',
			path: `/api/v1/custom-lists/${LIST}/records/r-1`,
			body: { id: 'r-1', attributes: { name: 'B' } },
			repeated: true,
		},
	],
	[
		'customList',
		'archive',
		{ customListId: LIST, recordId: 'r-1' },
		{ method: 'DELETE', path: `/api/v1/custom-lists/${LIST}/records/r-1`, repeated: true },
	],
	[
		'customList',
		'upsert',
		{ customListId: LIST, recordId: 'r-1', ...json({ name: 'C' }) },
		{
			method: 'POST',
			path: `/api/v1/custom-lists/${LIST}/records`,
			body: { id: 'r-1', attributes: { name: 'C' } },
			repeated: true,
		},
	],
	[
		'customList',
		'getUsableFields',
		{ customListId: LIST },
		{ method: 'GET', path: `/api/v1/custom-lists/${LIST}/screening-fields`, repeated: true },
	],
	[
		'customList',
		'sync',
		{ customListId: LIST, recordId: 'r-1', onMissing: 'leave', ...json({ name: 'D' }) },
		{ method: 'GET', path: `/api/v1/custom-lists/${LIST}/records`, repeated: true },
	],
	[
		'dataUpload',
		'getStatus',
		{ uploadId: '7', waitForCompletion: false },
		{ method: 'GET', path: '/api/v1/data-upload/7/status', repeated: true },
	],
];

describe('every operation through the router, against a local recorder', () => {
	test('the table covers every operation of the node but Upload', () => {
		const { resources } =
			require('../../nodes/Aml/actions/router') as typeof import('../../nodes/Aml/actions/router');
		const all = Object.entries(resources).flatMap(([resource, module]) =>
			Object.keys(module.operations).map((op) => `${resource}.${op}`),
		);
		const covered = cases.map(([resource, operation]) => `${resource}.${operation}`);
		expect(all.filter((op) => !covered.includes(op))).toEqual(['dataUpload.upload']);
	});

	test.each(cases)('%s → %s', async (resource, operation, parameters, expected) => {
		const server = await recorder();
		try {
			const ctx = executeContext(server.baseUrl, { resource, operation, ...parameters });
			let outputs: INodeExecutionData[][] = [];
			const outcome = await router.call(ctx).then(
				(answered) => {
					outputs = answered;
					return 'answered';
				},
				(error: Error) => `failed: ${error.message}`,
			);
			const first = server.seen[0];
			expect(first).toBeDefined();
			expect({ method: first.method, path: first.path }).toEqual({
				method: expected.method,
				path: expected.path,
			});
			if (expected.query) expect(first.query).toMatch(expected.query);
			if (expected.body !== undefined) expect(first.body).toMatchObject(expected.body as object);
			const sameRequest = server.seen.filter(
				(r) => r.method === first.method && r.path === first.path && r.query === first.query,
			);
			if (expected.repeated) {
				// a repeatable request is sent again after the 503 and the operation completes
				expect(sameRequest.length).toBeGreaterThanOrEqual(2);
				expect(outcome).toBe('answered');
			} else if (expected.blocks) {
				// a check is not sent again once it may have run: the item blocks, saying so
				expect(sameRequest).toHaveLength(1);
				expect(outcome).toBe('answered');
				expect(outputs[BLOCK_OUTPUT][0].json).toMatchObject({
					decision: 'block',
					reason: expect.stringMatching(/^check outcome unknown: /),
					mayHaveApplied: true,
				});
			} else {
				// a one-shot request is not sent again; the error says it may have been applied
				expect(sameRequest).toHaveLength(1);
				expect(outcome).toMatch(/^failed: .*may have been applied/);
			}
		} finally {
			await server.close();
		}
	});
});

describe('what each operation declares for n8n node settings', () => {
	test('the operations that only read (Retry On Fail allowed) and those whose items carry a decision', () => {
		const { resources } =
			require('../../nodes/Aml/actions/router') as typeof import('../../nodes/Aml/actions/router');
		const all = Object.entries(resources).flatMap(([resource, module]) =>
			Object.entries(module.operations).map(([op, operation]) => ({
				name: `${resource}.${op}`,
				operation,
			})),
		);
		expect(all.filter(({ operation }) => operation.readOnly).map(({ name }) => name)).toEqual([
			'person.get',
			'person.getRisk',
			'person.getStatusHistory',
			'person.hasUnresolvedAlerts',
			'person.search',
			'transaction.get',
			'transaction.getAll',
			'transaction.hasUnresolvedAlerts',
			'alert.getMonitoringAlert',
			'alert.getScreeningHits',
			'screening.getListGroups',
			'screening.search',
			'customList.get',
			'customList.getAll',
			'customList.getUsableFields',
			'dataUpload.getStatus',
		]);
		expect(all.filter(({ operation }) => operation.decides).map(({ name }) => name)).toEqual([
			'person.hasUnresolvedAlerts',
			'person.runMonitoringCheck',
			'person.runScreeningCheck',
			'transaction.gate',
			'transaction.hasUnresolvedAlerts',
			'transaction.runMonitoringCheck',
			'transaction.runScreeningCheck',
		]);
	});
});
