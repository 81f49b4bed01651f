import axios from 'axios';
import * as fs from 'node:fs';

import {
	context,
	control,
	loadedTypes,
	n8n,
	runAml,
	sandboxToken,
	tokenUrlOf,
} from '../harness/context';

/** The harness itself: n8n answers, the package is loaded the way users install it, nodes run with real items. */
describe('real-n8n harness', () => {
	afterAll(async () => {
		await n8n().cleanup();
	});

	test('n8n answers and the AML credential exists', async () => {
		const c = context();
		expect((await axios.get(`${c.n8n.baseUrl}/healthz`)).status).toBe(200);
		const credential = await n8n().getCredential(c.credential.id);
		expect(credential).toMatchObject({ id: c.credential.id, type: 'amlOAuth2Api' });
		// the public API never hands secrets back
		expect(JSON.stringify(credential)).not.toContain(c.sandbox.clientSecret);
	});

	test('the package is loaded as a community node: node types and credential types', async () => {
		const { logFile } = context().n8n;
		const { nodes, credentials } = await loadedTypes();
		const names = nodes.map((n) => n.name);
		expect(names).toEqual(
			expect.arrayContaining(['n8n-nodes-aml.aml', 'n8n-nodes-aml.amlTrigger']),
		);
		expect(credentials.map((c) => c.name)).toContain('amlOAuth2Api');
		expect(fs.readFileSync(logFile, 'utf8')).not.toContain(
			'Failed to load package "n8n-nodes-aml"',
		);
	});

	test('a built-in node runs with the given items (Webhook → Split Out → Set)', async () => {
		const set = {
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			name: 'Set',
			parameters: {
				mode: 'manual',
				assignments: {
					assignments: [{ id: 'd', name: 'double', value: '={{ $json.n * 2 }}', type: 'number' }],
				},
				includeOtherFields: true,
				options: {},
			},
		};
		const first = await n8n().runNode(set, [{ n: 1 }, { n: 21 }]);
		expect(first.status).toBe('success');
		expect(first.outputs).toEqual([
			[
				{ n: 1, double: 2 },
				{ n: 21, double: 42 },
			],
		]);
		// the same spec reuses its workflow; each run finds its own execution
		const second = await n8n().runNode(set, [{ n: 5 }]);
		expect(second.workflowId).toBe(first.workflowId);
		expect(second.executionId).not.toBe(first.executionId);
		expect(second.outputs).toEqual([[{ n: 5, double: 10 }]]);
	});

	test('outputs per branch and node errors are reported', async () => {
		const ifNode = {
			type: 'n8n-nodes-base.if',
			typeVersion: 2.2,
			name: 'If',
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: 'c',
							leftValue: '={{ $json.n }}',
							rightValue: 1,
							operator: { type: 'number', operation: 'gt' },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
		};
		const branches = await n8n().runNode(ifNode, [{ n: 0 }, { n: 2 }, { n: 5 }]);
		expect(branches.outputs).toEqual([[{ n: 2 }, { n: 5 }], [{ n: 0 }]]);

		const failing = await n8n().runNode(
			{
				type: 'n8n-nodes-base.stopAndError',
				typeVersion: 1,
				name: 'Stop',
				parameters: { errorMessage: 'stopped on purpose' },
			},
			[{}],
		);
		expect(failing.status).toBe('error');
		expect(failing.error?.message).toBe('stopped on purpose');
	});

	test('the AML node runs in n8n against the sandbox: Person → Get of a seeded person', async () => {
		const mark = await control.mark();
		const run = await runAml(
			{ resource: 'person', operation: 'get', personId: '={{ $json.id }}' },
			[{ id: 'cust-1001' }],
		);
		expect(run.error).toBeUndefined();
		expect(run.status).toBe('success');
		expect(run.outputs[0]).toHaveLength(1);
		expect(run.outputs[0][0].id).toBe('cust-1001');
		const requests = await control.requestsSince(mark);
		expect(requests.some((r) => r.method === 'GET' && r.path.includes('cust-1001'))).toBe(true);
	});

	test("the request log since a mark is this file's: another file's credential does not count", async () => {
		const c = context();
		expect(c.tag).toBe('harness');
		const mark = await control.mark();
		// a request of another file's credential (as from an execution that file left running)
		const other = await sandboxToken(tokenUrlOf(c.sandbox.tokenUrl.split('?')[0], 'otherFile'));
		await axios.get(`${c.sandbox.baseUrl}/api/v1/persons/cust-1002`, {
			headers: { Authorization: `Bearer ${other}` },
		});
		await runAml({ resource: 'person', operation: 'get', personId: '={{ $json.id }}' }, [
			{ id: 'cust-1001' },
		]);
		const path = '/api/v1/persons/';
		const own = await control.requestsSince(mark, { path });
		expect(own.map((r) => r.path)).toContain(`${path}cust-1001`);
		expect(own.map((r) => r.path)).not.toContain(`${path}cust-1002`);
		expect(new Set(own.map((r) => r.credential))).toEqual(new Set(['harness']));
		const all = await control.requestsSince(mark, { path, all: true });
		expect(all.map((r) => r.credential)).toContain('otherFile');
		const others = await control.requestsSince(mark, { credential: 'otherFile', path });
		expect(others.map((r) => [r.path, r.status])).toEqual([[`${path}cust-1002`, 200]]);
	});
});
