import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { amlRequest, backoffDelay, DEFAULT_BACKOFF, parseRetryAfter, type BackoffPolicy } from '../../nodes/Aml/transport';
import { context, FAKE_SECRET, FAKE_TOKEN, scriptedServer } from './realHttpContext';

const fast: BackoffPolicy = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1500 };

function errorText(error: unknown): string {
	const e = error as { message?: string; description?: string };
	return `${e.message} ${e.description ?? ''} ${JSON.stringify(error)}`;
}

describe('transport: amlRequest against a real local server', () => {
	test('retries 5xx on a safe request and returns the later success', async () => {
		let calls = 0;
		const server = await scriptedServer((_req, _body, res) => {
			calls++;
			if (calls < 3) {
				res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"busy"}');
			} else {
				res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"p1"}');
			}
		});
		try {
			const response = await amlRequest.call(context(server.baseUrl), { method: 'GET', path: '/v1/persons/p1' }, 0, fast);
			expect(response.body).toEqual({ id: 'p1' });
			expect(response.attempts).toBe(3);
			expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill('/api/v1/persons/p1'));
		} finally {
			await server.close();
		}
	});

	test('honours Retry-After on 429 (seconds)', async () => {
		let calls = 0;
		const server = await scriptedServer((_req, _body, res) => {
			calls++;
			if (calls === 1) res.writeHead(429, { 'retry-after': '1' }).end();
			else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
		});
		try {
			const started = Date.now();
			await amlRequest.call(context(server.baseUrl), { method: 'GET', path: '/v1/x' }, 0, fast);
			expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		} finally {
			await server.close();
		}
	});

	test('a POST without retry mode is not repeated after a 500', async () => {
		const server = await scriptedServer((_req, _body, res) => res.writeHead(500).end('boom'));
		try {
			await expect(
				amlRequest.call(context(server.baseUrl), { method: 'POST', path: '/v1/manual-alerts', body: { a: '1' } }, 2, fast),
			).rejects.toMatchObject({ httpCode: '500' });
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});

	test('a create retried after a lost answer that then gets 422 counts as created and is not sent a third time', async () => {
		let calls = 0;
		const server = await scriptedServer((req, _body, res) => {
			calls++;
			if (calls === 1) {
				req.socket.destroy();
				return;
			}
			res.writeHead(422, { 'content-type': 'text/plain' }).end('Person with id p1 already exists');
		});
		try {
			const response = await amlRequest.call(
				context(server.baseUrl),
				{ method: 'POST', path: '/v2/persons', body: { id: 'p1' }, retry: 'create' },
				0,
				fast,
			);
			expect(response.createdOnRetry).toBe(true);
			expect(server.requests).toHaveLength(2);
		} finally {
			await server.close();
		}
	});

	test('a first-attempt 422 is an error with the spec meaning and the service text (plain text body)', async () => {
		const server = await scriptedServer((_req, _body, res) =>
			res.writeHead(422, { 'content-type': 'text/plain' }).end('Person with id p1 already exists'),
		);
		try {
			const error = await amlRequest
				.call(context(server.baseUrl), { method: 'POST', path: '/v2/persons', body: { id: 'p1' }, retry: 'create' }, 3, fast)
				.catch((e: unknown) => e);
			expect((error as Error).message).toMatch(/Already exists/);
			expect((error as Error).message).toMatch(/Person with id p1 already exists/);
			expect((error as { context: { itemIndex: number } }).context.itemIndex).toBe(3);
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});

	test.each([
		[400, 'Bad request'],
		[403, 'Insufficient permissions'],
		[404, 'Not found'],
		[409, 'State conflict'],
	])('HTTP %i with a JSON body maps to its meaning, no retry, no secret in the error', async (status, meaning) => {
		const server = await scriptedServer((_req, _body, res) =>
			res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status, message: 'detail from service' })),
		);
		try {
			const error = await amlRequest.call(context(server.baseUrl), { method: 'GET', path: '/v1/persons/x' }, 0, fast).catch((e: unknown) => e);
			expect((error as Error).message).toContain(meaning);
			expect((error as Error).message).toContain('detail from service');
			expect(server.requests).toHaveLength(1);
			expect(errorText(error)).not.toContain(FAKE_TOKEN);
			expect(errorText(error)).not.toContain(FAKE_SECRET);
		} finally {
			await server.close();
		}
	});

	test('a 401 that survived n8n\'s own token renewal is tried once more (for any request), then reported', async () => {
		let calls = 0;
		const server = await scriptedServer((_req, _body, res) => {
			calls++;
			if (calls === 1 || calls >= 3) res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Full authentication is required"}');
			else res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":7}');
		});
		try {
			const once = await amlRequest.call(context(server.baseUrl), { method: 'POST', path: '/v1/manual-alerts', body: { a: '1' } }, 0, fast);
			expect(once).toMatchObject({ status: 200, attempts: 2 });
			await expect(amlRequest.call(context(server.baseUrl), { method: 'GET', path: '/v1/persons/p1' }, 0, fast)).rejects.toMatchObject({ httpCode: '401' });
			expect(server.requests).toHaveLength(4);
		} finally {
			await server.close();
		}
	});

	test('an answer n8n wrapped in a NodeApiError (as after a token renewal) is still the API\'s: a POST is not repeated after its 500', async () => {
		const server = await scriptedServer((_req, _body, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"boom"}'));
		try {
			const ctx = context(server.baseUrl) as unknown as { helpers: { httpRequestWithAuthentication: (...a: unknown[]) => Promise<unknown> }; getNode: () => INode };
			const inner = ctx.helpers.httpRequestWithAuthentication;
			ctx.helpers.httpRequestWithAuthentication = async (...args: unknown[]) => {
				try {
					return await inner(...args);
				} catch (error) {
					throw new NodeApiError(ctx.getNode(), error as JsonObject);
				}
			};
			const failure = await amlRequest.call(ctx as never, { method: 'POST', path: '/v1/manual-alerts', body: { a: '1' } }, 0, fast).catch((e: unknown) => e);
			expect(failure).toMatchObject({ httpCode: '500' });
			expect(errorText(failure)).toMatch(/POST \/v1\/manual-alerts answered HTTP 500/);
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});

	test('gives up after maxAttempts on persistent 5xx and says how many attempts were made', async () => {
		const server = await scriptedServer((_req, _body, res) => res.writeHead(502).end());
		try {
			const error = await amlRequest.call(context(server.baseUrl), { method: 'GET', path: '/v1/x' }, 0, fast).catch((e: unknown) => e);
			expect(server.requests).toHaveLength(fast.maxAttempts);
			expect((error as { description: string }).description).toContain(`after ${fast.maxAttempts} attempts`);
		} finally {
			await server.close();
		}
	});

	test('network failure gives a clear, secret-free error', async () => {
		const server = await scriptedServer((req) => req.socket.destroy());
		try {
			const error = await amlRequest.call(context(server.baseUrl), { method: 'GET', path: '/v1/x' }, 0, fast).catch((e: unknown) => e);
			expect((error as Error).message).toMatch(/could not be reached/);
			expect(errorText(error)).not.toContain(FAKE_TOKEN);
		} finally {
			await server.close();
		}
	});
});

describe('backoff', () => {
	test('Retry-After as seconds and as HTTP date', () => {
		expect(parseRetryAfter('3')).toBe(3000);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('soon')).toBeUndefined();
	});

	test('exponential delays stay within [ceiling/2, ceiling] and the cap', () => {
		for (let attempt = 1; attempt <= 10; attempt++) {
			const ceiling = Math.min(DEFAULT_BACKOFF.maxDelayMs, DEFAULT_BACKOFF.baseDelayMs * 2 ** (attempt - 1));
			expect(backoffDelay(attempt, DEFAULT_BACKOFF, undefined, () => 0)).toBe(ceiling / 2);
			expect(backoffDelay(attempt, DEFAULT_BACKOFF, undefined, () => 1)).toBe(ceiling);
		}
		expect(backoffDelay(1, DEFAULT_BACKOFF, 10 * 60_000)).toBe(DEFAULT_BACKOFF.maxRetryAfterMs);
	});
});
