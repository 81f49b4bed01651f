import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { amlNode } from '../contract/n8n';

/**
 * Detail tests of the transport run n8n's real HTTP client (the axios-based `httpRequest` that
 * `httpRequestWithAuthentication` ends in) against a real local server. Only the credential lookup
 * and the bearer header are stubbed here; token handling itself is tested in real n8n (e2e).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { httpRequest } = require(
	path.join(require.resolve('@n8n/backend-network'), '..', 'http', 'axios', 'request.js'),
);

/** The AML node as the unit tests' fake contexts give it (the contract tests' node, without a credential). */
export const TEST_NODE = amlNode();

export const FAKE_TOKEN = 'tok-SECRET-123456';
/** Backoff short enough for tests: 4 attempts, 5–20 ms apart, Retry-After up to 1.5 s. */
export const FAST_BACKOFF = {
	maxAttempts: 4,
	baseDelayMs: 5,
	maxDelayMs: 20,
	maxRetryAfterMs: 1500,
};
export const FAKE_SECRET = 'client-SECRET-abcdef';

export type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

export async function scriptedServer(handler: Handler) {
	const requests: Array<{
		method: string;
		url: string;
		body: string;
		headers: Record<string, unknown>;
	}> = [];
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk) => (body += chunk));
		req.on('end', () => {
			requests.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
			handler(req, body, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		// kept-alive connections (n8n 2.0's HTTP agent) and unanswered requests closed too, or close() waits for them
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** n8n's real HTTP client, each request signed with the stand-in's token as n8n's authenticated helper signs it. */
export const signedHelpers = {
	httpRequestWithAuthentication: async (_type: string, options: Record<string, unknown>) =>
		await httpRequest({
			...options,
			headers: { ...(options.headers as object), Authorization: `Bearer ${FAKE_TOKEN}` },
		}),
};

export function context(baseUrl: string, parameters: Record<string, unknown> = {}) {
	const node = TEST_NODE;
	return {
		getNode: () => node,
		getCredentials: async () => ({
			baseUrl,
			apiPathPrefix: '/api',
			accessTokenUrl: `${baseUrl}/oauth/token`,
			clientId: 'client',
			clientSecret: FAKE_SECRET,
			gateSigningSecrets: 'unit-1=in-process gate key, long enough',
			// the token the stand-in signs with, stored as n8n stores it
			oauthTokenData: { access_token: FAKE_TOKEN, token_type: 'Bearer' },
		}),
		getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback,
		getInputData: () => [{ json: {} }],
		continueOnFail: () => false,
		getExecutionCancelSignal: () => undefined,
		helpers: signedHelpers,
	} as never;
}

/**
 * A context whose credential holds an OAuth2 token the way n8n stores it (`oauthTokenData`), with n8n's real
 * `httpRequest` under counted stand-ins for n8n's OAuth2 handling:
 * - `httpRequestWithAuthentication` signs with the stored token (fetching one first when there is none) and, under
 *   the package's options, hands back every status, a 401 too (test/contract/serviceErrors.test.ts on each n8n).
 * - `refreshOAuth2Token` stores `nextToken()`.
 * With `lifetimeS`, the stored token data says the token endpoint's `expires_in`, with `expiresAt` n8n's expiry, as n8n
 * keeps them.
 */
export function tokenContext(
	baseUrl: string,
	opts: {
		stored?: string;
		nextToken?: () => string;
		lifetimeS?: number;
		/** n8n's expiry of the stored token (epoch ms), as 2.41.1 keeps it. */
		expiresAt?: () => number;
	} = {},
) {
	const store = { token: opts.stored, credentialReads: 0, viaN8n: 0, renewals: 0, fetches: 0 };
	let issued = 0;
	const nextToken = opts.nextToken ?? (() => `tok-renewed-${++issued}`);
	const node = TEST_NODE;
	const signed = async (options: Record<string, unknown>, token: string) =>
		await httpRequest({
			...options,
			ignoreHttpStatusErrors: options.ignoreHttpStatusErrors ? true : undefined,
			headers: { ...(options.headers as object), Authorization: `Bearer ${token}` },
		});
	const ctx = {
		getNode: () => node,
		getCredentials: async () => {
			store.credentialReads++;
			return {
				baseUrl,
				apiPathPrefix: '/api',
				accessTokenUrl: `${baseUrl}/oauth/token`,
				clientId: 'client',
				clientSecret: FAKE_SECRET,
				...(store.token
					? {
							oauthTokenData: {
								access_token: store.token,
								token_type: 'Bearer',
								...(opts.lifetimeS ? { expires_in: opts.lifetimeS } : {}),
								...(opts.expiresAt ? { n8n_expires_at: opts.expiresAt() } : {}),
							},
						}
					: {}),
			};
		},
		getNodeParameter: (_name: string, _i: number, fallback?: unknown) => fallback,
		getInputData: () => [{ json: {} }],
		continueOnFail: () => false,
		getExecutionCancelSignal: () => undefined,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: Record<string, unknown>) => {
				store.viaN8n++;
				if (!store.token) {
					store.fetches++;
					store.token = nextToken();
				}
				return await signed(options, store.token);
			},
			refreshOAuth2Token: async () => {
				store.renewals++;
				store.token = nextToken();
				return { access_token: store.token };
			},
		},
	};
	return { ctx: ctx as never, store };
}

/** An error's message, description and JSON, to look for a text anywhere in it (or make sure it is nowhere). */
export function errorText(error: unknown): string {
	const e = error as { message?: string; description?: string };
	return `${e.message} ${e.description ?? ''} ${JSON.stringify(error)}`;
}
