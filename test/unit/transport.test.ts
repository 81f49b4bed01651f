import { ClientOAuth2 } from '@n8n/client-oauth2';
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, OperationalError, sleep } from 'n8n-workflow';

import {
	amlRequest,
	backoffDelay,
	classify,
	DEFAULT_BACKOFF,
	deadlineIn,
	isBudgetSpent,
	mayHaveApplied,
	isTokenEndpointBusy,
	decide,
	isTokenRefusal,
	parseRetryAfter,
	type BackoffPolicy,
} from '../../nodes/Aml/transport';
import {
	insecureUrlProblem,
	isLoopbackHost,
	MAX_URL_FIELD_LENGTH,
	trimSlashes,
	urlFieldTooLong,
} from '../../nodes/Aml/transport/secureUrl';
import {
	context,
	FAKE_SECRET,
	FAKE_TOKEN,
	httpRequest,
	scriptedServer,
	tokenContext,
} from './realHttpContext';
import { TOKEN_ENDPOINT, TOKEN_ENDPOINT_OUTCOME, tokenEndpointError } from './tokenEndpoint';

const fast: BackoffPolicy = {
	maxAttempts: 4,
	baseDelayMs: 5,
	maxDelayMs: 20,
	maxRetryAfterMs: 1500,
};

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
			const response = await amlRequest.call(
				context(server.baseUrl),
				{ method: 'GET', path: '/v1/persons/p1' },
				0,
				fast,
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
					.call(context(server.baseUrl), { method, path: '/v1/x', answer }, 0, fast)
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
				amlRequest.call(
					context(server.baseUrl),
					{ method: 'POST', path: '/v1/manual-alerts', body: { a: '1' } },
					2,
					fast,
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
				fast,
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
					fast,
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
					.call(context(server.baseUrl), { method: 'GET', path: '/v1/persons/x' }, 0, fast)
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
				fast,
			);
			expect(once).toMatchObject({ status: 200, attempts: 2 });
			await expect(
				amlRequest.call(
					context(server.baseUrl),
					{ method: 'GET', path: '/v1/persons/p1' },
					0,
					fast,
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
					fast,
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
				.call(context(server.baseUrl), { method: 'GET', path: '/v1/x' }, 0, fast)
				.catch((e: unknown) => e);
			expect(server.requests).toHaveLength(fast.maxAttempts);
			expect((error as { description: string }).description).toContain(
				`after ${fast.maxAttempts} attempts`,
			);
		} finally {
			await server.close();
		}
	});

	test('network failure gives a clear, secret-free error', async () => {
		const server = await scriptedServer((req) => req.socket.destroy());
		try {
			const error = await amlRequest
				.call(context(server.baseUrl), { method: 'GET', path: '/v1/x' }, 0, fast)
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

describe('transport: authentication through n8n (every request signed by httpRequestWithAuthentication)', () => {
	/** A service that accepts only `valid` bearer tokens. */
	async function service(valid: () => string) {
		return await scriptedServer((req, _body, res) => {
			if (req.headers.authorization !== `Bearer ${valid()}`)
				res
					.writeHead(401, { 'content-type': 'application/json' })
					.end('{"message":"invalid token"}');
			else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	}

	test('a redirect is not followed: the token never reaches the other origin, the 3xx is an error that says why', async () => {
		const elsewhere = await scriptedServer((_req, _body, res) =>
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"stolen":true}'),
		);
		const server = await scriptedServer((_req, _body, res) =>
			res.writeHead(302, { location: `${elsewhere.baseUrl}/collect` }).end(),
		);
		const { ctx } = tokenContext(server.baseUrl, { stored: 'tok-stored' });
		try {
			const error = await amlRequest
				.call(ctx, { method: 'GET', path: '/v1/persons/p1' }, 3, fast)
				.catch((e: unknown) => e);
			expect(error).toBeInstanceOf(NodeApiError);
			expect((error as NodeApiError).message).toMatch(/^Redirect \(HTTP 302\).*base URL/);
			expect(server.requests).toHaveLength(1);
			expect(elsewhere.requests).toHaveLength(0);
			expect(errorText(error)).not.toContain('tok-stored');
		} finally {
			await server.close();
			await elsewhere.close();
		}
	});

	test("every request goes through n8n's helper; the run reads the credential once (for its URLs), renews nothing while the token is accepted", async () => {
		const server = await service(() => 'tok-stored');
		const { ctx, store } = tokenContext(server.baseUrl, { stored: 'tok-stored' });
		try {
			await Promise.all(
				Array.from({ length: 50 }, () =>
					amlRequest.call(ctx, { method: 'GET', path: '/v1/persons/p1' }, 0, fast),
				),
			);
			expect(server.requests).toHaveLength(50);
			expect(store).toMatchObject({ credentialReads: 1, viaN8n: 50, renewals: 0, fetches: 0 });
		} finally {
			await server.close();
		}
	});

	test.each(['1'] as const)(
		'8 requests refused at once (token expired, run %s): one renewal, each request sent again once',
		async () => {
			let valid = 'tok-old';
			const server = await service(() => valid);
			const { ctx, store } = tokenContext(server.baseUrl, {
				stored: 'tok-old',
				nextToken: () => 'tok-new',
			});
			try {
				await amlRequest.call(ctx, { method: 'GET', path: '/v1/warm' }, 0, fast);
				valid = 'tok-new';
				const answers = await Promise.all(
					Array.from({ length: 8 }, (_, i) =>
						amlRequest.call(ctx, { method: 'GET', path: `/v1/persons/p${i}` }, 0, fast),
					),
				);
				expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
				expect(store.renewals).toBe(1);
				expect(server.requests).toHaveLength(1 + 16);
			} finally {
				await server.close();
			}
		},
	);

	/**
	 * A service that accepts `scene.valid`, a stored `tok-old` it accepts until `scene.valid` changes, and n8n's renewal
	 * replaced by `renew` (its calls counted in `scene.asks`), after a first request that takes the stored token.
	 */
	async function renewalScene(renew: (ask: number, store: { token?: string }) => unknown) {
		const scene = { valid: 'tok-old', asks: 0 };
		const server = await service(() => scene.valid);
		const { ctx, store } = tokenContext(server.baseUrl, { stored: 'tok-old' });
		const helpers = (ctx as unknown as { helpers: Record<string, unknown> }).helpers;
		helpers.refreshOAuth2Token = async () => renew(++scene.asks, store);
		await amlRequest.call(ctx, { method: 'GET', path: '/v1/warm' }, 0, fast);
		return { scene, server, ctx, store };
	}

	test('token endpoint answers 429 (5 a minute per IP): the one renewal waits and asks again for all refused requests; none fails, none asks on its own', async () => {
		const { scene, server, ctx } = await renewalScene((ask, store) => {
			// What n8n's OAuth2 client throws for the token endpoint's 429: an AuthError when the body is an OAuth error
			// (the status is dropped), a ResponseError otherwise.
			if (ask === 1)
				throw Object.assign(new Error('token endpoint rate limit: 5 requests per 60 s'), {
					code: 'EAUTH',
					body: {
						error: 'too_many_requests',
						error_description: 'token endpoint rate limit: 5 requests per 60 s',
					},
				});
			if (ask === 2)
				throw Object.assign(new Error('HTTP status 429'), {
					status: 429,
					body: 'slow down',
					code: 'ESTATUS',
				});
			store.token = 'tok-new';
			return { access_token: store.token };
		});
		try {
			scene.valid = 'tok-new';
			const started = Date.now();
			const answers = await Promise.all(
				Array.from({ length: 8 }, (_, i) =>
					amlRequest.call(ctx, { method: 'GET', path: `/v1/persons/p${i}` }, 0, fast),
				),
			);
			expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
			expect(scene.asks).toBe(3);
			// Backoff before the 2nd and 3rd ask: at least 0.5 s + 1 s.
			expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
			// Each request: refused, then sent again after each pause (another process may have stored a token), then
			// with the renewed token.
			expect(
				server.requests.filter((r) => r.headers.authorization === 'Bearer tok-new'),
			).toHaveLength(8);
		} finally {
			await server.close();
		}
	}, 30_000);

	test('while the token endpoint is paused (Retry-After 30 s), a token another process stores ends the wait within about a second', async () => {
		const { scene, server, ctx, store } = await renewalScene(() => {
			// the token endpoint's 429 as n8n's HTTP client throws it, with its Retry-After
			throw Object.assign(new Error('Request failed with status code 429'), {
				response: { status: 429, data: {}, headers: { 'retry-after': '30' } },
			});
		});
		try {
			scene.valid = 'tok-other';
			const started = Date.now();
			const answer = amlRequest.call(ctx, { method: 'GET', path: '/v1/persons/p1' }, 0, fast);
			// another process obtains a token and n8n stores it while this one waits out the pause
			await sleep(300);
			store.token = 'tok-other';
			expect((await answer).status).toBe(200);
			expect(Date.now() - started).toBeLessThan(3_000);
			expect(scene.asks).toBe(1);
			expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer tok-other');
		} finally {
			await server.close();
		}
	});

	test("no stored token: the token first, through the credential test's read, before any write; the next ones use it", async () => {
		const server = await service(() => 'tok-renewed-1');
		const { ctx, store } = tokenContext(server.baseUrl);
		try {
			await Promise.all(
				['/v1/a', '/v1/b', '/v1/c'].map(
					async (path) => await amlRequest.call(ctx, { method: 'POST', path, body: {} }, 0, fast),
				),
			);
			expect(store).toMatchObject({ fetches: 1, viaN8n: 4, renewals: 0 });
			expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
				'GET /api/v1/screening-list-groups',
				'POST /api/v1/a',
				'POST /api/v1/b',
				'POST /api/v1/c',
			]);
		} finally {
			await server.close();
		}
	});

	test.each(['1'] as const)(
		'renewed tokens that are still refused (run %s): the 401 is the error, and the run stops asking after two in a row',
		async () => {
			const server = await service(() => 'never');
			// refused at once, far within the tokens' hour: fresh tokens refused
			const { ctx, store } = tokenContext(server.baseUrl, {
				stored: 'tok-a',
				lifetimeS: 3600,
			});
			try {
				// first request: refused, renewed, refused; sent once more: renewed again, refused -> 401 error
				await expect(
					amlRequest.call(ctx, { method: 'GET', path: '/v1/a' }, 0, fast),
				).rejects.toMatchObject({ httpCode: '401' });
				expect(store.renewals).toBe(2);
				expect(server.requests).toHaveLength(4);
				// 20 more items of the same run: answered with the same refusal, no token request and nothing sent (a revoked
				// client must not cost a token request per item)
				for (let i = 0; i < 20; i++) {
					await expect(
						amlRequest.call(ctx, { method: 'GET', path: `/v1/b${i}` }, 0, fast),
					).rejects.toMatchObject({ httpCode: '401' });
				}
				expect(store.renewals).toBe(2);
				expect(server.requests).toHaveLength(4);
			} finally {
				await server.close();
			}
		},
	);

	test('a renewal that outlasts the budget of the request that started it stays the one renewal the others wait for', async () => {
		let valid = 'tok-old';
		const server = await service(() => valid);
		const { ctx, store } = tokenContext(server.baseUrl, { stored: 'tok-old' });
		const helpers = (ctx as unknown as { helpers: Record<string, unknown> }).helpers;
		helpers.refreshOAuth2Token = async () => {
			store.renewals++;
			await new Promise((resolve) => setTimeout(resolve, 600));
			store.token = 'tok-new';
			return { access_token: store.token };
		};
		try {
			await amlRequest.call(ctx, { method: 'GET', path: '/v1/warm' }, 0, fast);
			valid = 'tok-new';
			const short = amlRequest
				.call(ctx, { method: 'GET', path: '/v1/a', deadline: deadlineIn(200) }, 0, fast)
				.catch((error: unknown) => error);
			await new Promise((resolve) => setTimeout(resolve, 50));
			const long = amlRequest.call(ctx, { method: 'GET', path: '/v1/b' }, 0, fast);
			expect(isBudgetSpent(await short)).toBe(true);
			expect((await long).status).toBe(200);
			expect(store.renewals).toBe(1);
		} finally {
			await server.close();
		}
	});

	test('a token n8n says expires within the attempt is renewed before the request (no 401), unless a new one would not outlast the attempt either', async () => {
		const server = await service(() => 'tok-renewed-1');
		let expiresAt = Date.now() + 1_000;
		const { ctx, store } = tokenContext(server.baseUrl, {
			stored: 'tok-old',
			lifetimeS: 3600,
			expiresAt: () => (store.token === 'tok-old' ? expiresAt : Date.now() + 3_600_000),
		});
		try {
			expect((await amlRequest.call(ctx, { method: 'GET', path: '/v1/a' }, 0, fast)).status).toBe(
				200,
			);
			expect(store.renewals).toBe(1);
			expect(server.requests.map((r) => String(r.headers.authorization))).toEqual([
				'Bearer tok-renewed-1',
			]);
		} finally {
			await server.close();
		}
		// 1 s tokens and a 30 s attempt: renewing first cannot help, the token is sent (and renewed on a 401)
		const short = await service(() => 'tok-short');
		expiresAt = Date.now() + 500;
		const run = tokenContext(short.baseUrl, {
			stored: 'tok-short',
			lifetimeS: 1,
			expiresAt: () => expiresAt,
		});
		try {
			await amlRequest.call(run.ctx, { method: 'GET', path: '/v1/a' }, 0, fast);
			expect(run.store.renewals).toBe(0);
		} finally {
			await short.close();
		}
	});

	test('a renewed token refused only after half its lifetime (it expired before the request went out: short tokens, a busy process) is renewed again, not taken for a refusal', async () => {
		// 200 ms tokens; the first two renewed ones reach the service too late (answered 401 after 150 ms)
		const late = new Set(['tok-renewed-1', 'tok-renewed-2']);
		const server = await scriptedServer(async (req, _body, res) => {
			const token = String(req.headers.authorization).replace('Bearer ', '');
			if (late.has(token)) await new Promise((resolve) => setTimeout(resolve, 150));
			if (token === 'tok-renewed-3')
				res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
			else res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"expired"}');
		});
		const { ctx, store } = tokenContext(server.baseUrl, { stored: 'tok-a', lifetimeS: 0.2 });
		try {
			const answer = await amlRequest.call(ctx, { method: 'GET', path: '/v1/a' }, 0, fast);
			expect(answer.status).toBe(200);
			expect(store.renewals).toBe(3);
			// the run goes on: the next item is sent with the token that works
			expect((await amlRequest.call(ctx, { method: 'GET', path: '/v1/b' }, 0, fast)).status).toBe(
				200,
			);
		} finally {
			await server.close();
		}
	});
});

describe('a token endpoint down for 70 s (5xx, no answer): the node stops waiting for it', () => {
	afterEach(() => jest.useRealTimers());

	test('items wait for it until 70 s after its first failure, then fail at once with one try after each pause; a token obtained ends it', async () => {
		jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
		const { ctx, store } = tokenContext('http://127.0.0.1:1/down-window');
		let up = false;
		let tries = 0;
		const helpers = (ctx as unknown as { helpers: Record<string, unknown> }).helpers;
		// n8n's first fetch (no stored token): the token endpoint's 500 as n8n's OAuth2 client throws it, or a token
		helpers.httpRequestWithAuthentication = async () => {
			if (!store.token) {
				tries++;
				if (!up)
					throw Object.assign(new Error('HTTP status 500'), {
						status: 500,
						body: 'down',
						code: 'ESTATUS',
					});
				store.token = 'tok-up';
			}
			return { statusCode: 200, body: { ok: true }, headers: {} };
		};
		const settled = (promise: Promise<unknown>) => {
			const state = { done: false, error: undefined as unknown };
			void promise.then(
				() => (state.done = true),
				(error: unknown) => Object.assign(state, { done: true, error }),
			);
			return state;
		};
		const get = (path: string) => amlRequest.call(ctx, { method: 'GET', path }, 0, fast);
		const first = settled(get('/v1/first'));
		await jest.advanceTimersByTimeAsync(30_000);
		// started 30 s into the outage: waits 40 s, not 70
		const second = settled(get('/v1/second'));
		await jest.advanceTimersByTimeAsync(40_500);
		expect([first.done, second.done]).toEqual([true, true]);
		expect((first.error as Error).message).toMatch(
			/token endpoint failed \(HTTP 500\) after waiting (69|70) s/,
		);
		expect((second.error as Error).message).toMatch(/after waiting (39|40) s/);
		const triesBefore = tries;
		for (let i = 0; i < 10; i++) {
			const item = settled(get(`/v1/item${i}`));
			await jest.advanceTimersByTimeAsync(10);
			expect(item.done).toBe(true);
			expect((item.error as Error).message).toMatch(/token endpoint failed \(HTTP 500\)/);
		}
		expect(tries - triesBefore).toBeLessThanOrEqual(1);
		// after the pause, one try: the endpoint is back, the item is sent with the token
		up = true;
		await jest.advanceTimersByTimeAsync(21_000);
		const back = settled(get('/v1/back'));
		await jest.advanceTimersByTimeAsync(10);
		expect(back).toEqual({ done: true, error: undefined });
		expect(store.token).toBe('tok-up');
	});
});

describe("classify: n8n's errors read by their whole chain of causes (table; every row a real error of n8n's OAuth2 client)", () => {
	const node = {
		id: 'n1',
		name: 'AML',
		type: 'n8n-nodes-aml.aml',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	} as unknown as INode;
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

describe('backoff', () => {
	test('Retry-After as seconds and as HTTP date', () => {
		expect(parseRetryAfter('3')).toBe(3000);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('soon')).toBeUndefined();
	});

	test('exponential delays stay within [ceiling/2, ceiling] and the cap', () => {
		for (let attempt = 1; attempt <= 10; attempt++) {
			const ceiling = Math.min(
				DEFAULT_BACKOFF.maxDelayMs,
				DEFAULT_BACKOFF.baseDelayMs * 2 ** (attempt - 1),
			);
			expect(backoffDelay(attempt, DEFAULT_BACKOFF, undefined, () => 0)).toBe(ceiling / 2);
			expect(backoffDelay(attempt, DEFAULT_BACKOFF, undefined, () => 1)).toBe(ceiling);
		}
		expect(backoffDelay(1, DEFAULT_BACKOFF, 10 * 60_000)).toBe(DEFAULT_BACKOFF.maxRetryAfterMs);
	});
});

describe('decide: the one retry decision, row by row (answer or failure, policy, attempt, time left)', () => {
	const base = {
		attempted: { kind: 'answer', status: 503 },
		retry: 'safe',
		policy: {},
		attempt: 1,
		maxAttempts: 6,
		sent: false,
		refused: 0,
		waitMs: 250,
		remainingMs: Infinity,
	} as const;
	const answer = (status: number) => ({ attempted: { kind: 'answer', status } }) as const;
	const noAnswer = (neverSent: boolean) =>
		({ attempted: { kind: 'noAnswer', neverSent } }) as const;
	const token = { attempted: { kind: 'tokenEndpoint' } } as const;
	const done = (afterLostAnswer: boolean, sent = afterLostAnswer) => ({
		action: 'done',
		afterLostAnswer,
		sent,
	});
	const retry = (sent: boolean, waitMs = 250) => ({ action: 'retry', waitMs, sent });
	const fail = (as: 'answer' | 'budget', sent: boolean) => ({ action: 'fail', as, sent });
	test.each([
		// answers
		['200 on a first attempt', answer(200), done(false)],
		['200 on a repeat after a lost answer', { ...answer(200), sent: true }, done(true)],
		['a passStatus is returned', { ...answer(404), policy: { passStatuses: [404] } }, done(false)],
		[
			'a check answered after the budget: the budget’s error',
			{ ...answer(200), retry: 'check', remainingMs: -1 },
			fail('budget', true),
		],
		['a check answered in time', { ...answer(200), retry: 'check', remainingMs: 5 }, done(false)],
		[
			'422 on a create repeat: done after a lost answer',
			{ ...answer(422), retry: 'create', sent: true },
			done(true),
		],
		[
			'422 on a first create: its failure',
			{ ...answer(422), retry: 'create' },
			fail('answer', false),
		],
		['422 on a safe repeat: its failure', { ...answer(422), sent: true }, fail('answer', true)],
		[
			'doneOnRepeat 404 on a repeat',
			{ ...answer(404), sent: true, policy: { doneOnRepeat: [404] } },
			done(true),
		],
		[
			'doneOnRepeat 404 on a first attempt: its failure',
			{ ...answer(404), policy: { doneOnRepeat: [404] } },
			fail('answer', false),
		],
		['429 in every mode', { ...answer(429), retry: 'none' }, retry(false)],
		['429 with attempts used up', { ...answer(429), attempt: 6 }, fail('answer', false)],
		['5xx on safe: repeated, sent', answer(503), retry(true)],
		['5xx on create: repeated, sent', { ...answer(500), retry: 'create' }, retry(true)],
		['5xx on none: not repeated, sent', { ...answer(502), retry: 'none' }, fail('answer', true)],
		['5xx on check: not repeated, sent', { ...answer(503), retry: 'check' }, fail('answer', true)],
		[
			'first 401: repeated (after the renewal)',
			{ ...answer(401), refused: 1, retry: 'none' },
			retry(false),
		],
		['second 401: its failure', { ...answer(401), refused: 2 }, fail('answer', false)],
		[
			'403: its failure even with the budget spent',
			{ ...answer(403), remainingMs: 0 },
			fail('answer', false),
		],
		// no answer
		[
			'refused connection on none: repeated, never sent',
			{ ...noAnswer(true), retry: 'none' },
			retry(false),
		],
		['dropped on safe: repeated, sent', noAnswer(false), retry(true)],
		['dropped on create: repeated, sent', { ...noAnswer(false), retry: 'create' }, retry(true)],
		[
			'dropped on none: not repeated, sent',
			{ ...noAnswer(false), retry: 'none' },
			fail('answer', true),
		],
		[
			'dropped on check: not repeated, sent',
			{ ...noAnswer(false), retry: 'check' },
			fail('answer', true),
		],
		[
			'dropped on a check with the budget spent',
			{ ...noAnswer(false), retry: 'check', remainingMs: -5 },
			fail('budget', true),
		],
		['dropped with the attempts used up', { ...noAnswer(false), attempt: 6 }, fail('answer', true)],
		[
			'attempts used up with the budget spent',
			{ ...noAnswer(false), attempt: 6, remainingMs: 0 },
			fail('budget', true),
		],
		// the token endpoint (auth.ts waited already)
		['token endpoint failure: not repeated on top', token, fail('answer', false)],
		[
			'token endpoint failure after a lost answer keeps sent',
			{ ...token, sent: true },
			fail('answer', true),
		],
		[
			'token endpoint waited until the budget was spent',
			{ ...token, remainingMs: 0 },
			fail('budget', false),
		],
		// the time budget
		[
			'a wait beyond the deadline (Retry-After)',
			{ ...answer(429), waitMs: 60_000, remainingMs: 5_000 },
			fail('budget', false),
		],
		[
			'a wait ending exactly at the deadline',
			{ ...answer(503), waitMs: 500, remainingMs: 500 },
			fail('budget', true),
		],
		[
			'a wait leaving time for a repeat',
			{ ...answer(503), waitMs: 500, remainingMs: 501 },
			retry(true, 500),
		],
	] as const)('%s', (_name, change, expected) => {
		expect(decide({ ...base, ...change } as Parameters<typeof decide>[0])).toEqual(expected);
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
					fast,
				)
				.then(
					() => undefined,
					(e: unknown) => e,
				);
			expect((error as Error).message).toBe(
				'The AML service could not be reached (connection refused)',
			);
			expect(mayHaveApplied(error)).toBe(false);
		},
	);
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
			expect(isBudgetSpent(error)).toBe(true);
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
			expect(isBudgetSpent(error)).toBe(true);
			expect((error as Error).message).toMatch(/may have been applied/);
		} finally {
			await server.close();
		}
	});
});

