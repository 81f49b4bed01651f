import { randomUUID } from 'node:crypto';

import * as path_ from 'node:path';

import { context, control, runAml, type Json } from '../harness/context';
import {
	mcpTools,
	OUTPUT_ATTRIBUTES,
	OUTPUT_SELECTED,
	outputTools,
	textOf,
	type McpTools,
	type OutputTools,
} from '../harness/mcp';
import { EXAMPLES_DIR, prepareExample, readExample } from '../harness/examples';

/**
 * AI agents use the AML node as a tool: a workflow with n8n's MCP Server Trigger and AML tool nodes whose parameters
 * an agent fills through `$fromAI(...)`, called by a real MCP client (the official SDK) over the trigger's URL.
 * n8n runs without N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: no supported n8n reads it (README, AI agents).
 */
const suffix = randomUUID().slice(0, 8);
const personId = `mcp-${suffix}`;
const TRIGGER = 'MCP Server Trigger';

let mcp: McpTools | undefined;
let mcpUrl = '';
let client: any;

beforeAll(async () => {
	// the example workflow as a user imports it (examples/05-ai-agent-tools.json), on a path of its own
	const path = `aml-mcp-${suffix}`;
	mcpUrl = `${context().n8n.baseUrl}/mcp/${path}`;
	const workflow = prepareExample(path_.join(EXAMPLES_DIR, '05-ai-agent-tools.json'), {
		sandboxUrl: context().sandbox.baseUrl,
		credential: context().credential,
	});
	const trigger = (workflow.nodes as Json[]).find((n) => n.name === TRIGGER)!;
	trigger.parameters.path = path;
	trigger.webhookId = randomUUID();

	const person = await runAml({
		resource: 'person',
		operation: 'create',
		personId,
		personType: 'INDIVIDUAL',
		attributesMode: 'json',
		attributesJson: '{"first_name":"Mcp"}',
	});
	expect(person.status).toBe('success');

	mcp = await mcpTools({ ...workflow, name: `${workflow.name} ${suffix}` }, path);
	client = mcp.client;
});

afterAll(async () => {
	await mcp?.close();
});

