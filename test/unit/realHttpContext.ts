import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

/**
 * Detail tests of the transport run n8n's real HTTP client (the axios-based `httpRequest` that
 * `httpRequestWithAuthentication` ends in) against a real local server. Only the credential lookup
 * and the bearer header are stubbed here; token handling itself is tested in real n8n (e2e).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { httpRequest } = require(path.join(require.resolve('@n8n/backend-network'), '..', 'http', 'axios', 'request.js'));

export const FAKE_TOKEN = 'tok-SECRET-123456';
export const FAKE_SECRET = 'client-SECRET-abcdef';

export type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

export async function scriptedServer(handler: Handler) {
	const requests: Array<{ method: string; url: string; body: string }> = [];
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk) => (body += chunk));
		req.on('end', () => {
			requests.push({ method: req.method ?? '', url: req.url ?? '', body });
			handler(req, body, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

export function context(baseUrl: string, parameters: Record<string, unknown> = {}) {
	const node = { id: 'n1', name: 'AML', type: 'n8n-nodes-aml.aml', typeVersion: 1, position: [0, 0], parameters: {} };
	return {
		getNode: () => node,
		getCredentials: async () => ({
			baseUrl,
			apiPathPrefix: '/api',
			accessTokenUrl: `${baseUrl}/oauth/token`,
			clientId: 'client',
			clientSecret: FAKE_SECRET,
		}),
		getNodeParameter: (name: string, _i: number, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
		getInputData: () => [{ json: {} }],
		continueOnFail: () => false,
		getExecutionCancelSignal: () => undefined,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: Record<string, unknown>) =>
				await httpRequest({ ...options, headers: { ...(options.headers as object), Authorization: `Bearer ${FAKE_TOKEN}` } }),
		},
	} as never;
}
