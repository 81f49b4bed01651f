/** nodes/Aml/transport/request.ts: `amlRequest` against a real local server, through n8n's real HTTP client. */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { amlRequest, failureOf } from '../../nodes/Aml/transport';
import {
	context,
	errorText,
	FAKE_SECRET,
	FAKE_TOKEN,
	FAST_BACKOFF,
	scriptedServer,
} from './realHttpContext';

/** A time budget of `ms` from now. */
const deadlineIn = (ms: number) => ({ at: Date.now() + ms, ms });

describe('transport: amlRequest against a real local server', () => {
	test('an execution cancelled while a check is on its way: the failure says it may have been applied (a read: not)', async () => {
		const server = await scriptedServer(async (_req, _body, res) => {
			await new Promise((resolve) => setTimeout(resolve, 300));
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
		});
		try {
			for (const method of ['POST', 'GET'] as const) {
				const cancel = new AbortController();
				const ctx = {
					...(context(server.baseUrl) as object),
					getExecutionCancelSignal: () => cancel.signal,
				};
				setTimeout(() => cancel.abort(), 50);
				const error = await amlRequest
					.call(
						ctx as never,
						{ method, path: '/v1/transactions/t1/monitoring-checks', retry: 'check' },
						0,
					)
					.catch((e: unknown) => e);
				expect(error).toBeInstanceOf(NodeApiError);
				expect(failureOf(error)?.mayHaveApplied !== undefined).toBe(method === 'POST');
				expect((error as Error).message).toMatch(
					method === 'POST'
						? /^The execution was cancelled while the request was on its way\. The request reached the service and may have been applied/
						: /^The execution was cancelled$/,
				);
			}
		} finally {
			await server.close();
		}
	});

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
			const response = await amlRequest.call(
				context(server.baseUrl),
				{ method: 'GET', path: '/v1/persons/p1' },
				0,
				FAST_BACKOFF,
			);
			expect(response.body).toEqual({ id: 'p1' });
			expect(response.attempts).toBe(3);
			expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill('/api/v1/persons/p1'));
		} finally {
			await server.close();
		}
	});

	test.each([
		['an empty GET answer', 'GET', '', undefined, /answer was empty/],
		['an HTML page', 'GET', '<html>down</html>', undefined, /not JSON/],
		['a page without content', 'GET', '{"total":3}', { listField: 'content' }, /no content list/],
		['an object without the ID', 'GET', '{"name":"x"}', { fields: ['id'] }, /lacks id/],
		[
			'neither a list nor a content list',
			'GET',
			'{}',
			{ list: true, listField: 'content' },
			/no content list/,
		],
		['a POST answered with no body, no expectation', 'POST', '', undefined, undefined],
		[
			'a bare list where a list or content is expected',
			'GET',
			'[1]',
			{ list: true, listField: 'content' },
			undefined,
		],
	] as Array<
		[
			string,
			'GET' | 'POST',
			string,
			{ list?: boolean; fields?: string[]; listField?: string } | undefined,
			RegExp | undefined,
		]
	>)(
		'a 2xx answer the caller cannot read fails once, unrepeated: %s',
		async (_name, method, body, answer, problem) => {
			let calls = 0;
			const server = await scriptedServer((_req, _body, res) => {
				calls++;
				res
					.writeHead(200, {
						'content-type': body.startsWith('<') ? 'text/html' : 'application/json',
					})
					.end(body);
			});
			try {
				const outcome = await amlRequest
					.call(context(server.baseUrl), { method, path: '/v1/x', answer }, 0, FAST_BACKOFF)
					.then(
						() => 'read',
						(error: Error) => error.message,
					);
				if (problem) expect(outcome).toMatch(problem);
				else expect(outcome).toBe('read');
				if (problem) expect(outcome).toMatch(/^The AML service's answer could not be read/);
				expect(calls).toBe(1);
			} finally {
				await server.close();
			}
		},
	);

	test('honours Retry-After on 429 (seconds)', async () => {
		let calls = 0;
		const server = await scriptedServer((_req, _body, res) => {
			calls++;
			if (calls === 1) res.writeHead(429, { 'retry-after': '1' }).end();
			else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
		});
		try {
			const started = Date.now();
			await amlRequest.call(
				context(server.baseUrl),
				{ method: 'GET', path: '/v1/x' },
				0,
				FAST_BACKOFF,
			);
			expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		} finally {
			await server.close();
		}
	});

	test('a POST without retry mode is not repeated after a 500', async () => {
		const server = await scriptedServer((_req, _body, res) => res.writeHead(500).end('boom'));
		try {
			await expect(
				amlRequest.call(
					context(server.baseUrl),
					{ method: 'POST', path: '/v1/manual-alerts', body: { a: '1' } },
					2,
					FAST_BACKOFF,
				),
			).rejects.toMatchObject({ httpCode: '500' });
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});

	test('a create retried after a lost answer that then gets 422 is answered as stored-after-a-lost-answer (not as created) and is not sent a third time', async () => {
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
				FAST_BACKOFF,
			);
			expect(response).toMatchObject({ status: 422, afterLostAnswer: true });
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
				.call(
					context(server.baseUrl),
					{ method: 'POST', path: '/v2/persons', body: { id: 'p1' }, retry: 'create' },
					3,
					FAST_BACKOFF,
				)
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
	])(
		'HTTP %i with a JSON body maps to its meaning, no retry, no secret in the error',
		async (status, meaning) => {
			const server = await scriptedServer((_req, _body, res) =>
				res
					.writeHead(status, { 'content-type': 'application/json' })
					.end(JSON.stringify({ status, message: 'detail from service' })),
			);
			try {
				const error = await amlRequest
					.call(context(server.baseUrl), { method: 'GET', path: '/v1/persons/x' }, 0, FAST_BACKOFF)
					.catch((e: unknown) => e);
				expect((error as Error).message).toContain(meaning);
				expect((error as Error).message).toContain('detail from service');
				expect(server.requests).toHaveLength(1);
				expect(errorText(error)).not.toContain(FAKE_TOKEN);
				expect(errorText(error)).not.toContain(FAKE_SECRET);
			} finally {
				await server.close();
			}
		},
	);

	test("a 401 that survived n8n's own token renewal is tried once more (for any request), then reported", async () => {
		let calls = 0;
		const server = await scriptedServer((_req, _body, res) => {
			calls++;
			if (calls === 1 || calls >= 3)
				res
					.writeHead(401, { 'content-type': 'application/json' })
					.end('{"message":"Full authentication is required"}');
			else res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":7}');
		});
		try {
			const once = await amlRequest.call(
				context(server.baseUrl),
				{ method: 'POST', path: '/v1/manual-alerts', body: { a: '1' } },
				0,
				FAST_BACKOFF,
			);
			expect(once).toMatchObject({ status: 200, attempts: 2 });
			await expect(
				amlRequest.call(
					context(server.baseUrl),
					{ method: 'GET', path: '/v1/persons/p1' },
					0,
					FAST_BACKOFF,
				),
			).rejects.toMatchObject({ httpCode: '401' });
			expect(server.requests).toHaveLength(4);
		} finally {
			await server.close();
		}
	});

	test("an answer n8n wrapped in a NodeApiError (as after a token renewal) is still the API's: a POST is not repeated after its 500", async () => {
		const server = await scriptedServer((_req, _body, res) =>
			res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"boom"}'),
		);
		try {
			const ctx = context(server.baseUrl) as unknown as {
				helpers: { httpRequestWithAuthentication: (...a: unknown[]) => Promise<unknown> };
				getNode: () => INode;
			};
			const inner = ctx.helpers.httpRequestWithAuthentication;
			ctx.helpers.httpRequestWithAuthentication = async (...args: unknown[]) => {
				try {
					return await inner(...args);
				} catch (error) {
					throw new NodeApiError(ctx.getNode(), error as JsonObject);
				}
			};
			const failure = await amlRequest
				.call(
					ctx as never,
					{ method: 'POST', path: '/v1/manual-alerts', body: { a: '1' } },
					0,
					FAST_BACKOFF,
				)
				.catch((e: unknown) => e);
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
			const error = await amlRequest
				.call(context(server.baseUrl), { method: 'GET', path: '/v1/x' }, 0, FAST_BACKOFF)
				.catch((e: unknown) => e);
			expect(server.requests).toHaveLength(FAST_BACKOFF.maxAttempts);
			expect((error as { description: string }).description).toContain(
				`after ${FAST_BACKOFF.maxAttempts} attempts`,
			);
		} finally {
			await server.close();
		}
	});

	test('network failure gives a clear, secret-free error', async () => {
		const server = await scriptedServer((req) => req.socket.destroy());
		try {
			const error = await amlRequest
				.call(context(server.baseUrl), { method: 'GET', path: '/v1/x' }, 0, FAST_BACKOFF)
				.catch((e: unknown) => e);
			// the request reached the server (it dropped the connection): not "could not be reached"
			expect((error as Error).message).toMatch(
				/^No answer from the AML service \(connection dropped\)/,
			);
			expect(errorText(error)).not.toContain(FAKE_TOKEN);
		} finally {
			await server.close();
		}
	});
});