describe('AML node as a tool through the MCP Server Trigger', () => {
	test('example 05 ships with Bearer Auth on its trigger: a call without the token is refused with 403 and calls no tool', async () => {
		const trigger = (readExample('05-ai-agent-tools.json').nodes as Json[]).find(
			(n) => n.name === TRIGGER,
		)!;
		expect(trigger.parameters.authentication).toBe('bearerAuth');
		expect(trigger.credentials).toEqual({ httpBearerAuth: { id: null, name: 'MCP client token' } });
		const mark = await control.mark();
		for (const authorization of [undefined, 'Bearer wrong-token']) {
			const answer = await fetch(mcpUrl, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					accept: 'application/json, text/event-stream',
					...(authorization ? { authorization } : {}),
				},
				body: JSON.stringify({
					jsonrpc: '2.0',
					id: 1,
					method: 'tools/call',
					params: { name: 'create_manual_alert', arguments: { personId, comment: 'forged' } },
				}),
			});
			expect(answer.status).toBe(403);
		}
		expect((await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api/'))).toEqual(
			[],
		);
	});

	test('the MCP client lists the tools with their descriptions and $fromAI input schemas', async () => {
		const { tools } = await client.listTools();
		const byName = Object.fromEntries(tools.map((t: Json) => [t.name, t]));
		console.log(
			`[mcp] tools: ${JSON.stringify(tools.map((t: Json) => ({ name: t.name, description: t.description, input: Object.keys(t.inputSchema?.properties ?? {}) })))}`,
		);
		expect(Object.keys(byName).sort()).toEqual([
			'check_transaction',
			'create_manual_alert',
			'create_transaction',
			'get_person',
			'list_transactions',
			'screen_name',
			'screen_transaction',
		]);
		expect(byName.check_transaction.description).toMatch(/decision clear or block/);
		// monitoring's clear is not the payment's: the agent is told that screening must answer clear too
		expect(byName.check_transaction.description).toMatch(
			/clear covers monitoring only, never the payment/,
		);
		expect(byName.screen_transaction.description).toMatch(
			/both this and check_transaction answer clear/,
		);
		expect(byName.create_transaction.inputSchema.properties.personId.description).toMatch(
			/letters, digits/,
		);
		expect(Object.keys(byName.create_transaction.inputSchema.properties).sort()).toEqual([
			'amount',
			'personId',
			'transactionId',
		]);
		expect(byName.create_transaction.inputSchema.properties.amount.description).toMatch(
			/Decimal amount as text/,
		);
	});

	test('a blocked payment comes back to the agent with decision "block" and the alert id; a clear one with "clear"', async () => {
		const large = `${personId}-large`;
		const small = `${personId}-small`;
		for (const [transactionId, amount] of [
			[large, '25000.00'],
			[small, '12.00'],
		]) {
			const created = await client.callTool({
				name: 'create_transaction',
				arguments: { personId, transactionId, amount },
			});
			expect(created.isError ?? false).toBe(false);
		}
		expect(
			(await control.get<any[]>('/transactions', { personId })).map((t) => t.id).sort(),
		).toEqual([large, small].sort());

		const blocked = await client.callTool({
			name: 'check_transaction',
			arguments: { transactionId: large },
		});
		console.log(`[mcp] blocked call: ${textOf(blocked).slice(0, 400)}`);
		expect(blocked.isError ?? false).toBe(false);
		const blockedText = textOf(blocked);
		expect(blockedText).toContain('"decision":"block"');
		const alertId = (await control.get<any[]>('/alerts')).find(
			(a) => a.transaction?.id === large || a.transactionId === large,
		)?.id;
		expect(blockedText).toContain(`"alertIds":[${alertId}]`);

		const clear = await client.callTool({
			name: 'check_transaction',
			arguments: { transactionId: small },
		});
		console.log(`[mcp] clear call: ${textOf(clear).slice(0, 300)}`);
		expect(textOf(clear)).toContain('"decision":"clear"');
	});

	test('a check that fails (an unknown transaction: 404) comes back to the agent as decision "block" with the reason, never without a decision', async () => {
		const unknown = await client.callTool({
			name: 'check_transaction',
			arguments: { transactionId: `${personId}-unknown` },
		});
		const text = textOf(unknown);
		console.log(`[mcp] failed check call: ${text.slice(0, 300)}`);
		const answer = JSON.parse(text);
		expect(answer).toEqual([
			expect.objectContaining({
				transactionId: `${personId}-unknown`,
				decision: 'block',
				httpCode: '404',
			}),
		]);
		expect(answer[0].reason).toMatch(/^check failed: Not found/);
		// the service answered (404): the check did not run, so it is not flagged as possibly run
		expect(answer[0].mayHaveApplied).toBeUndefined();
	});

	test('a bad ID from the agent comes back as an error naming the field and rule; the service receives no request', async () => {
		const mark = await control.mark();
		const bad = await client.callTool({ name: 'get_person', arguments: { personId: 'bad/id' } });
		const text = textOf(bad);
		console.log(`[mcp] bad id call: ${text.slice(0, 300)}`);
		expect(text).toMatch(
			/"Person ID" may only contain a-z, A-Z, 0-9, hyphen, underscore, colon and dot/,
		);
		expect(
			(await control.requestsSince(mark)).filter((r: { path: string }) =>
				r.path.startsWith('/api/'),
			),
		).toHaveLength(0);
	});

	test('a long answer is cut for the model: at most 100 items and a last item saying how many there were', async () => {
		const owner = `${personId}-many`;
		expect(
			(
				await runAml({
					resource: 'person',
					operation: 'create',
					personId: owner,
					personType: 'INDIVIDUAL',
					attributesMode: 'json',
					attributesJson: '{"first_name":"Many"}',
				})
			).status,
		).toBe('success');
		const items = Array.from({ length: 120 }, (_v, i) => ({ id: `${owner}-t${i}` }));
		const created = await runAml(
			{
				resource: 'transaction',
				operation: 'create',
				personId: owner,
				transactionId: '={{ $json.id }}',
				attributesMode: 'json',
				attributesJson:
					'{"amount":"1.00","type":"payment","direction":"I","timestamp":"2026-03-07T10:00:00Z"}',
			},
			items,
		);
		expect(created.status).toBe('success');
		const listed = await client.callTool({
			name: 'list_transactions',
			arguments: { personId: owner },
		});
		const answer = JSON.parse(textOf(listed));
		expect(answer).toHaveLength(101);
		expect(answer[100]).toMatchObject({ truncated: true, returned: 100, total: 120 });
		expect(answer[100].hint).toMatch(/Narrow the call/);
	});

	test('screening and a manual alert through the tools: one simplified answer per name, and the alert stored once', async () => {
		const hit = JSON.parse(
			textOf(
				await client.callTool({ name: 'screen_name', arguments: { name: 'Viktor Drabenko' } }),
			),
		);
		expect(hit).toHaveLength(1);
		expect(hit[0]).toMatchObject({
			name: 'Viktor Drabenko',
			matched: true,
			matches: [{ id: 'rec-1', name: 'Viktor Drabenko', list: 'Synthetic Sanctions List' }],
		});
		const none = JSON.parse(
			textOf(
				await client.callTool({
					name: 'screen_name',
					arguments: { name: 'Ordinary Shopkeeper Zz' },
				}),
			),
		);
		expect(none).toEqual([
			{
				name: 'Ordinary Shopkeeper Zz',
				recordEntityType: 'ALL',
				matched: false,
				matchCount: 0,
				matches: [],
			},
		]);

		const before = (await control.get<any[]>('/manual-alerts')).length;
		const comment = `raised by an agent ${suffix}`;
		const alert = JSON.parse(
			textOf(
				await client.callTool({ name: 'create_manual_alert', arguments: { personId, comment } }),
			),
		);
		expect(alert[0]).toMatchObject({ personId, rationale: 'OTHER', rationaleComment: comment });
		const stored = await control.get<any[]>('/manual-alerts');
		expect(stored.length).toBe(before + 1);
		expect(stored.find((a) => a.rationaleComment === comment)).toMatchObject({ personId });
	});
});

