import { compiledSeam, inN8nProcess, N8N_VERSION } from './n8n';

/**
 * Seam nodes/shared/n8n/webhookCredentials.ts against this n8n's own webhook context (n8n-core) and credential
 * resolution (n8n's CredentialsHelper.applyDefaultsAndOverwrites; only the database read before it is replaced): the
 * credential read during a webhook call gives what `getCredentials()` gives, for stored values and expressions; an
 * expression cannot read the delivery; n8n's own checks still refuse a node without the credential; and, where this
 * n8n has the isolated expression engine, the read acquires no isolate beyond the one n8n holds for the call (the
 * runless `getCredentials()` acquires one per read). Run in a plain Node process in the n8n install (n8n's modules are
 * ES-module heavy), with the seam file compiled as it is.
 */
const SCRIPT = `
const { Workflow, Expression } = require('n8n-workflow');
const { WebhookContext } = require('n8n-core/dist/execution-engine/node-execution-context/webhook-context');
const { CredentialsHelper } = require('n8n/dist/credentials-helper');
const seam = require(input.seam);

const properties = [
	{ name: 'headerName', type: 'string', default: '' },
	{ name: 'headerSecret', type: 'string', typeOptions: { password: true }, default: '' },
];
const helper = Object.create(CredentialsHelper.prototype);
Object.assign(helper, {
	credentialTypes: {
		getByName: () => ({ name: 'amlWebhookApi', displayName: 'AML Webhook API', properties }),
		getParentTypes: () => [],
		getSupportedNodes: () => [],
	},
	credentialsOverwrites: { applyOverwrite: (_t, d) => d, usesManagedAuth: () => false, getOverwrites: () => ({}) },
	licenseState: { isExternalSecretsLicensed: () => false },
	externalSecretsConfig: {},
	cacheService: { get: async () => false },
	isCredentialUsableByNode: () => true,
});
let stored = {};
let given = [];
// n8n's getDecrypted with its database read replaced: the stored values, then n8n's own defaults and resolution.
helper.getDecrypted = async (additionalData, nodeCredentials, type, mode, executeData, raw, resolveValues) => {
	given.push(resolveValues ? { workflowIsContexts: resolveValues.workflow === workflow, input: resolveValues.connectionInputData.length } : null);
	const apply = CredentialsHelper.prototype.applyDefaultsAndOverwrites;
	return apply.length >= 7
		? await apply.call(helper, additionalData, { ...stored }, nodeCredentials, type, mode, executeData, resolveValues)
		: await apply.call(helper, additionalData, { ...stored }, type, mode, executeData, resolveValues);
};

const trigger = { id: 't1', name: 'AML Trigger', type: 'n8n-nodes-aml.amlTrigger', typeVersion: 1, position: [0, 0],
	parameters: {}, credentials: { amlWebhookApi: { id: 'c1', name: 'AML webhook' } } };
const bare = { ...trigger, id: 't2', name: 'No credential', credentials: undefined };
const nodeType = { description: { name: 'amlTrigger', version: 1, properties: [], credentials: [{ name: 'amlWebhookApi', required: true }] } };
const nodeTypes = { getByName: () => nodeType, getByNameAndVersion: () => nodeType, getKnownTypes: () => ({}) };
const workflow = new Workflow({ id: 'w1', name: 'w', nodes: [trigger, bare], connections: {}, active: true, nodeTypes, staticData: {}, settings: {} });
// The delivery, as n8n hands it to the webhook context: a header an expression might try to read as the secret.
const additionalData = { credentialsHelper: helper, httpRequest: { body: {}, headers: { 'x-aml-secret': 'from-the-request' }, params: {}, query: {} } };
const context = (node) => new WebhookContext(workflow, node, additionalData, 'webhook', { httpMethod: 'POST', path: 'aml', isFullPath: false }, [], null);

(async () => {
	let engine = 'legacy';
	let acquired = 0;
	if (typeof Expression.initExpressionEngine === 'function') {
		await Expression.initExpressionEngine({ engine: 'vm', poolSize: 1, maxCodeCacheSize: 64, bridgeTimeout: 5000, bridgeMemoryLimit: 128 });
		const evaluator = Expression.vmEvaluator;
		if (evaluator) {
			engine = 'vm';
			const acquire = evaluator.acquire.bind(evaluator);
			evaluator.acquire = async (caller) => { const fresh = await acquire(caller); if (fresh) acquired++; return fresh; };
		}
	}
	// As n8n's live webhook handler does before a node's webhook(): the workflow's isolate for this call.
	const isolates = typeof workflow.expression.acquireIsolate === 'function';
	if (isolates) await workflow.expression.acquireIsolate();
	const read = async (how, node) => {
		given = [];
		const before = acquired;
		try {
			const data = how === 'seam' ? await seam.webhookCredentials(context(node), 'amlWebhookApi') : await context(node).getCredentials('amlWebhookApi');
			return { data: { headerName: data.headerName, headerSecret: data.headerSecret }, isolates: acquired - before, given };
		} catch (e) {
			return { error: String(e && e.message), isolates: acquired - before, given };
		}
	};
	const out = { engine, cases: {} };
	for (const [name, data, node] of input.cases) {
		stored = data;
		out.cases[name] = { seam: await read('seam', node === 'bare' ? bare : trigger), runless: await read('runless', node === 'bare' ? bare : trigger) };
	}
	if (isolates) await workflow.expression.releaseIsolate();
	// n8n's own shutdown step: a process that exits with the engine's isolates alive can die in isolated-vm's
	// teardown (SIGSEGV after its output).
	if (typeof Expression.disposeExpressionEngine === 'function') await Expression.disposeExpressionEngine();
	console.log(JSON.stringify(out));
	process.exit(0);
})().catch((e) => { console.log(JSON.stringify({ failed: String(e && e.stack) })); process.exit(0); });
`;

