import type { IncomingMessage, ServerResponse } from 'node:http';

import { FAKE_SECRET, scriptedServer } from './realHttpContext';

/**
 * The token endpoint's failures, one table for the unit tests (test/unit/classify.test.ts, the package's n8n) and the
 * contract tests (test/contract/errors.test.ts, each supported n8n): what the endpoint does, what the seam must read
 * from the error n8n's OAuth2 client throws for it, and that error made by a given OAuth2 client against a local
 * server.
 */
export const TOKEN_ENDPOINT: Record<string, (res: ServerResponse, req: IncomingMessage) => void> = {
	drop: (_res, req) => req.socket.destroy(),
	'429 OAuth body': (res) =>
		res
			.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' })
			.end('{"error":"too_many_requests","error_description":"rate limit: 5 a minute"}'),
	'429 plain': (res) => res.writeHead(429, { 'retry-after': '3' }).end('slow down'),
	'503': (res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":503}'),
	invalid_client: (res) =>
		res
			.writeHead(401, { 'content-type': 'application/json' })
			.end('{"error":"invalid_client","error_description":"Bad client credentials"}'),
};

/** How the seam classifies each: busy (wait, ask again) except the refusal. */
export const TOKEN_ENDPOINT_OUTCOME: Record<string, object> = {
	drop: { kind: 'network', code: 'ECONNRESET' },
	'429 OAuth body': { kind: 'http', status: 429 },
	'429 plain': { kind: 'http', status: 429 },
	'503': { kind: 'http', status: 503 },
	invalid_client: { kind: 'http', status: 401 },
};

type OAuth2Client = new (options: {
	clientId: string;
	clientSecret: string;
	accessTokenUri: string;
}) => {
	credentials: { getToken(): Promise<unknown> };
};

/** The error `ClientOAuth2` (an n8n's @n8n/client-oauth2) throws for a client-credentials fetch the endpoint fails. */
export async function tokenEndpointError(
	ClientOAuth2: OAuth2Client,
	kind: string,
): Promise<{ error: Error; tokenUrl: string }> {
	const server = await scriptedServer((req, _body, res) => TOKEN_ENDPOINT[kind](res, req));
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
