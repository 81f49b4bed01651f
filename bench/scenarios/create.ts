import {
	executionMs,
	genericOAuth2Credential,
	inWorker,
	mb,
	treeCpu,
	peakDuring,
	rawToken,
	type BenchEnv,
	type Result,
} from '../lib';

/** Parallel requests of the AML node and of the raw client. */
export const CONCURRENCY = 8;

const ATTRIBUTES = {
	amount: '10.00',
	type: 'payment',
	direction: 'O',
	timestamp: '2026-11-22T10:00:00Z',
};

async function storedWith(
	env: BenchEnv,
	prefix: string,
): Promise<{ stored: number; distinct: number }> {
	const all = (await env.control.get('/transactions', { params: { personId: 'cust-1002' } }))
		.data as Array<{ id: string }>;
	const mine = all.filter((t) => t.id.startsWith(prefix));
	return { stored: mine.length, distinct: new Set(mine.map((t) => t.id)).size };
}

/**
 * The raw client: axios with a keep-alive agent, CONCURRENCY requests at a time, timed from its first request to its
 * last answer. With `newConnections`, every request gets a new agent (a new connection, closed after the answer), as
 * n8n's `httpRequest` builds one per request: that run shows what connection reuse alone is worth here.
 */
async function rawCreate(
	baseURL: string,
	token: string,
	count: number,
	prefix: string,
	newConnections = false,
): Promise<number> {
	return await inWorker(
		`const shared = new http.Agent({ keepAlive: true, maxSockets: d.concurrency });
		const raw = axios.create({ baseURL: d.baseURL, headers: { Authorization: 'Bearer ' + d.token } });
		let next = 0;
		const started = Date.now();
		Promise.all(Array.from({ length: d.concurrency }, async () => {
			while (next < d.count) {
				const i = next++;
				const httpAgent = d.newConnections ? new http.Agent() : shared;
				await raw.post('/v1/persons/cust-1002/transactions', { id: d.prefix + i, attributes: d.attributes }, { httpAgent });
			}
		})).then(
			() => { shared.destroy(); parentPort.postMessage({ ms: Date.now() - started }); },
			(error) => { shared.destroy(); parentPort.postMessage({ error: String(error) }); },
		);`,
		{
			baseURL,
			token,
			count,
			prefix,
			newConnections,
			concurrency: CONCURRENCY,
			attributes: ATTRIBUTES,
		},
	);
}

/**
 * 1. Create N transactions: the AML node vs a raw keep-alive client at the same concurrency, and vs n8n's
 *    HTTP Request node with a generic OAuth2 (client credentials) credential, as users would build it.
 * 2. Token economy during the AML node's run, with a token lifetime of about a third of the raw run.
 */
