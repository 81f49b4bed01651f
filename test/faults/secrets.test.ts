import { createHmac, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';

import type { Json } from '../harness/client';
import axios from 'axios';

import {
	amlCredentialData,
	context,
	control,
	n8n,
	ownTokenQuery,
	ownTokenUrl,
	runAml,
	runNode,
} from '../harness/context';
import { publish } from '../harness/trigger';
import { report } from './helpers';

/**
 * Secrets: the client secret (also inside an HTTP Basic header), every access token the sandbox issued and the
 * webhook secrets and request credentials of the trigger's deliveries appear in no output item, error message, error
 * description or n8n log line of any run of this suite. This file runs last (test/harness/sequencer.js): it first
 * provokes the paths where secrets leak most easily (wrong secret, token endpoint 5xx and 429, API 401 after a
 * renewal, with and without Continue On Fail; an http:// URL refused; n8n's HTTP Request node asked to send the
 * token to another host; trigger deliveries with wrong and right secrets, cookies and proxy credentials, Include
 * Headers on), then searches the full data of every execution n8n holds and n8n's log.
 */
const wrongSecret = `wrong-secret-${randomUUID()}`;
const hookSecrets = {
	hmac: `hook-hmac-${randomUUID()}`,
	header: `hook-header-${randomUUID()}`,
	password: `hook-pw-${randomUUID()}`,
	cookie: `sid-${randomUUID()}`,
	proxy: `proxy-pw-${randomUUID()}`,
};
const made: string[] = [];
const madeHooks: string[] = [];

afterAll(async () => {
	await control.del('/faults').catch(() => undefined);
	for (const id of [...made, ...madeHooks])
		await n8n()
			.deleteCredential(id)
			.catch(() => undefined);
});

async function credential(data: Json = {}): Promise<{ id: string; name: string }> {
	const c = await n8n().createCredential(
		`faults secrets ${randomUUID().slice(0, 8)}`,
		'amlOAuth2Api',
		amlCredentialData(data),
	);
	made.push(c.id);
	return c;
}

const get = { resource: 'person', operation: 'get', personId: '={{ $json.id }}' };
const items = [{ id: 'cust-1001' }, { id: 'cust-1002' }];

async function runWith(cred: { id: string; name: string } | undefined, continueOnFail = false) {
	const credentials = cred ? { amlOAuth2Api: cred } : undefined;
	return await runAml(
		get,
		items,
		{ continueOnFail, ...(credentials ? { credentials } : {}) },
		credentials ? { credentials } : {},
	);
}

test(
	'errors of the token endpoint and of 401s carry no secret; no execution and no log line holds one',
	async () => {
		await control.post('/reset');
		const outcomes: Json = {};

		// A. wrong client secret: the token endpoint answers 401
		const wrong = await runWith(await credential({ clientSecret: wrongSecret }));
		outcomes.wrongSecret = wrong.error?.message;
		expect(wrong.status).toBe('error');

		// B. token endpoint 500 and C. 429, for credentials without a stored token; side by side (each waits out the
		// node's retries), each rule on its own credential's token URL
		await control.post('/faults', {
			rules: [
				{ path: '^/oauth/token$', query: ownTokenQuery('t500'), errorRate: 1, errorStatus: 500 },
				{ path: '^/oauth/token$', query: ownTokenQuery('t429'), rate429: 1, retryAfterRate: 1 },
			],
		});
		const [t500, t429] = await Promise.all([
			credential({ accessTokenUrl: ownTokenUrl('t500') }).then(async (c) => await runWith(c, true)),
			credential({ accessTokenUrl: ownTokenUrl('t429') }).then(async (c) => await runWith(c)),
		]);
		outcomes.tokenEndpoint500 = t500.outputs[0]?.[0]?.error ?? t500.error?.message;
		outcomes.tokenEndpoint429 = t429.error?.message;
		await control.del('/faults');

		// D. every API call answers 401, also after n8n renewed the token (with and without Continue On Fail)
		await control.post('/faults', { rules: [{ errorRate: 1, errorStatus: 401 }] });
		const a401 = await runWith(undefined);
		const a401cof = await runWith(undefined, true);
		await control.del('/faults');
		outcomes.api401 = a401.error?.message;
		outcomes.api401ContinueOnFail = a401cof.outputs[0]?.map((o) => o.error);
		expect(a401.status).toBe('error');
		expect(a401.error?.message).toMatch(/Authentication failed/);

		// E. an http:// API Base URL on another machine (0.0.0.0 reaches this one but is not a loopback name): refused
		// before n8n fetches a token, the error names the field only
		const plain = await runWith(
			await credential({
				baseUrl: context().sandbox.baseUrl.replace('127.0.0.1', '0.0.0.0'),
				accessTokenUrl: context().sandbox.tokenUrl.replace('127.0.0.1', '0.0.0.0'),
			}),
			true,
		);
		outcomes.plainHttp = plain.outputs[0]?.[0]?.error ?? plain.error?.message;
		expect(String(outcomes.plainHttp)).toMatch(/uses plain http/);

		// F. n8n's HTTP Request node with the AML credential, pointed at another host: refused, no token sent
		const stolen = await runNode(
			{
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				name: 'HTTP',
				parameters: {
					url: 'http://localhost:9/steal',
					authentication: 'predefinedCredentialType',
					nodeCredentialType: 'amlOAuth2Api',
					options: {},
				},
			},
			[{}],
		);
		outcomes.httpRequestElsewhere = stolen.error?.message;
		expect(stolen.status).toBe('error');

		// G. trigger deliveries: wrong and right secrets of each method, with a cookie and proxy credentials, Include Headers on
		const hookOutcomes: string[] = [];
		for (const [method, data, right, wrong] of [
			[
				'hmac',
				{ method: 'hmac', hmacHeaderName: 'X-AML-Signature', hmacSecret: hookSecrets.hmac },
				(b: string) => ({
					'X-AML-Signature': createHmac('sha256', hookSecrets.hmac).update(b).digest('hex'),
				}),
				(b: string) => ({
					'X-AML-Signature': createHmac('sha256', wrongSecret).update(b).digest('hex'),
				}),
			],
			[
				'header',
				{ method: 'header', headerName: 'X-Hook-Token', headerSecret: hookSecrets.header },
				() => ({ 'X-Hook-Token': hookSecrets.header }),
				() => ({ 'X-Hook-Token': wrongSecret }),
			],
			[
				'basicAuth',
				{ method: 'basicAuth', user: 'aml', password: hookSecrets.password },
				() => ({
					Authorization: `Basic ${Buffer.from(`aml:${hookSecrets.password}`).toString('base64')}`,
				}),
				() => ({ Authorization: `Basic ${Buffer.from(`aml:${wrongSecret}`).toString('base64')}` }),
			],
		] as const) {
			const hook = await n8n().createCredential(
				`faults secrets hook ${method} ${randomUUID().slice(0, 8)}`,
				'amlWebhookApi',
				data,
			);
			madeHooks.push(hook.id);
			const wf = await publish(
				{ authentication: 'amlWebhookApi', events: ['*'], options: { includeHeaders: true } },
				hook,
			);
			const body = JSON.stringify({
				action: 'MANUAL_ALERT_CREATED',
				createdTime: new Date().toISOString(),
				metadata: { alertId: 990_001, method },
			});
			const extra = {
				Cookie: hookSecrets.cookie,
				'Proxy-Authorization': `Basic ${Buffer.from(`proxy:${hookSecrets.proxy}`).toString('base64')}`,
				'content-type': 'application/json',
			};
			for (const headers of [wrong(body), right(body)]) {
				const r = await axios.post(wf.url, body, {
					headers: { ...extra, ...headers },
					validateStatus: () => true,
					transformRequest: (b) => b,
				});
				hookOutcomes.push(`${method} ${r.status}`);
			}
		}
		outcomes.webhooks = hookOutcomes;
		expect(hookOutcomes).toEqual([
			'hmac 401',
			'hmac 200',
			'header 401',
			'header 200',
			'basicAuth 401',
			'basicAuth 200',
		]);
		// The accepted deliveries' executions are finished before the search below.
		await new Promise((resolve) => setTimeout(resolve, 3000));

		// The search: every execution (full data) and n8n's log.
		const { clientId, clientSecret } = context().sandbox;
		const secrets: Array<[string, string]> = [
			['client secret', clientSecret],
			['wrong client secret', wrongSecret],
			['basic header', Buffer.from(`${clientId}:${clientSecret}`).toString('base64')],
			['basic header (wrong)', Buffer.from(`${clientId}:${wrongSecret}`).toString('base64')],
		];
		for (const [what, secret] of Object.entries(hookSecrets))
			secrets.push([`webhook ${what}`, secret]);
		secrets.push([
			'webhook basic header',
			Buffer.from(`aml:${hookSecrets.password}`).toString('base64'),
		]);
		secrets.push([
			'proxy basic header',
			Buffer.from(`proxy:${hookSecrets.proxy}`).toString('base64'),
		]);
		const issued = (await control.get<{ issued: string[] }>('/tokens')).issued;
		for (const token of issued) secrets.push(['access token', token]);
		expect(issued.length).toBeGreaterThan(0);

		const ids: string[] = [];
		let cursor: string | undefined;
		do {
			const page = await n8n().api.get('/executions', {
				params: { limit: 250, includeData: false, ...(cursor ? { cursor } : {}) },
			});
			expect(page.status).toBe(200);
			ids.push(...page.data.data.map((e: Json) => String(e.id)));
			cursor = page.data.nextCursor ?? undefined;
		} while (cursor);

		const found: string[] = [];
		let bytes = 0;
		let errorExecutions = 0;
		for (const id of ids) {
			const execution = await n8n().getExecution(id, true);
			if (execution.status === 'error') errorExecutions++;
			const text = JSON.stringify(execution);
			bytes += text.length;
			for (const [what, secret] of secrets)
				if (text.includes(secret)) found.push(`execution ${id}: ${what}`);
		}
		const log = fs.readFileSync(context().n8n.logFile, 'utf8');
		const logLines = log.split('\n');
		for (const [what, secret] of secrets) {
			const line = logLines.findIndex((l) => l.includes(secret));
			if (line !== -1) found.push(`n8n log line ${line + 1}: ${what}`);
		}
		report('secrets', {
			executionsSearched: ids.length,
			errorExecutions,
			megabytesSearched: Math.round(bytes / 1e5) / 10,
			logLines: logLines.length,
			accessTokensSearched: issued.length,
			secretsSearched: secrets.length,
			found,
			outcomes,
		});
		expect(ids.length).toBeGreaterThan(5);
		expect(found).toEqual([]);
	},
	30 * 60_000,
);
