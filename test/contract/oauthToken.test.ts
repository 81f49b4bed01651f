import {
	N8N_VERSION,
	n8nCoreContains,
	n8nModules,
	oauth2NodeContext,
	oauth2Server,
	withN8n,
} from './n8n';

/**
 * Seam nodes/shared/n8n/oauthToken.ts against this n8n: n8n keeps an OAuth2 credential's token under
 * `oauthTokenData.access_token` (every supported version), and 2.41.1 also its expiry as `n8n_expires_at` (1.123.81 and
 * 2.0.3 keep none: there the upload's renewal before sending does nothing and the 401 path renews). A change here
 * fails this test before it changes what the node reports.
 */
const seam = withN8n(
	() =>
		require('../../nodes/shared/n8n/oauthToken') as typeof import('../../nodes/shared/n8n/oauthToken'),
);
const errors = withN8n(
	() => require('../../nodes/shared/n8n/errors') as typeof import('../../nodes/shared/n8n/errors'),
);
/** What a 401 that n8n throws after its own renewal reads as (1.x and 2.0 keep no cause: the thrown status only). */
const MEASURED_THROWN_401: Record<string, string | undefined> = {
	'1.123.81': undefined,
	'2.0.3': undefined,
	'2.41.1': 'refusedAfterRenewal',
};
/** How often n8n sends a request again with the token it renewed on a thrown 401. */
const MEASURED_SENDS_AFTER_RENEWAL: Record<string, number> = {
	'1.123.81': 2,
	'2.0.3': 2,
	'2.41.1': 1,
};
const MEASURED_EXPIRY: Record<string, boolean> = {
	'1.123.81': false,
	'2.0.3': false,
	'2.41.1': true,
};

describe(`token data on n8n ${N8N_VERSION}`, () => {
	test('n8n-core stores the token under oauthTokenData', () => {
		expect(n8nCoreContains('oauthTokenData')).toBe(true);
	});

	test('n8n stores the expiry as n8n_expires_at where measured', () => {
		const stores = n8nCoreContains('n8n_expires_at') || n8nCoreContains('n8n_expires_at', 'n8n');
		expect(stores).toBe(MEASURED_EXPIRY[N8N_VERSION] ?? stores);
	});

	test("n8n-core offers refreshOAuth2Token to nodes (the seam's renewToken calls it)", () => {
		expect(n8nCoreContains('refreshOAuth2Token')).toBe(true);
	});

	test("n8n's generic OAuth2 credential keeps the Ignore SSL Issues switch as ignoreSSLIssues (the seam's ignoresSslIssues)", () => {
		const { OAuth2Api } = require(
			require.resolve('n8n-nodes-base/dist/credentials/OAuth2Api.credentials.js', {
				paths: [n8nModules()],
			}),
		);
		const names = (new OAuth2Api().properties as Array<{ name: string }>).map((p) => p.name);
		expect(names).toContain('ignoreSSLIssues');
		expect(seam.ignoresSslIssues({ ignoreSSLIssues: true })).toBe(true);
		expect(seam.ignoresSslIssues({})).toBe(false);
	});

	test('the seam reads a stored token and its expiry, and nothing from a credential without one', () => {
		expect(seam.tokenStored({ oauthTokenData: { access_token: 'a', token_type: 'Bearer' } })).toBe(
			true,
		);
		expect(seam.tokenStored({ oauthTokenData: { access_token: '' } })).toBe(false);
		expect(seam.tokenStored({})).toBe(false);
		expect(
			seam.tokenExpiresAt({ oauthTokenData: { access_token: 'a', n8n_expires_at: 1767225600000 } }),
		).toBe(1767225600000);
		expect(seam.tokenExpiresAt({ oauthTokenData: { access_token: 'a' } })).toBeUndefined();
		expect(seam.tokenLifetimeMs({ oauthTokenData: { access_token: 'a', expires_in: '60' } })).toBe(
			60_000,
		);
		expect(seam.tokenLifetimeMs({ oauthTokenData: { access_token: 'a' } })).toBeUndefined();
	});
});

/**
 * n8n's real OAuth2 request path (this n8n's `httpRequestWithAuthentication`, its OAuth2 client) against a local token
 * endpoint and service, with the credential's token kept as n8n's database keeps it: what `placeFailure` and
 * `serviceRefusal` rely on.
 */
