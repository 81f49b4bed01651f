import type { INode, JsonObject } from 'n8n-workflow';

import { FAKE_SECRET, scriptedServer } from '../unit/realHttpContext';
import {
	N8N_VERSION,
	n8nCoreContains,
	n8nCoreDependency,
	n8nPackage,
	n8nPackageVersion,
	withN8n,
} from './n8n';

/**
 * Seam nodes/shared/n8n/errors.ts against this n8n's own code: the token endpoint's failures are produced by this
 * n8n's OAuth2 client (its @n8n/client-oauth2, against a scripted token endpoint), wrapped with this n8n's error
 * classes the way its n8n-core wraps a first token fetch (read from its compiled source), and classified by the seam
 * running with this n8n's n8n-workflow. Every failure at the token endpoint must read as the token endpoint's (no
 * service request sent), a busy endpoint as busy, a refusal of the client as a refusal.
 */
const seam = withN8n(() => ({
	errors:
		require('../../nodes/shared/n8n/errors') as typeof import('../../nodes/shared/n8n/errors'),
	classify:
		require('../../nodes/Aml/transport/classify') as typeof import('../../nodes/Aml/transport/classify'),
}));
const workflow = n8nPackage('n8n-workflow');
const { ClientOAuth2 } = n8nCoreDependency('@n8n/client-oauth2');
const node: INode = {
	id: 'n1',
	name: 'AML',
	type: 'n8n-nodes-aml.aml',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** How this n8n hands a failed first token fetch to the node, as measured: 2.41.1 wraps it in an OperationalError. */
const MEASURED_FIRST_FETCH_WRAPPER: Record<string, boolean> = {
	'1.123.81': false,
	'2.0.3': false,
	'2.41.1': true,
};
const wrapsFirstFetch = n8nCoreContains('Failed to acquire OAuth2 access token');

const endpoint: Record<
	string,
	(res: import('node:http').ServerResponse, req: import('node:http').IncomingMessage) => void
> = {
	drop: (_res, req) => req.socket.destroy(),
	'429 OAuth body': (res) =>
		res
			.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' })
			.end('{"error":"too_many_requests"}'),
	'429 plain': (res) => res.writeHead(429, { 'retry-after': '3' }).end('slow down'),
	'503': (res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":503}'),
	invalid_client: (res) =>
		res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}'),
};

async function tokenError(kind: string): Promise<{ error: Error; tokenUrl: string }> {
	const server = await scriptedServer((req, _body, res) => endpoint[kind](res, req));
	try {
		const tokenUrl = `${server.baseUrl}/oauth/token`;
		const client = new ClientOAuth2({
			clientId: 'c',
			clientSecret: FAKE_SECRET,
			accessTokenUri: tokenUrl,
		});
		const error = await client.credentials.getToken().then(
			() => new Error('the token endpoint answered a token'),
			(thrown: Error) => thrown,
		);
		return { error, tokenUrl };
	} finally {
		await server.close();
	}
}

/** A first fetch's failure as this n8n throws it from httpRequestWithAuthentication. */
function firstFetch(error: Error): unknown {
	const cause = wrapsFirstFetch
		? new workflow.OperationalError(`Failed to acquire OAuth2 access token: ${error.message}`, {
				cause: error,
			})
		: error;
	return new workflow.NodeApiError(node, cause as unknown as JsonObject);
}

describe(`n8n's errors on n8n ${N8N_VERSION} (n8n-core ${n8nPackageVersion('n8n-core')})`, () => {
	test('n8n wraps a failed first token fetch as measured', () => {
		expect(wrapsFirstFetch).toBe(MEASURED_FIRST_FETCH_WRAPPER[N8N_VERSION] ?? wrapsFirstFetch);
	});

	const expected: Record<string, object> = {
		drop: { kind: 'network', code: 'ECONNRESET', fromTokenEndpoint: true },
		'429 OAuth body': { kind: 'http', status: 429, fromTokenEndpoint: true },
		'429 plain': { kind: 'http', status: 429, fromTokenEndpoint: true },
		'503': { kind: 'http', status: 503, fromTokenEndpoint: true },
		invalid_client: { kind: 'http', status: 401, fromTokenEndpoint: true },
	};

	test.each(
		Object.keys(endpoint).flatMap((kind) => [
			[kind, 'first fetch'],
			[kind, 'renewal'],
		]),
	)(
		"token endpoint %s on the %s: the token endpoint's, busy or refused as it is",
		async (kind, when) => {
			const { error, tokenUrl } = await tokenError(kind);
			const thrown = when === 'first fetch' ? firstFetch(error) : error;
			const outcome = seam.errors.classify(thrown, tokenUrl);
			if (
				kind === 'drop' &&
				when === 'first fetch' &&
				!wrapsFirstFetch &&
				!(thrown as { cause?: unknown }).cause
			) {
				// this n8n keeps no cause: auth.ts asks the credential (no token stored → the token fetch failed)
				expect(outcome).toMatchObject({ kind: 'network', code: 'ECONNRESET' });
				return;
			}
			expect(outcome).toMatchObject(expected[kind]);
			expect(seam.classify.isTokenEndpointBusy(outcome)).toBe(kind !== 'invalid_client');
			expect(seam.classify.isTokenRefusal(outcome)).toBe(kind === 'invalid_client');
		},
	);

	test('whether this n8n keeps the cause of a NodeApiError (1.x and 2.0 do not: measured, and auth.ts relies on the credential then)', () => {
		const kept = new workflow.NodeApiError(node, new Error('inner') as unknown as JsonObject) as {
			cause?: unknown;
		};
		const measured: Record<string, boolean> = { '1.123.81': false, '2.0.3': false, '2.41.1': true };
		expect(kept.cause !== undefined).toBe(measured[N8N_VERSION] ?? kept.cause !== undefined);
	});
});
