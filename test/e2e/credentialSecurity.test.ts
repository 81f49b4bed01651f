import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

import {
	amlCredentialData,
	context,
	control,
	n8n,
	runAml,
	runNode,
	type Json,
} from '../harness/context';
import { N8N_VERSION } from '../harness/n8nVersions';

/**
 * The AML OAuth2 credential in real n8n (SECURITY.md):
 * - a user who may only use the credential cannot have n8n's HTTP Request node send its token anywhere: the
 *   credential's "Allowed HTTP Request Domains" defaults to None (on every n8n); with Specific Domains and the API
 *   host listed, another host is refused on n8n 2.x and the AML host works; the AML node and its credential test
 *   work either way;
 * - an http:// API Base URL or Token URL on another machine is refused before anything is sent (here 0.0.0.0, which
 *   reaches this machine but is not a loopback name), unless "Allow Plain HTTP (Insecure)" is on.
 */

const made: string[] = [];
let capture: {
	url: string;
	requests: Array<{ url: string; authorization?: string }>;
	close: () => Promise<void>;
};

beforeAll(async () => {
	const requests: Array<{ url: string; authorization?: string }> = [];
	const server = http.createServer((req, res) => {
		requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
		res.writeHead(200, { 'content-type': 'application/json' }).end('{"captured":true}');
	});
	// Every interface of this machine, IPv4 and IPv6: "localhost" reaches it whichever n8n resolves first.
	await new Promise<void>((resolve) => server.listen(0, resolve));
	const { port } = server.address() as AddressInfo;
	capture = {
		url: `http://localhost:${port}`,
		requests,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
});

afterAll(async () => {
	await capture.close();
	for (const id of made)
		await n8n()
			.deleteCredential(id)
			.catch(() => undefined);
});

async function credential(data: Json = {}): Promise<{ id: string; name: string }> {
	const c = await n8n().createCredential(
		`credential security ${randomUUID().slice(0, 8)}`,
		'amlOAuth2Api',
		amlCredentialData(data),
	);
	made.push(c.id);
	return c;
}

/** n8n's HTTP Request node using the AML credential ("Predefined Credential Type"), as a user with use access can set it up. */
async function httpRequestWith(cred: { id: string; name: string }, url: string) {
	return await runNode(
		{
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			name: 'HTTP',
			parameters: {
				url,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'amlOAuth2Api',
				options: {},
			},
			credentials: { amlOAuth2Api: cred },
		},
		[{}],
		{ credentials: { amlOAuth2Api: cred } },
	);
}

/** n8n 1.123.x checks Specific Domains for an OAuth2 credential in the HTTP Request node on redirects only (measured). */
const domainsChecked = !/^1\./.test(N8N_VERSION);

describe('AML credential: the token stays with the AML host', () => {
	test(`Specific Domains with the API Base URL host: ${domainsChecked ? 'another host refused, nothing sent' : 'n8n 1.x still sends the token to another host'}; the AML host, the AML node and the credential test keep working`, async () => {
		const cred = await credential({
			allowedHttpRequestDomains: 'domains',
			allowedDomains: new URL(context().sandbox.baseUrl).hostname,
		});
		const before = capture.requests.length;
		const elsewhere = await httpRequestWith(cred, `${capture.url}/steal`);
		const own = await httpRequestWith(
			cred,
			`${context().sandbox.baseUrl}/api/v1/screening-list-groups`,
		);
		const node = await runAml(
			{ resource: 'person', operation: 'get', personId: 'cust-1001' },
			[{}],
			{ credentials: { amlOAuth2Api: cred } },
			{ credentials: { amlOAuth2Api: cred } },
		);
		const tested = await n8n().testCredential(cred.id);
		const captured = capture.requests.slice(before);
		console.log(
			'[security] http-request-exfiltration',
			JSON.stringify({
				version: process.env.AML_N8N_VERSION ?? 'default',
				mode: 'domains',
				elsewhere: elsewhere.error?.message ?? elsewhere.status,
				captured: captured.map((r) => ({
					url: r.url,
					bearer: /^Bearer /.test(r.authorization ?? ''),
				})),
				own: own.error?.message ?? own.status,
				node: node.error?.message ?? node.status,
				tested,
			}),
		);
		if (domainsChecked) {
			expect(captured).toEqual([]);
			expect(elsewhere.status).toBe('error');
			expect(elsewhere.error?.message).toMatch(/Domain not allowed|restricted from accessing/);
		} else {
			// What SECURITY.md tells 1.x operators: choose None there.
			expect(captured.map((r) => /^Bearer /.test(r.authorization ?? ''))).toEqual([true]);
		}
		expect(own.status).toBe('success');
		expect(own.outputs[0]?.length).toBeGreaterThan(0);
		expect(node.status).toBe('success');
		expect(node.outputs[0]?.[0]).toMatchObject({ id: 'cust-1001' });
		expect(tested).toMatchObject({ status: 'OK' });
	});

	test('default (None): the HTTP Request node may not use the credential at all (nothing sent, on every n8n); the AML node and the credential test keep working', async () => {
		// the data n8n stores for a credential whose user left this field alone: no value, so the default holds
		const cred = await credential();
		const before = capture.requests.length;
		const elsewhere = await httpRequestWith(cred, `${capture.url}/steal`);
		const node = await runAml(
			{ resource: 'person', operation: 'get', personId: 'cust-1001' },
			[{}],
			{ credentials: { amlOAuth2Api: cred } },
			{ credentials: { amlOAuth2Api: cred } },
		);
		const tested = await n8n().testCredential(cred.id);
		console.log(
			'[security] http-request-exfiltration',
			JSON.stringify({
				version: process.env.AML_N8N_VERSION ?? 'default',
				mode: 'none',
				elsewhere: elsewhere.error?.message ?? elsewhere.status,
				captured: capture.requests.length - before,
				node: node.error?.message ?? node.status,
				tested,
			}),
		);
		expect(capture.requests.slice(before)).toEqual([]);
		expect(elsewhere.error?.message).toMatch(/prevent use within an HTTP Request/);
		expect(node.status).toBe('success');
		expect(tested).toMatchObject({ status: 'OK' });
	});
});

describe('AML credential: no secret over plain http to another machine', () => {
	const elsewhere = () => context().sandbox.baseUrl.replace('127.0.0.1', '0.0.0.0');

	test.each([
		['API Base URL', () => ({ baseUrl: elsewhere() })],
		['Token URL', () => ({ accessTokenUrl: `${elsewhere()}/oauth/token` })],
	])(
		'an http:// %s that is not loopback is refused before any request, naming the field; the option lets it through',
		async (field, data) => {
			const cred = await credential(data());
			const mark = await control.mark();
			const refused = await runAml(
				{ resource: 'person', operation: 'get', personId: 'cust-1001' },
				[{}],
				{ credentials: { amlOAuth2Api: cred } },
				{ credentials: { amlOAuth2Api: cred } },
			);
			const sent = await control.requestsSince(mark);
			expect(refused.status).toBe('error');
			expect(refused.error?.message).toMatch(
				new RegExp(
					`^The credential's ${field} \\(http://0\\.0\\.0\\.0:\\d+\\) uses plain http: .*Nothing was sent$`,
				),
			);
			expect(JSON.stringify(refused.error)).not.toContain(context().sandbox.clientSecret);
			expect(sent).toEqual([]);

			const allowed = await credential({ ...data(), allowInsecureHttp: true });
			const passed = await runAml(
				{ resource: 'person', operation: 'get', personId: 'cust-1001' },
				[{}],
				{ credentials: { amlOAuth2Api: allowed } },
				{ credentials: { amlOAuth2Api: allowed } },
			);
			expect(passed.status).toBe('success');
			expect(passed.outputs[0]?.[0]).toMatchObject({ id: 'cust-1001' });
		},
	);
});

describe('AML credential test: no secret over plain http to another machine', () => {
	// every case tests fresh credentials: each asks for a first token
	beforeAll(async () => {
		await control.post('/config', { tokenRateLimit: { max: 1000, windowSeconds: 60 } });
	});
	afterAll(async () => {
		await control.post('/config', { tokenRateLimit: { max: 5, windowSeconds: 60 } });
	});
	const elsewhere = () => context().sandbox.baseUrl.replace('127.0.0.1', '0.0.0.0');

	test.each([
		['API Base URL', () => ({ baseUrl: elsewhere() })],
		['Token URL', () => ({ accessTokenUrl: `${elsewhere()}/oauth/token` })],
	])(
		"n8n's credential test with an http:// %s that is not loopback sends nothing (no token request, no API request) and names the field; the option lets it through",
		async (field, data) => {
			const cred = await credential(data());
			const mark = await control.mark();
			const tested = await n8n().testCredential(cred.id);
			const sent = await control.requestsSince(mark);
			console.log(
				'[security] credential-test-plain-http',
				JSON.stringify({ version: process.env.AML_N8N_VERSION ?? 'default', field, tested, sent }),
			);
			expect(sent).toEqual([]);
			expect(tested.status).toBe('Error');
			expect(tested.message).toContain(`The credential's ${field} (http://0.0.0.0:`);
			expect(tested.message).toContain('Nothing was sent');
			expect(JSON.stringify(tested)).not.toContain(context().sandbox.clientSecret);

			const allowed = await credential({ ...data(), allowInsecureHttp: true });
			expect(await n8n().testCredential(allowed.id)).toMatchObject({ status: 'OK' });
		},
	);

	test('loopback http (127.0.0.1, localhost) and https pass the credential test check', async () => {
		const local = await credential({
			baseUrl: context().sandbox.baseUrl.replace('127.0.0.1', 'localhost'),
		});
		expect(await n8n().testCredential(local.id)).toMatchObject({ status: 'OK' });
		expect(await n8n().testCredential((await credential()).id)).toMatchObject({ status: 'OK' });
	});
});

describe('AML credential: URL fields are bounded', () => {
	test('an API Path Prefix of 200,000 characters is refused at once by the node and by the credential test, nothing sent', async () => {
		const cred = await credential({ apiPathPrefix: `x${'/'.repeat(200_000)}x` });
		const mark = await control.mark();
		const started = Date.now();
		const refused = await runAml(
			{ resource: 'person', operation: 'get', personId: 'cust-1001' },
			[{}],
			{ credentials: { amlOAuth2Api: cred } },
			{ credentials: { amlOAuth2Api: cred } },
		);
		const nodeMs = Date.now() - started;
		const tested = await n8n().testCredential(cred.id);
		const sent = await control.requestsSince(mark);
		console.log(
			'[security] long-url-field',
			JSON.stringify({ nodeMs, refused: refused.error?.message, tested, sent: sent.length }),
		);
		expect(refused.status).toBe('error');
		expect(refused.error?.message).toMatch(
			/^The credential's API Path Prefix is longer than 2048 characters/,
		);
		expect(nodeMs).toBeLessThan(5_000);
		expect(tested.status).toBe('Error');
		expect(tested.message).toContain(
			"The credential's API Path Prefix is longer than 2048 characters",
		);
		expect(sent).toEqual([]);
	});
});