describe(`n8n ${N8N_VERSION}'s OAuth2 request path: when it stores a token, and what a 401 means`, () => {
	const events: string[] = [];
	const behaviour = { token: 'ok' as 'ok' | 'drop' };
	let server: Awaited<ReturnType<typeof oauth2Server>>;

	beforeAll(async () => {
		server = await oauth2Server(
			(req, res) => {
				events.push(`service ${String(req.headers.authorization)}`);
				if (req.url === '/api/drop') return void req.socket.destroy();
				const status = req.url === '/api/401' ? 401 : 200;
				res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
			},
			{
				prefix: 'fetched',
				drop: () => behaviour.token === 'drop',
				onToken: () => events.push('token endpoint'),
			},
		);
	});
	afterAll(async () => await server.close());

	beforeEach(() => {
		events.length = 0;
		behaviour.token = 'ok';
	});

	function context(token?: string) {
		return oauth2NodeContext(server.baseUrl, { token, onStore: () => events.push('stored') });
	}

	async function send(ctx: ReturnType<typeof context>, path: string, answerEvery = true) {
		return await ctx.helpers.httpRequestWithAuthentication
			.call(ctx, 'amlOAuth2Api', {
				method: 'POST',
				url: `${server.baseUrl}/api/${path}`,
				body: { a: 1 },
				json: true,
				timeout: 2000,
				...(answerEvery ? seam.ANSWER_EVERY_STATUS : {}),
			})
			.then(
				(answer: { statusCode: number }) => ({ answer }),
				(error: Error) => ({ error }),
			);
	}

	const place = async (ctx: ReturnType<typeof context>, error: unknown) =>
		await seam.placeFailure(
			errors.classify(error, `${server.baseUrl}/oauth/token`),
			ctx.getCredentials,
		);

	test('a credential without a token: n8n fetches one and stores it before it sends the request', async () => {
		const ctx = context();
		expect(seam.fetchesFirstToken(await ctx.getCredentials())).toBe(true);
		const sent = await send(ctx, 'ok');
		expect(sent).toMatchObject({ answer: { statusCode: 200 } });
		expect(seam.fetchesFirstToken(await ctx.getCredentials())).toBe(false);
		expect(events).toEqual([
			'token endpoint',
			'stored',
			`service Bearer fetched-${server.issued()}`,
		]);
		expect(seam.tokenStored(await ctx.getCredentials())).toBe(true);
		// the value quoted service text is redacted of (transport/quote.ts)
		expect(seam.storedAccessToken(await ctx.getCredentials())).toBe(`fetched-${server.issued()}`);
		// the token endpoint's expires_in is kept with the token (the seam's tokenLifetimeMs)
		expect(seam.tokenLifetimeMs(await ctx.getCredentials())).toBe(3_600_000);
	});

	test("a renewal (n8n's refreshOAuth2Token, the seam's renewToken) stores the new token with its expires_in", async () => {
		const ctx = context('old-token');
		await seam.renewToken(ctx as never, 'amlOAuth2Api');
		const credentials = await ctx.getCredentials();
		expect((credentials.oauthTokenData as { access_token?: string }).access_token).toBe(
			`fetched-${server.issued()}`,
		);
		expect(seam.tokenLifetimeMs(credentials)).toBe(3_600_000);
		expect(events).toEqual(['token endpoint', 'stored']);
	});

	test('the first token fetch fails without an answer: nothing stored, nothing sent, placed at the token endpoint', async () => {
		behaviour.token = 'drop';
		const ctx = context();
		const sent = await send(ctx, 'ok');
		expect(sent).toHaveProperty('error');
		expect(events).toEqual(['token endpoint']);
		expect(await place(ctx, (sent as { error: unknown }).error)).toMatchObject({
			kind: 'network',
			fromTokenEndpoint: true,
		});
	});

	test('the service drops the first request after a first token: the token is stored, placed at the service (may have been applied)', async () => {
		const ctx = context();
		const sent = await send(ctx, 'drop');
		expect(sent).toHaveProperty('error');
		expect(events).toEqual([
			'token endpoint',
			'stored',
			`service Bearer fetched-${server.issued()}`,
		]);
		expect(await place(ctx, (sent as { error: unknown }).error)).toMatchObject({
			kind: 'network',
			code: 'ECONNRESET',
			fromTokenEndpoint: false,
		});
	});

	test('a 401 under ANSWER_EVERY_STATUS comes back as an answer, sent once, no token asked: "renew"', async () => {
		const ctx = context('held');
		const sent = await send(ctx, '401');
		expect(events).toEqual(['service Bearer held']);
		expect(seam.serviceRefusal((sent as { answer: { statusCode: number } }).answer)).toBe('renew');
	});

	test('a 401 n8n throws came after its own renewal: the renewed token was refused too', async () => {
		const ctx = context('held');
		const sent = await send(ctx, '401', false);
		expect(sent).toHaveProperty('error');
		// n8n renews once, stores the token, sends with it again (1.x and 2.0: twice) and throws the last 401.
		expect(events).toEqual([
			'service Bearer held',
			'token endpoint',
			'stored',
			...Array(MEASURED_SENDS_AFTER_RENEWAL[N8N_VERSION] ?? 1).fill(
				`service Bearer fetched-${server.issued()}`,
			),
		]);
		const outcome = errors.classify(
			(sent as { error: unknown }).error,
			`${server.baseUrl}/oauth/token`,
		);
		// n8n 1.x and 2.0 keep no cause: a thrown status reads as the token endpoint's refusal (the run stops asking
		// for tokens: the safe side); 2.41.1 keeps the answer: the renewed token was refused.
		expect(seam.serviceRefusal(outcome)).toBe(
			MEASURED_THROWN_401[N8N_VERSION] ?? seam.serviceRefusal(outcome),
		);
		if (seam.serviceRefusal(outcome) === undefined)
			expect(outcome).toMatchObject({ kind: 'http', status: 401, fromTokenEndpoint: true });
	});
});