export async function createTransactions(env: BenchEnv): Promise<Result[]> {
	const { control, client, credentials, n8n, sb } = env;
	const count = Math.round(10_000 * env.scale);
	const results: Result[] = [];

	// Raw baseline: keep-alive, one token, same requests, same concurrency, on its own thread.
	await control.post('/reset', {});
	const rawMs = await rawCreate(`${sb.baseUrl}/api`, await rawToken(env), count, 'raw-');
	await control.post('/reset', {});
	const rawNewConnectionsMs = await rawCreate(
		`${sb.baseUrl}/api`,
		await rawToken(env),
		count,
		'rawnc-',
		true,
	);
	let started: number;

	const items = Array.from({ length: count }, (_, i) => ({ id: `node-${i}` }));
	const node = {
		parameters: {
			resource: 'transaction',
			operation: 'create',
			personId: 'cust-1002',
			transactionId: '={{ $json.id }}',
			attributesMode: 'fields',
			amount: ATTRIBUTES.amount,
			transactionType: ATTRIBUTES.type,
			direction: ATTRIBUTES.direction,
			timestamp: ATTRIBUTES.timestamp,
			options: { parallelRequests: CONCURRENCY },
		},
		credentials,
		continueOnFail: true,
	};

	// AML node, token lifetime about a third of its run. Its time is not known before it runs, so a tenth of the items
	// is created first with a long-lived token and the run's time estimated from it. (Up to 2026-11-25 the estimate was
	// the raw client with new connections; since every request goes through n8n's httpRequestWithAuthentication the
	// node takes 3-6 x that time, and 2 s tokens made its run last about 35 lifetimes: more renewals a minute than the
	// token endpoint grants (5), so the run waited on the token endpoint for most of its 70 s.)
	await control.post('/reset', {});
	await control.post('/config', { tokenLifetimeSeconds: 3600 });
	const sample = Math.max(1, Math.round(count / 10));
	started = Date.now();
	const calibration = await client.runNode(
		node,
		items.slice(0, sample).map((j) => ({ id: `calibrate-${j.id}` })),
		{ credentials },
	);
	const estimatedMs = (executionMs(calibration.execution, Date.now() - started) * count) / sample;
	const lifetimeSeconds = Math.max(2, Math.round(estimatedMs / 3000));
	await control.post('/reset', {});
	await control.post('/config', { tokenLifetimeSeconds: lifetimeSeconds });
	started = Date.now();
	// n8n's CPU for the whole workflow run (Webhook, Split Out, the node, saving the execution): unlike the times, it
	// hardly depends on what else the machine runs.
	let cpuBefore = treeCpu(n8n.pid);
	const measured = await peakDuring(n8n.pid, () => client.runNode(node, items, { credentials }));
	const nodeCpuMs = (treeCpu(n8n.pid) - cpuBefore) * 1000;
	const nodeMs = executionMs(measured.value.execution, Date.now() - started);
	const stats = (await control.get('/stats')).data;
	const aml = await storedWith(env, 'node-');
	const amlErrors = (measured.value.outputs[0] ?? []).filter((j) => j.error !== undefined).length;
	results.push({
		name: 'create transactions',
		figures: {
			items: count,
			rawMs,
			rawNewConnectionsMs,
			nodeMs,
			nodeCpuMsPerItem: +(nodeCpuMs / count).toFixed(2),
			stored: aml.stored,
			duplicates: aml.stored - aml.distinct,
			errorItems: amlErrors,
			failures: count - aml.distinct,
			peakRssMb: mb(measured.peak),
			addedRssMb: mb(measured.peak - measured.idle),
		},
		ratio: +(nodeMs / rawMs).toFixed(2),
		baseline: `raw keep-alive client, concurrency ${CONCURRENCY}`,
		goal: '<= 1.25, zero failures',
		met: nodeMs / rawMs <= 1.25 && aml.distinct === count,
	});
	const lifetimes = Math.ceil(nodeMs / 1000 / lifetimeSeconds);
	results.push({
		name: 'token economy',
		figures: {
			estimatedNodeMs: Math.round(estimatedMs),
			tokenLifetimeS: lifetimeSeconds,
			tokenLifetimes: lifetimes,
			tokenRequests: stats.tokenRequests,
			token429: stats.tokenRequests429,
		},
		goal: 'tokenRequests <= lifetimes + 1, 0 × 429',
		met: stats.tokenRequests <= lifetimes + 1 && stats.tokenRequests429 === 0,
	});

	// HTTP Request node, generic OAuth2 credential (client credentials), defaults: every item's request at once.
	await control.post('/config', { tokenLifetimeSeconds: 3600 });
	for (const mode of ['new credential', 'token stored'] as const) {
		await control.post('/reset', {});
		const cred = await genericOAuth2Credential(env, `bench oauth2 ${mode}`);
		const httpNode = {
			name: 'HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: `${sb.baseUrl}/api/v1/persons/cust-1002/transactions`,
				authentication: 'genericCredentialType',
				genericAuthType: 'oAuth2Api',
				sendBody: true,
				specifyBody: 'json',
				jsonBody: `={{ JSON.stringify({ id: $json.id, attributes: ${JSON.stringify(ATTRIBUTES)} }) }}`,
				options: {},
			},
			credentials: { oAuth2Api: cred },
			continueOnFail: true,
		};
		if (mode === 'token stored')
			await client.runNode(httpNode, [{ id: 'warm-0' }], { credentials: { oAuth2Api: cred } });
		const before = (await control.get('/stats')).data;
		const httpItems = Array.from({ length: count }, (_, i) => ({ id: `http-${i}` }));
		started = Date.now();
		cpuBefore = treeCpu(n8n.pid);
		const run = await peakDuring(n8n.pid, () =>
			client.runNode(httpNode, httpItems, { credentials: { oAuth2Api: cred } }),
		);
		const httpCpuMs = (treeCpu(n8n.pid) - cpuBefore) * 1000;
		const httpMs = executionMs(run.value.execution, Date.now() - started);
		const after = (await control.get('/stats')).data;
		const stored = await storedWith(env, 'http-');
		const errorItems = (run.value.outputs[0] ?? []).filter((j) => j.error !== undefined).length;
		const succeeded = stored.distinct === count && errorItems === 0;
		results.push({
			name: `HTTP Request node (${mode})`,
			figures: {
				items: count,
				httpMs,
				httpCpuMsPerItem: +(httpCpuMs / count).toFixed(2),
				stored: stored.distinct,
				errorItems,
				lost: count - stored.distinct,
				tokenRequests: after.tokenRequests - before.tokenRequests,
				token429: after.tokenRequests429 - before.tokenRequests429,
				peakRssMb: mb(run.peak),
				addedRssMb: mb(run.peak - run.idle),
				amlNodeMs: nodeMs,
				amlNodeCpuMsPerItem: +(nodeCpuMs / count).toFixed(2),
			},
			ratio: +(nodeMs / httpMs).toFixed(2),
			baseline: 'AML node time / HTTP Request node time',
			goal: succeeded
				? '<= 1.25 (the HTTP Request node succeeded)'
				: 'AML node: zero failures (the HTTP Request node lost items)',
			met: succeeded ? nodeMs / httpMs <= 1.25 : aml.distinct === count,
		});
		await client.deleteCredential(cred.id).catch(() => undefined);
	}
	return results;
}
