import type { INode, JsonObject } from 'n8n-workflow';

import { TOKEN_ENDPOINT, TOKEN_ENDPOINT_OUTCOME, tokenEndpointError } from '../unit/tokenEndpoint';
import {
	amlNode,
	N8N_VERSION,
	n8nCoreContains,
	n8nCoreDependency,
	n8nPackage,
	n8nPackageVersion,
	withN8n,
} from './n8n';

/**
 * Seam nodes/shared/n8n/errors.ts against this n8n's own code: the token endpoint's failures are produced by this
 * n8n's OAuth2 client (its @n8n/client-oauth2, against a scripted token endpoint; the table is test/unit/tokenEndpoint.ts),
 * wrapped with this n8n's error classes the way its n8n-core wraps a first token fetch (read from its compiled source),
 * and classified by the seam running with this n8n's n8n-workflow. A busy endpoint must read as busy, a refusal of the
 * client as a refusal (where it happened is known to the caller: a token step's failure is the token endpoint's).
 * The service's own failures: serviceErrors.test.ts.
 */
const seam = withN8n(() => ({
	errors:
		require('../../nodes/shared/n8n/errors') as typeof import('../../nodes/shared/n8n/errors'),
	transport:
		require('../../nodes/Aml/transport/errors') as typeof import('../../nodes/Aml/transport/errors'),
}));
const workflow = n8nPackage('n8n-workflow');
const { ClientOAuth2 } = n8nCoreDependency('@n8n/client-oauth2');
const node: INode = amlNode();

/** How this n8n hands a failed first token fetch to the node, as measured: 2.41.1 wraps it in an OperationalError. */
const MEASURED_FIRST_FETCH_WRAPPER: Record<string, boolean> = {
	'1.123.81': false,
	'2.0.3': false,
	'2.41.1': true,
};
const wrapsFirstFetch = n8nCoreContains('Failed to acquire OAuth2 access token');

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

	test.each(
		Object.keys(TOKEN_ENDPOINT).flatMap((kind) => [
			[kind, 'first fetch'],
			[kind, 'renewal'],
		]),
	)('token endpoint %s on the %s: busy or refused as it is', async (kind, when) => {
		const { error } = await tokenEndpointError(ClientOAuth2, kind);
		const thrown = when === 'first fetch' ? firstFetch(error) : error;
		const outcome = seam.errors.classify(thrown);
		expect(outcome).toMatchObject(TOKEN_ENDPOINT_OUTCOME[kind]);
		expect(seam.transport.isTokenEndpointBusy(outcome)).toBe(kind !== 'invalid_client');
		expect(seam.transport.isTokenRefusal(outcome)).toBe(kind === 'invalid_client');
	});

	test('whether this n8n keeps the cause of a NodeApiError (1.x and 2.0 do not: measured; the seam then reads httpCode and messages)', () => {
		const kept = new workflow.NodeApiError(node, new Error('inner') as unknown as JsonObject) as {
			cause?: unknown;
		};
		const measured: Record<string, boolean> = { '1.123.81': false, '2.0.3': false, '2.41.1': true };
		expect(kept.cause !== undefined).toBe(measured[N8N_VERSION] ?? kept.cause !== undefined);
	});
});