describe('a refused connection: never sent, repeated in every mode', () => {
	test.each(['create', 'none', 'check'] as const)(
		'%s: "could not be reached", nothing may have been applied',
		async (retry) => {
			const net = await import('node:net');
			const server = net.createServer();
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			const { port } = server.address() as { port: number };
			await new Promise<void>((resolve) => server.close(() => resolve()));
			const error = await amlRequest
				.call(
					context(`http://127.0.0.1:${port}`),
					{ method: 'POST', path: '/v2/persons', body: { id: 'p1' }, retry },
					0,
					FAST_BACKOFF,
				)
				.then(
					() => undefined,
					(e: unknown) => e,
				);
			expect((error as Error).message).toBe(
				'The AML service could not be reached (connection refused)',
			);
			expect(failureOf(error)?.mayHaveApplied !== undefined).toBe(false);
			expect(failureOf(error)?.reached).toBe(false);
		},
	);
});

describe('a check answered after the time budget', () => {
	test('fails as the budget spent (it may have applied) and keeps the late answer, whose alert IDs are still reported', async () => {
		const real = Date.now.bind(Date);
		let late = 0;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => real() + late);
		const server = await scriptedServer((_req, _body, res) => {
			// the answer arrives after the deadline (the clock moved past it meanwhile)
			late = 5000;
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ results: [{ alertId: 9 }] }));
		});
		try {
			const error = await amlRequest
				.call(
					context(server.baseUrl),
					{
						method: 'POST',
						path: '/v1/transactions/t/monitoring-checks',
						retry: 'check',
						deadline: deadlineIn(1000),
					},
					0,
					FAST_BACKOFF,
				)
				.catch((e: unknown) => e);
			expect(failureOf(error)?.kind).toBe('budget');
			expect(failureOf(error)?.mayHaveApplied !== undefined).toBe(true);
			expect(failureOf(error)).toMatchObject({
				lateAnswer: { body: { results: [{ alertId: 9 }] } },
			});
		} finally {
			clock.mockRestore();
			await server.close();
		}
	});
});