describe('walkPages: the service cap is reported in both modes', () => {
	const { walkPages } =
		require('../../nodes/Aml/transport/pagination') as typeof import('../../nodes/Aml/transport/pagination');
	/** A service with `total` results that pages only up to 10,000 (like the search endpoints). */
	const pagesOf = (total: number) => async (page: number, size: number) => {
		const start = page * size;
		const end = Math.min(total, 10_000, start + size);
		return {
			number: page,
			size,
			total,
			content: Array.from({ length: Math.max(0, end - start) }, (_v, i) => start + i),
		};
	};

	test('Limit above the cap: 10,000 of 12,500 returned and capped', async () => {
		const walk = await walkPages(pagesOf(12_500), { returnAll: false, limit: 12_000 });
		expect(walk.items).toHaveLength(10_000);
		expect(walk.capped).toBe(true);
	});

	test('Limit below the cap or a result under it: not capped', async () => {
		expect((await walkPages(pagesOf(12_500), { returnAll: false, limit: 120 })).capped).toBe(false);
		expect((await walkPages(pagesOf(300), { returnAll: false, limit: 12_000 })).capped).toBe(false);
	});

	test('a claimed total of 2e11 on an uncapped list: one page read, then an error (no array sized from it)', async () => {
		let asked = 0;
		const claim = async (page: number, size: number) => {
			asked++;
			return {
				number: page,
				size,
				total: 2e11,
				content: Array.from({ length: size }, (_v, i) => i),
			};
		};
		await expect(walkPages(claim, { returnAll: true, cap: Infinity })).rejects.toThrow(
			/reports 200000000000 results; the node reads at most 100,000/,
		);
		await expect(walkPages(claim, { returnAll: false, limit: 1e9, cap: Infinity })).rejects.toThrow(
			/reports 200000000000 results/,
		);
		expect(asked).toBe(2);
		// a search: the interface caps it at 10,000, so 2e11 reads 200 pages and reports the cap
		const search = await walkPages(pagesOf(2e11), { returnAll: true });
		expect(search.items).toHaveLength(10_000);
		expect(search.capped).toBe(true);
	});

	test('Return All over the cap: capped', async () => {
		const walk = await walkPages(pagesOf(12_500), { returnAll: true });
		expect(walk.items).toHaveLength(10_000);
		expect(walk.capped).toBe(true);
	});
});