/**
 * The seam's readings of the token data n8n keeps after its real renewal (`refreshOAuth2Token`): whether the token
 * expires soon (`tokenExpiresWithin`: only where n8n keeps an expiry) and whether a renewed token may have expired
 * before use (`renewedTokenMayHaveExpired`: half its `expires_in` passed since the renewal).
 */
describe(`n8n ${N8N_VERSION}: what the seam reads from a renewed token's data`, () => {
	let server: Awaited<ReturnType<typeof oauth2Server>>;
	beforeAll(async () => {
		server = await oauth2Server((_req, res) => void res.writeHead(200).end('{}'), {
			prefix: 'short',
			expiresIn: 1,
		});
	});
	afterAll(async () => await server.close());

	test('a 1 s token: fresh right after the renewal, possibly expired after half a second; expiring soon where n8n keeps an expiry', async () => {
		const ctx = oauth2NodeContext(server.baseUrl, { token: 'old-token' });
		await seam.renewToken(ctx as never, 'amlOAuth2Api');
		const renewedAt = Date.now();
		expect(await seam.renewedTokenMayHaveExpired(ctx.getCredentials, renewedAt)).toBe(false);
		expect(await seam.tokenExpiresWithin(ctx.getCredentials, 15_000)).toBe(
			MEASURED_EXPIRY[N8N_VERSION] ?? true,
		);
		expect(await seam.tokenExpiresWithin(ctx.getCredentials, -60_000)).toBe(false);
		await new Promise((resolve) => setTimeout(resolve, 550));
		expect(await seam.renewedTokenMayHaveExpired(ctx.getCredentials, renewedAt)).toBe(true);
	});

	test('an hour-long token is fresh; unknown lifetime or unreadable credentials: fresh, not expiring', async () => {
		const hour = async () => ({ oauthTokenData: { access_token: 'a', expires_in: 3600 } });
		expect(await seam.renewedTokenMayHaveExpired(hour, Date.now() - 60_000)).toBe(false);
		const unknown = async () => ({ oauthTokenData: { access_token: 'a' } });
		expect(await seam.renewedTokenMayHaveExpired(unknown, 0)).toBe(false);
		const unreadable = async () => {
			throw new Error('no credential');
		};
		expect(await seam.renewedTokenMayHaveExpired(unreadable, 0)).toBe(false);
		expect(await seam.tokenExpiresWithin(unreadable, 15_000)).toBe(false);
	});
});
