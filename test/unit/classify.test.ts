/** The seam's `classify` (nodes/shared/n8n/errors.ts) with n8n's real OAuth2 client and error classes of this package's n8n. */
import { ClientOAuth2 } from '@n8n/client-oauth2';
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, OperationalError } from 'n8n-workflow';

import { classify } from '../../nodes/shared/n8n/errors';
import { isTokenEndpointBusy, isTokenRefusal } from '../../nodes/Aml/transport/errors';
import { httpRequest, scriptedServer, TEST_NODE } from './realHttpContext';
import { TOKEN_ENDPOINT, TOKEN_ENDPOINT_OUTCOME, tokenEndpointError } from './tokenEndpoint';

describe("classify: n8n's errors read by their whole chain of causes (table; every row a real error of n8n's OAuth2 client)", () => {
	const node = TEST_NODE as unknown as INode;
	// How each n8n hands that error to the node (see nodes/shared/n8n/errors.ts).
	const wrappers: Record<string, (error: Error) => unknown> = {
		'2.41.1 first fetch (NodeApiError → OperationalError → cause)': (error) =>
			new NodeApiError(
				node,
				new OperationalError(`Failed to acquire OAuth2 access token: ${error.message}`, {
					cause: error,
				}) as unknown as JsonObject,
			),
		// n8n-workflow 1.x and 2.0.x declare `cause` as a class field, which wipes the cause the constructor set
		'1.123.81 / 2.0.3 first fetch (NodeApiError, its cause wiped)': (error) =>
			Object.assign(new NodeApiError(node, error as unknown as JsonObject), { cause: undefined }),
		"renewal (refreshOAuth2Token throws the client's error)": (error) => error,
	};
	const rows = Object.keys(TOKEN_ENDPOINT).flatMap((kind) =>
		Object.keys(wrappers).map((wrapper) => [kind, wrapper] as const),
	);
	test.each(rows)(
		'token endpoint %s, %s: its status or network failure, busy or refused as it is',
		async (kind, wrapper) => {
			const { error } = await tokenEndpointError(ClientOAuth2, kind);
			const outcome = classify(wrappers[wrapper](error));
			expect(outcome).toMatchObject(TOKEN_ENDPOINT_OUTCOME[kind]);
			expect(isTokenEndpointBusy(outcome)).toBe(kind !== 'invalid_client');
			expect(isTokenRefusal(outcome)).toBe(kind === 'invalid_client');
		},
	);

	test("a service request that got no answer, as n8n 2.x wraps it, is the service's (it may have been applied)", async () => {
		const server = await scriptedServer((req) => req.socket.destroy());
		try {
			const error = await httpRequest({ url: `${server.baseUrl}/api/v1/x`, method: 'POST' }).catch(
				(e: Error) => e,
			);
			expect(classify(new NodeApiError(node, error as JsonObject))).toEqual({
				kind: 'network',
				code: 'ECONNRESET',
			});
		} finally {
			await server.close();
		}
	});

	// n8n 1.x's NodeApiError keeps no cause: the mapped message, the original one among `messages`, the code as
	// `httpCode`.
	const wrapped = (httpCode: string, original: string, mapped: string) =>
		Object.assign(new Error(mapped), { httpCode, messages: [original] });
	test.each([
		[
			'ECONNABORTED',
			'timeout of 1000ms exceeded',
			'The connection was aborted, perhaps the server is offline',
			'ETIMEDOUT',
		],
		[
			'ECONNRESET',
			'socket hang up',
			'The connection to the server was closed unexpectedly, perhaps it is offline.',
			'ECONNRESET',
		],
		[
			'ECONNREFUSED',
			'connect ECONNREFUSED 127.0.0.1:9',
			'The service refused the connection - perhaps it is offline',
			'ECONNREFUSED',
		],
	])('n8n 1.x: %s (%s) is a network failure: %s', (httpCode, original, mapped, code) => {
		expect(classify(wrapped(httpCode, original, mapped))).toEqual({ kind: 'network', code });
	});
	test("n8n 1.x: a status thrown without the answer (a token step's) reads as that status", () => {
		expect(
			classify(wrapped('429', 'too many', 'The service is receiving too many requests from you')),
		).toMatchObject({ kind: 'http', status: 429 });
	});
});