describe('Output in tool use: Simplified, Raw and Selected Fields (the ID always)', () => {
	const owner = `${personId}-out`;
	let tools: OutputTools | undefined;

	beforeAll(async () => {
		tools = await outputTools(owner, `aml-mcp-output-${suffix}`);
	});

	afterAll(async () => {
		await tools?.close();
	});

	test('Selected Fields: the agent gets the chosen fields and the ID, nothing else', async () => {
		expect(await tools!.call('person_selected')).toEqual(OUTPUT_SELECTED.person(owner));
		expect(await tools!.call('transactions_selected')).toEqual(OUTPUT_SELECTED.transactions(owner));
		// Screening → Search: one answer per name, its matches shaped
		expect(await tools!.call('screen_selected', { name: 'Viktor Drabenko' })).toEqual([
			{
				name: 'Viktor Drabenko',
				recordEntityType: 'ALL',
				matched: true,
				matchCount: 1,
				matches: [
					{ id: 'rec-1', score: expect.any(Number), sanctionList: 'Synthetic Sanctions List' },
				],
			},
		]);
	});

	test('Simplified (the default) gets the key fields; Raw every field the service returns', async () => {
		expect(await tools!.call('person_simplified')).toEqual([
			{
				id: owner,
				type: 'INDIVIDUAL',
				name: 'Olga Output',
				status: expect.any(String),
				category: 'CUSTOMER',
				country: 'DE',
				createdTime: expect.any(String),
			},
		]);
		// Raw: what the node itself outputs (Person → Get in a workflow), every field
		const asNode = await runAml({ resource: 'person', operation: 'get', personId: owner });
		expect(asNode.outputs[0]).toHaveLength(1);
		expect(asNode.outputs[0][0]).toMatchObject({ id: owner, attributes: OUTPUT_ATTRIBUTES });
		expect(await tools!.call('person_raw')).toEqual(asNode.outputs[0]);
	});
});
