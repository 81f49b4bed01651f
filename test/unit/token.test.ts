/**
 * The token provider (nodes/Aml/transport/token.ts: its rules, what a 401 renews) and one attempt (auth.ts), through
 * n8n's real HTTP client against a local service and token endpoint.
 */
import { NodeApiError, sleep } from 'n8n-workflow';

import { amlRequest, failureOf } from '../../nodes/Aml/transport';
import { errorText, FAST_BACKOFF, scriptedServer, tokenContext } from './realHttpContext';

/** A time budget of `ms` from now. */
const deadlineIn = (ms: number) => ({ at: Date.now() + ms, ms });

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
				.call(ctx, { method: 'GET', path: '/v1/persons/p1' }, 3, FAST_BACKOFF)
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
					amlRequest.call(ctx, { method: 'GET', path: '/v1/persons/p1' }, 0, FAST_BACKOFF),
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
				await amlRequest.call(ctx, { method: 'GET', path: '/v1/warm' }, 0, FAST_BACKOFF);
				valid = 'tok-new';
				const answers = await Promise.all(
					Array.from({ length: 8 }, (_, i) =>
						amlRequest.call(ctx, { method: 'GET', path: `/v1/persons/p${i}` }, 0, FAST_BACKOFF),
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
		await amlRequest.call(ctx, { method: 'GET', path: '/v1/warm' }, 0, FAST_BACKOFF);
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
					amlRequest.call(ctx, { method: 'GET', path: `/v1/persons/p${i}` }, 0, FAST_BACKOFF),
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
			const answer = amlRequest.call(
				ctx,
				{ method: 'GET', path: '/v1/persons/p1' },
				0,
				FAST_BACKOFF,
			);
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
					async (path) =>
						await amlRequest.call(ctx, { method: 'POST', path, body: {} }, 0, FAST_BACKOFF),
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
				// first request: refused, renewed, refused fresh, renewed again, refused fresh -> 401 error; no token is
				// sent twice once the service refused it
				await expect(
					amlRequest.call(ctx, { method: 'GET', path: '/v1/a' }, 0, FAST_BACKOFF),
				).rejects.toMatchObject({ httpCode: '401' });
				expect(store.renewals).toBe(2);
				expect(server.requests.map((r) => r.headers.authorization)).toEqual([
					'Bearer tok-a',
					'Bearer tok-renewed-1',
					'Bearer tok-renewed-2',
				]);
				// 20 more items of the same run: answered with the same refusal, no token request and nothing sent (a revoked
				// client must not cost a token request per item)
				for (let i = 0; i < 20; i++) {
					await expect(
						amlRequest.call(ctx, { method: 'GET', path: `/v1/b${i}` }, 0, FAST_BACKOFF),
					).rejects.toMatchObject({ httpCode: '401' });
				}
				expect(store.renewals).toBe(2);
				expect(server.requests).toHaveLength(3);
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
			await amlRequest.call(ctx, { method: 'GET', path: '/v1/warm' }, 0, FAST_BACKOFF);
			valid = 'tok-new';
			const short = amlRequest
				.call(ctx, { method: 'GET', path: '/v1/a', deadline: deadlineIn(200) }, 0, FAST_BACKOFF)
				.catch((error: unknown) => error);
			await new Promise((resolve) => setTimeout(resolve, 50));
			const long = amlRequest.call(ctx, { method: 'GET', path: '/v1/b' }, 0, FAST_BACKOFF);
			expect(failureOf(await short)?.kind).toBe('budget');
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
			expect(
				(await amlRequest.call(ctx, { method: 'GET', path: '/v1/a' }, 0, FAST_BACKOFF)).status,
			).toBe(200);
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
			await amlRequest.call(run.ctx, { method: 'GET', path: '/v1/a' }, 0, FAST_BACKOFF);
			expect(run.store.renewals).toBe(0);
		} finally {
			await short.close();
		}
	});

	test('fresh tokens refused with a 2xx answer between them (tokens revoked early by the service, not a revoked client): each renewed, the run goes on', async () => {
		// every token serves one request, then the service takes it back
		const used = new Set<string>();
		const server = await scriptedServer(async (req, _body, res) => {
			const token = String(req.headers.authorization).replace('Bearer ', '');
			if (used.has(token))
				res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"revoked"}');
			else {
				used.add(token);
				res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
			}
		});
		const { ctx, store } = tokenContext(server.baseUrl, { stored: 'tok-a', lifetimeS: 3600 });
		try {
			for (let i = 0; i < 4; i++)
				expect(
					(await amlRequest.call(ctx, { method: 'GET', path: `/v1/c${i}` }, 0, FAST_BACKOFF))
						.status,
				).toBe(200);
			expect(store.renewals).toBe(3);
		} finally {
			await server.close();
		}
	});

	test('tokens the service takes back early twice in a row, the second before any 2xx of the run: each renewed, the run goes on (the token it started with is not one it renewed)', async () => {
		// an earlier run renewed tok-renewed-1 and used it; the service takes it back, then the next one at its first use
		const revoked = new Set(['tok-a']);
		let takeBack = 'tok-renewed-2';
		const server = await scriptedServer(async (req, _body, res) => {
			const token = String(req.headers.authorization).replace('Bearer ', '');
			if (token === takeBack) {
				takeBack = '';
				revoked.add(token);
			}
			if (revoked.has(token))
				res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"expired"}');
			else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
		const { ctx, store } = tokenContext(server.baseUrl, { stored: 'tok-a', lifetimeS: 3600 });
		try {
			const get = { method: 'GET', path: '/v1/a' } as const;
			expect((await amlRequest.call(ctx, get, 0, FAST_BACKOFF)).status).toBe(200);
			revoked.add('tok-renewed-1');
			// the next run (a new context object of the same process)
			const next = { ...(ctx as object) } as never;
			expect(
				(await amlRequest.call(next, get, 0, { ...FAST_BACKOFF, maxAttempts: 6 })).status,
			).toBe(200);
			expect(store.renewals).toBe(3);
		} finally {
			await server.close();
		}
	});

	test("queue mode: another process stores its own token over the one this process just renewed, and the service refuses it: taken as the other's (age unknown), renewed, never counted as the client refused", async () => {
		// two renewals of this process are overwritten at once by another process's token, which the service refuses
		// (it had expired); the third is kept. Before: both counted as fresh tokens refused, and the run stopped.
		const server = await scriptedServer(async (req, _body, res) => {
			const token = String(req.headers.authorization).replace('Bearer ', '');
			if (token.startsWith('tok-renewed-'))
				res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
			else res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"expired"}');
		});
		const { ctx, store } = tokenContext(server.baseUrl, { stored: 'tok-a', lifetimeS: 3600 });
		const read = (ctx as { getCredentials: () => Promise<unknown> }).getCredentials;
		let overwritten = 0;
		(ctx as { getCredentials: () => Promise<unknown> }).getCredentials = async () => {
			const credentials = await read();
			// the other process's write lands just after this process read its own renewed token back
			if (store.token === `tok-renewed-${overwritten + 1}` && overwritten < 2)
				store.token = `other-${++overwritten}`;
			return credentials;
		};
		try {
			const answer = await amlRequest.call(ctx, { method: 'GET', path: '/v1/a' }, 0, {
				...FAST_BACKOFF,
				maxAttempts: 6,
			});
			expect(answer.status).toBe(200);
			expect(overwritten).toBe(2);
			expect(store.renewals).toBe(3);
		} finally {
			await server.close();
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
			const answer = await amlRequest.call(ctx, { method: 'GET', path: '/v1/a' }, 0, FAST_BACKOFF);
			expect(answer.status).toBe(200);
			expect(store.renewals).toBe(3);
			// the run goes on: the next item is sent with the token that works
			expect(
				(await amlRequest.call(ctx, { method: 'GET', path: '/v1/b' }, 0, FAST_BACKOFF)).status,
			).toBe(200);
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
		const get = (path: string) => amlRequest.call(ctx, { method: 'GET', path }, 0, FAST_BACKOFF);
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
