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

	test('the seam reads a stored token, its expiry and lifetime, and nothing from a credential without one', () => {
		expect(
			seam.storedToken({
				oauthTokenData: { access_token: 'a', n8n_expires_at: 1767225600000, expires_in: '60' },
			}),
		).toEqual({ token: 'a', expiresAt: 1767225600000, lifetimeMs: 60_000 });
		expect(seam.storedToken({ oauthTokenData: { access_token: '' } })).toEqual({});
		expect(seam.storedToken({})).toEqual({});
	});
});

/**
 * n8n's real OAuth2 request path (this n8n's `httpRequestWithAuthentication`, its OAuth2 client, `refreshOAuth2Token`)
 * against a local token endpoint and service, with the credential's token kept as n8n's database keeps it: what the
 * token step (`fetchFirstToken`, `renewToken`) and a 401 under ANSWER_EVERY_STATUS rely on.
 */
describe(`n8n ${N8N_VERSION}'s OAuth2 request path: the token step, and what a 401 means`, () => {
	const events: string[] = [];
	const behaviour = { token: 'ok' as 'ok' | 'drop' };
	let server: Awaited<ReturnType<typeof oauth2Server>>;

	beforeAll(async () => {
		server = await oauth2Server(
			(req, res) => {
				events.push(`service ${String(req.method)} ${String(req.headers.authorization)}`);
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

	const firstToken = async (ctx: ReturnType<typeof context>, path: string) =>
		await seam
			.fetchFirstToken(ctx as never, 'amlOAuth2Api', {
				url: `${server.baseUrl}/api/${path}`,
				json: true,
				timeout: 2000,
			})
			.then(
				() => 'token held',
				(error: unknown) => error,
			);

	test('no token: fetchFirstToken has n8n fetch and store one before it sends the read (a GET)', async () => {
		const ctx = context();
		expect(await firstToken(ctx, 'ok')).toBe('token held');
		expect(events).toEqual([
			'token endpoint',
			'stored',
			`service GET Bearer fetched-${server.issued()}`,
		]);
		// what the transport reads: the token (redacted from quoted text), the token endpoint's expires_in
		expect(seam.storedToken(await ctx.getCredentials())).toMatchObject({
			token: `fetched-${server.issued()}`,
			lifetimeMs: 3_600_000,
		});
	});

	test("the token endpoint drops the first fetch: fetchFirstToken throws n8n's error, nothing stored, nothing sent", async () => {
		behaviour.token = 'drop';
		const ctx = context();
		const thrown = await firstToken(ctx, 'ok');
		expect(thrown).toBeInstanceOf(Error);
		expect(events).toEqual(['token endpoint']);
		expect(seam.storedToken(await ctx.getCredentials()).token).toBeUndefined();
		expect(errors.classify(thrown)).toMatchObject({ kind: 'network' });
	});

	test('the service drops the read after the first token: the token is held (the read may be sent again)', async () => {
		const ctx = context();
		expect(await firstToken(ctx, 'drop')).toBe('token held');
		expect(events).toEqual([
			'token endpoint',
			'stored',
			`service GET Bearer fetched-${server.issued()}`,
		]);
	});

	test("n8n's renewal (refreshOAuth2Token, the seam's renewToken) stores the new token with its expires_in", async () => {
		const ctx = context('old-token');
		await seam.renewToken(ctx as never, 'amlOAuth2Api');
		expect(seam.storedToken(await ctx.getCredentials())).toMatchObject({
			token: `fetched-${server.issued()}`,
			lifetimeMs: 3_600_000,
		});
		expect(events).toEqual(['token endpoint', 'stored']);
	});

	test("n8n's renewal cannot fetch a first token (so the token step sends a read instead)", async () => {
		const ctx = context();
		await expect(seam.renewToken(ctx as never, 'amlOAuth2Api')).rejects.toBeInstanceOf(Error);
		expect(seam.storedToken(await ctx.getCredentials()).token).toBeUndefined();
	});

	test('a 401 under ANSWER_EVERY_STATUS comes back as an answer, sent once, no token asked', async () => {
		const ctx = context('held');
		const answer = await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'amlOAuth2Api', {
			method: 'POST',
			url: `${server.baseUrl}/api/401`,
			body: { a: 1 },
			json: true,
			timeout: 2000,
			...seam.ANSWER_EVERY_STATUS,
		});
		expect(answer).toMatchObject({ statusCode: 401 });
		expect(events).toEqual(['service POST Bearer held']);
	});
});

/** What the seam reads from a token n8n renewed: its lifetime, and its expiry where n8n keeps one. */
describe(`n8n ${N8N_VERSION}: what the seam reads from a renewed token's data`, () => {
	let server: Awaited<ReturnType<typeof oauth2Server>>;
	beforeAll(async () => {
		server = await oauth2Server((_req, res) => void res.writeHead(200).end('{}'), {
			prefix: 'short',
			expiresIn: 1,
		});
	});
	afterAll(async () => await server.close());

	test('a 1 s token: its lifetime, and its expiry where n8n keeps one', async () => {
		const ctx = oauth2NodeContext(server.baseUrl, { token: 'old-token' });
		const before = Date.now();
		await seam.renewToken(ctx as never, 'amlOAuth2Api');
		const read = seam.storedToken(await ctx.getCredentials());
		expect(read.lifetimeMs).toBe(1000);
		expect(read.expiresAt !== undefined).toBe(MEASURED_EXPIRY[N8N_VERSION] ?? true);
		if (read.expiresAt !== undefined) {
			expect(read.expiresAt).toBeGreaterThanOrEqual(before + 1000 - 50);
			expect(read.expiresAt).toBeLessThanOrEqual(Date.now() + 1000 + 50);
		}
	});
});