describe('transport: secrets only over https or loopback', () => {
	test('credential URL fields: slashes trimmed in one pass, lengths bounded', () => {
		expect(trimSlashes('https://a.example.com///', { start: false, end: true })).toBe(
			'https://a.example.com',
		);
		expect(trimSlashes('//api/v2//', { start: true, end: true })).toBe('api/v2');
		expect(trimSlashes('///', { start: true, end: true })).toBe('');
		const hostile = `x${'/'.repeat(1_000_000)}x`;
		const start = Date.now();
		expect(trimSlashes(hostile, { start: true, end: true })).toBe(hostile);
		expect(Date.now() - start).toBeLessThan(100);
		expect(urlFieldTooLong('x'.repeat(MAX_URL_FIELD_LENGTH), 'API Base URL')).toBeUndefined();
		expect(urlFieldTooLong('x'.repeat(MAX_URL_FIELD_LENGTH + 1), 'API Path Prefix')).toMatch(
			/^The credential's API Path Prefix is longer than 2048 characters/,
		);
	});

	test('loopback is localhost, 127.0.0.0/8 and ::1; nothing else', () => {
		for (const host of [
			'localhost',
			'LOCALHOST',
			'api.localhost',
			'127.0.0.1',
			'127.255.0.9',
			'::1',
			'[::1]',
		])
			expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true });
		for (const host of [
			'0.0.0.0',
			'[::ffff:7f00:1]',
			'10.0.0.1',
			'128.0.0.1',
			'127.0.0.1.example.com',
			'localhost.example.com',
			'app.example.com',
		])
			expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false });
	});

	test('https passes; http passes only on loopback or when allowed; the message names field, scheme and host but no user or password', () => {
		expect(insecureUrlProblem('https://app.example.com', 'API Base URL', false)).toBeUndefined();
		expect(insecureUrlProblem('http://127.0.0.1:8080', 'API Base URL', false)).toBeUndefined();
		expect(insecureUrlProblem('http://[::1]:8080/oauth/token', 'Token URL', false)).toBeUndefined();
		expect(insecureUrlProblem('http://app.example.com', 'API Base URL', true)).toBeUndefined();
		const refused = insecureUrlProblem(
			'http://user:pa55word@app.example.com/oauth/token?x=1',
			'Token URL',
			false,
		);
		expect(refused).toMatch(
			/^The credential's Token URL \(http:\/\/app\.example\.com\) uses plain http: .*Allow Plain HTTP \(Insecure\).*Nothing was sent$/,
		);
		expect(refused).not.toMatch(/pa55word|user/);
		expect(insecureUrlProblem('ftp://app.example.com', 'API Base URL', true)).toMatch(
			/must start with https:\/\//,
		);
		expect(insecureUrlProblem('app.example.com', 'API Base URL', false)).toMatch(
			/is not a valid URL/,
		);
	});
});
