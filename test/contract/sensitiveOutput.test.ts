import * as fs from 'node:fs';
import * as path from 'node:path';

import { AmlTrigger } from '../../nodes/AmlTrigger/AmlTrigger.node';
import { inN8nProcess, N8N_VERSION, n8nModules } from './n8n';

/**
 * The AML Trigger's `sensitiveOutputFields` (its description's credential-equivalent output fields, a field of
 * n8n-workflow 2.41's INodeTypeDescription) against this n8n's own code: which of its packages read the field at all
 * (an n8n that reads it nowhere is unharmed by it: it ignores the key as it ignores any other), and, where n8n has the
 * strategy that applies it, that strategy's own code on an execution holding the trigger's item with Include Headers:
 * exactly the declared headers become n8n's redaction marker. Whether n8n's execution redaction runs that strategy is
 * recorded too (n8n 2.41.1 ships it without putting it in its pipeline): the day it does, this test fails and the
 * e2e test of the stored execution (test/e2e/triggerSecurity.test.ts) can expect n8n's marker.
 */
const STRATEGY =
	'n8n/dist/modules/redaction/executions/strategies/node-defined-field-redaction.strategy';
const SERVICE = 'n8n/dist/modules/redaction/executions/execution-redaction.service.js';

const SCRIPT = `
let Strategy;
try { ({ NodeDefinedFieldRedactionStrategy: Strategy } = require(input.strategy)); } catch { Strategy = undefined; }
(async () => {
	if (!Strategy) return console.log(JSON.stringify({ strategy: false }));
	const description = { name: 'amlTrigger', sensitiveOutputFields: input.fields };
	const nodeTypes = { getByNameAndVersion: () => ({ description }) };
	const strategy = new Strategy({ warn() {}, debug() {} }, nodeTypes);
	const item = { json: { action: 'ALERT_CREATED', headers: input.headers } };
	const execution = {
		mode: 'webhook',
		workflowData: { nodes: [{ name: 'AML Trigger', type: 'n8n-nodes-aml.amlTrigger', typeVersion: 1.1 }] },
		data: { resultData: { runData: { 'AML Trigger': [{ data: { main: [[item]] } }] } } },
	};
	const context = { memo: new Map() };
	const requires = strategy.requiresRedaction(execution, context);
	await strategy.apply(execution, context);
	console.log(JSON.stringify({ strategy: true, requires, json: item.json }));
})().catch((e) => console.log(JSON.stringify({ failed: String(e && e.stack) })));
`;

/** Files of this n8n's own packages (n8n, n8n-core, n8n-workflow) whose code names the field. */
function readersOfTheField(): string[] {
	const found: string[] = [];
	const walk = (dir: string): void => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(file);
			else if (
				entry.name.endsWith('.js') &&
				fs.readFileSync(file, 'utf8').includes('sensitiveOutputFields')
			)
				found.push(path.relative(n8nModules(), file));
		}
	};
	for (const pkg of ['n8n', 'n8n-core', 'n8n-workflow']) {
		const dist = path.join(n8nModules(), pkg, 'dist');
		if (fs.existsSync(dist)) walk(dist);
	}
	return found.sort();
}

const declared = new AmlTrigger().description.sensitiveOutputFields ?? [];
const headers = {
	authorization: 'Bearer caller-token',
	'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
	cookie: 'sid=1',
	'x-aml-secret': 'the-secret',
	'x-aml-signature': 'sha256=00',
	'content-type': 'application/json',
	'user-agent': 'AML',
};

describe(`the AML Trigger's sensitiveOutputFields on n8n ${N8N_VERSION}`, () => {
	test('the trigger declares Authorization, Proxy-Authorization, Cookie and the default verification headers', () => {
		expect(declared).toEqual([
			'headers.authorization',
			'headers.proxy-authorization',
			'headers.cookie',
			'headers.x-aml-secret',
			'headers.x-aml-signature',
		]);
	});

	const readers = readersOfTheField();
	const seen = inN8nProcess<{
		strategy?: boolean;
		requires?: boolean;
		json?: { headers: Record<string, unknown> };
		failed?: string;
	}>(SCRIPT, { strategy: STRATEGY, fields: declared, headers });

	test('n8n reads the field only in its node-defined redaction strategy, or nowhere', () => {
		expect(seen.failed).toBeUndefined();
		expect(readers).toEqual(seen.strategy ? [`${STRATEGY}.js`] : []);
	});

	(seen.strategy ? test : test.skip)(
		"n8n's strategy turns exactly the declared headers into its marker and keeps the others",
		() => {
			const marker = { __redacted: true, reason: 'node_defined_field', canReveal: false };
			expect(seen.requires).toBe(true);
			expect(seen.json!.headers).toEqual({
				authorization: marker,
				'proxy-authorization': marker,
				cookie: marker,
				'x-aml-secret': marker,
				'x-aml-signature': marker,
				'content-type': 'application/json',
				'user-agent': 'AML',
			});
		},
	);

	(seen.strategy ? test : test.skip)(
		"n8n's execution redaction does not run the strategy yet: the trigger's own redaction is what stored executions show",
		() => {
			const service = fs.readFileSync(path.join(n8nModules(), SERVICE), 'utf8');
			expect(service).not.toMatch(/NodeDefinedFieldRedaction|node-defined-field-redaction/);
		},
	);
});