describe('whether a failed request reached the service', () => {
	test('answered (429), dropped after it was sent: reached; the budget spent before any send: not', async () => {
		const limited = await scriptedServer((_req, _body, res) => {
			res.writeHead(429, { 'retry-after': '30' }).end();
		});
		const dropping = await scriptedServer((req) => req.socket.destroy());
		try {
			const check = {
				method: 'POST',
				path: '/v1/transactions/t/monitoring-checks',
				retry: 'check',
			} as const;
			const answered = await amlRequest
				.call(context(limited.baseUrl), { ...check, deadline: deadlineIn(2000) }, 0, FAST_BACKOFF)
				.catch((e: unknown) => e);
			expect(failureOf(answered)?.reached).toBe(true);
			const dropped = await amlRequest
				.call(context(dropping.baseUrl), check, 0, FAST_BACKOFF)
				.catch((e: unknown) => e);
			expect(failureOf(dropped)?.reached).toBe(true);
			const sentBefore = limited.requests.length;
			const spent = await amlRequest
				.call(
					context(limited.baseUrl),
					{ ...check, deadline: { at: Date.now() - 1, ms: 1 } },
					0,
					FAST_BACKOFF,
				)
				.catch((e: unknown) => e);
			expect(failureOf(spent)?.kind).toBe('budget');
			expect(failureOf(spent)?.reached).toBe(false);
			expect(limited.requests).toHaveLength(sentBefore);
		} finally {
			await limited.close();
			await dropping.close();
		}
	});
});

describe('time budget in amlRequest', () => {
	test('a Retry-After beyond the deadline gives up at once: one request, budget spent, not applied', async () => {
		const server = await scriptedServer((_req, _body, res) => {
			res.writeHead(429, { 'retry-after': '30' }).end();
		});
		try {
			const started = Date.now();
			const error = await amlRequest
				.call(
					context(server.baseUrl),
					{ method: 'GET', path: '/v1/persons/p1', deadline: deadlineIn(2000) },
					0,
				)
				.then(
					() => undefined,
					(e: unknown) => e,
				);
			expect(Date.now() - started).toBeLessThan(1000);
			expect(failureOf(error)?.kind).toBe('budget');
			expect((error as Error).message).toMatch(
				/^Time budget of 2000 ms spent before the AML service answered\. The request was not applied/,
			);
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});

	test('an attempt waits at most the time left: a slow answer is cut at the deadline', async () => {
		const server = await scriptedServer((_req, _body, res) => {
			setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 1500);
		});
		try {
			const started = Date.now();
			const error = await amlRequest
				.call(
					context(server.baseUrl),
					{
						method: 'POST',
						path: '/v1/transactions/t/monitoring-checks',
						retry: 'safe',
						deadline: deadlineIn(300),
					},
					0,
				)
				.then(
					() => undefined,
					(e: unknown) => e,
				);
			expect(Date.now() - started).toBeLessThan(800);
			expect(failureOf(error)?.kind).toBe('budget');
			expect((error as Error).message).toMatch(/may have been applied/);
		} finally {
			await server.close();
		}
	});

	test("an answer whose body trickles in ends at the attempt's Timeout (n8n's timeout bounds only the wait for the headers and idle time)", async () => {
		const server = await scriptedServer((_req, _body, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': '40' });
			res.flushHeaders();
			const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 100);
		});
		try {
			const started = Date.now();
			const error = await amlRequest
				.call(
					context(server.baseUrl),
					{ method: 'POST', path: '/v1/alerts', retry: 'none', timeoutMs: 300 },
					0,
				)
				.then(
					() => undefined,
					(e: unknown) => e,
				);
			// the body would take 4 s
			expect(Date.now() - started).toBeLessThan(1500);
			expect((error as Error).message).toMatch(/^No answer from the AML service \(timed out\)/);
			expect(failureOf(error)?.mayHaveApplied !== undefined).toBe(true);
		} finally {
			await server.close();
		}
	});
});