type Read = {
	data?: { headerName?: unknown; headerSecret?: unknown };
	error?: string;
	isolates: number;
	given: Array<{ workflowIsContexts: boolean; input: number } | null>;
};
let seen: {
	engine: 'vm' | 'legacy';
	cases: Record<string, { seam: Read; runless: Read }>;
	failed?: string;
};

const CASES: Array<[string, Record<string, unknown>, 'trigger' | 'bare']> = [
	['stored values', { headerName: 'X-AML-Secret', headerSecret: 'stored-secret' }, 'trigger'],
	[
		'an expression',
		{ headerName: 'X-AML-Secret', headerSecret: '={{ "exp" + "ression" }}' },
		'trigger',
	],
	[
		"an expression reading the delivery's header",
		{ headerName: 'X-AML-Secret', headerSecret: '={{ $json.headers?.["x-aml-secret"] ?? "" }}' },
		'trigger',
	],
	['a node without the credential', { headerSecret: 'stored-secret' }, 'bare'],
];

beforeAll(() => {
	const seam = compiledSeam('webhookCredentials');
	seen = inN8nProcess(SCRIPT, { seam, cases: CASES });
});

describe(`a trigger's credential read during a webhook call on n8n ${N8N_VERSION}`, () => {
	test('the script ran', () => {
		expect(seen.failed).toBeUndefined();
	});

	test("stored values and expressions: the same as getCredentials(), resolved with the call's workflow and no input", () => {
		for (const name of ['stored values', 'an expression']) {
			const { seam, runless } = seen.cases[name];
			expect({ name, error: runless.error }).toEqual({ name, error: undefined });
			expect({ name, ...seam.data }).toEqual({ name, ...runless.data });
			expect(seam.given).toEqual([{ workflowIsContexts: true, input: 0 }]);
		}
		expect(seen.cases['stored values'].seam.data?.headerSecret).toBe('stored-secret');
		expect(seen.cases['an expression'].seam.data?.headerSecret).toBe('expression');
	});

	test('an expression cannot read the delivery: with no input n8n refuses it, as getCredentials() does (the trigger then refuses the delivery)', () => {
		const { seam, runless } = seen.cases["an expression reading the delivery's header"];
		// `$json` of a webhook call has no item to read: n8n fails the expression, for the seam's read and for
		// getCredentials() alike, and neither yields the request's header.
		expect(seam.data).toBeUndefined();
		expect(seam.error).toEqual(expect.any(String));
		expect(seam.error).toBe(runless.error);
		// the seam's read with the call's workflow and no input, then, failed, n8n's documented read (runless)
		expect(seam.given).toEqual([{ workflowIsContexts: true, input: 0 }, null]);
	});

	test("n8n's own checks still refuse a node without the credential, with n8n's error", () => {
		const { seam, runless } = seen.cases['a node without the credential'];
		expect(seam.error).toBeDefined();
		expect(seam.error).toBe(runless.error);
	});

	test('with the isolated expression engine, the read acquires no isolate of its own (getCredentials() acquires one)', () => {
		if (seen.engine !== 'vm') {
			// n8n 2.0.3 has only the legacy engine: no isolates at all.
			expect(seen.cases['stored values'].runless.isolates).toBe(0);
			return;
		}
		for (const name of ['stored values', 'an expression']) {
			expect({ name, isolates: seen.cases[name].seam.isolates }).toEqual({ name, isolates: 0 });
			expect({ name, isolates: seen.cases[name].runless.isolates }).toEqual({ name, isolates: 1 });
		}
	});
});
