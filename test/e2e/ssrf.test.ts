import { randomUUID } from 'node:crypto';

import { amlTriggerWorkflow, N8nClient, sandboxCredentialData } from '../harness/client';
import { context, control, nodeOutput, ownTag, ownTokenUrl, type Json } from '../harness/context';
import { startN8n, type N8nInstance } from '../harness/n8n';
import { registered, until } from '../harness/trigger';

/**
 * n8n's SSRF protection (`N8N_SSRF_PROTECTION_ENABLED=true`, n8n 2.x) refuses requests of nodes to private addresses,
 * the sandbox's 127.0.0.1 among them, unless allow-listed (`N8N_SSRF_ALLOWED_IP_RANGES`, `N8N_SSRF_ALLOWED_HOSTNAMES`).
 * Two n8n of this file's own, both with the protection on: one with the sandbox's address allow-listed, one without.
 * The trigger sends nothing (the service calls n8n), so it needs no allow-list.
 */
const SSRF_REFUSAL = 'The request was blocked because it resolves to a restricted IP address';
const suffix = randomUUID().slice(0, 8);

interface Instance {
	n8n: N8nInstance;
	client: N8nClient;
	credential: { id: string; name: string };
	tag: string;
}

const instances: Record<'allowed' | 'refused', Instance | undefined> = {
	allowed: undefined,
	refused: undefined,
};
const targets: string[] = [];

async function start(key: 'allowed' | 'refused', env: Record<string, string>): Promise<Instance> {
	const n8n = await startN8n({ env: { N8N_SSRF_PROTECTION_ENABLED: 'true', ...env } });
	const client = new N8nClient(n8n.baseUrl, n8n.apiKey);
	const credential = await client.createCredential(
		`AML sandbox (SSRF ${key})`,
		'amlOAuth2Api',
		sandboxCredentialData({ ...context().sandbox, tokenUrl: ownTokenUrl(`ssrf-${key}`) }),
	);
	return { n8n, client, credential, tag: ownTag(`ssrf-${key}`) };
}

beforeAll(async () => {
	const [allowed, refused] = await Promise.all([
		start('allowed', { N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32' }),
		start('refused', {}),
	]);
	instances.allowed = allowed;
	instances.refused = refused;
}, 400_000);

afterAll(async () => {
	for (const id of targets) await control.del(`/webhooks/${id}`).catch(() => undefined);
	await Promise.all(Object.values(instances).map((i) => i?.n8n.stop()));
});

const createPerson = (instance: Instance, personId: string) =>
	instance.client.runNode(
		{
			parameters: {
				resource: 'person',
				operation: 'create',
				personId,
				personType: 'INDIVIDUAL',
				attributesMode: 'json',
				attributesJson: '{"first_name":"Ssrf"}',
			},
		},
		[{}],
		{ credentials: { amlOAuth2Api: instance.credential } },
	);

/** A published AML Trigger on the instance (secret header), a sandbox target for it; one event, its execution. */
async function deliverOne(instance: Instance): Promise<Json> {
	const secret = `ssrf-${randomUUID()}`;
	const hook = await instance.client.createCredential(
		`AML webhook SSRF ${suffix}`,
		'amlWebhookApi',
		{
			method: 'header',
			headerName: 'X-Hook-Token',
			headerSecret: secret,
		},
	);
	const webhookId = randomUUID();
	const workflow = await instance.client.createWorkflow(
		amlTriggerWorkflow(
			`AML Trigger SSRF ${suffix}`,
			webhookId,
			{ authentication: 'amlWebhookApi', events: ['*'] },
			hook,
		),
	);
	await instance.client.activate(String(workflow.id));
	const url = `${instance.n8n.baseUrl}/webhook/${webhookId}/aml`;
	await registered(url);
	const target = await control.post<{ id: string }>('/webhooks', {
		url,
		verification: { mode: 'header', headerName: 'X-Hook-Token', secret },
	});
	targets.push(target.id);
	const alertId = Math.floor(Math.random() * 1e6) + 1;
	await control.post('/webhooks/emit', {
		action: 'MANUAL_ALERT_CREATED',
		metadata: {
			alertId,
			personId: `ssrf-${suffix}`,
			transactionId: null,
			rationale: 'OTHER',
			status: 'NEW',
		},
	});
	const execution = await until('the delivery ran', async () => {
		const [last] = await instance.client.executions(String(workflow.id));
		return last && last.status === 'success' ? last : undefined;
	});
	const full = await instance.client.execution(String(execution.id));
	const [item] = nodeOutput(full, 'AML Trigger');
	expect(item.metadata.alertId).toBe(alertId);
	return item;
}

describe('n8n SSRF protection on (N8N_SSRF_PROTECTION_ENABLED=true)', () => {
	test('the service address allow-listed (N8N_SSRF_ALLOWED_IP_RANGES): an operation stores the person, the trigger runs', async () => {
		const personId = `ssrf-${suffix}-allowed`;
		const run = await createPerson(instances.allowed!, personId);
		expect(run.error).toBeUndefined();
		expect(run.status).toBe('success');
		expect((await control.get<Json>(`/persons/${personId}`)).id).toBe(personId);
		await deliverOne(instances.allowed!);
	});

	test('without the allow-list: n8n refuses the request with its SSRF message, nothing reaches the service; the trigger still runs', async () => {
		const personId = `ssrf-${suffix}-refused`;
		const mark = await control.mark();
		const run = await createPerson(instances.refused!, personId);
		console.log(`[ssrf] refused run: ${JSON.stringify(run.error)}`);
		expect(run.status).toBe('error');
		expect(`${run.error?.message} ${run.error?.description ?? ''}`).toContain(SSRF_REFUSAL);
		expect(await control.requestsSince(mark, { credential: instances.refused!.tag })).toEqual([]);
		expect((await control.get<Json[]>('/persons')).some((p) => p.id === personId)).toBe(false);
		await deliverOne(instances.refused!);
	});
});
