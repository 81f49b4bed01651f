import { inN8nProcess, N8N_VERSION, oauth2NodeContext, oauth2Server, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/cancel.ts against this n8n's real `httpRequestWithAuthentication`: a credential without a token,
 * a token endpoint that answers late. Aborting the signal given with `withCancelSignal` while the token is being
 * fetched stops the service request n8n would send once the token arrives; without it n8n sends it (what the seam
 * prevents). An aborted signal also stops a service request in flight.
 */
const seam = withN8n(
	() => require('../../nodes/shared/n8n/cancel') as typeof import('../../nodes/shared/n8n/cancel'),
);

const TOKEN_LATE_MS = 600;
const ANSWER = { returnFullResponse: true, ignoreHttpStatusErrors: true } as const;
let server: Awaited<ReturnType<typeof oauth2Server>>;

beforeAll(async () => {
	server = await oauth2Server(
		(req, res) => {
			if (req.url === '/api/slow') return void setTimeout(() => res.end('{}'), 2000);
			res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
		},
		{ prefix: 'late', lateMs: TOKEN_LATE_MS },
	);
});
afterAll(async () => await server.close());

const serviceRequests = () => server.requests.filter((r) => r.url.startsWith('/api/'));
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sendThrough(ctx: object & { helpers: any }, path: string, abortAfterMs: number) {
	const execution = new AbortController();
	const ours = new AbortController();
	const base = Object.assign(ctx, { getExecutionCancelSignal: () => execution.signal });
	const call = base.helpers.httpRequestWithAuthentication
		.call(seam.withCancelSignal(base, ours.signal), 'amlOAuth2Api', {
			method: 'POST',
			url: `${server.baseUrl}/api/${path}`,
			body: { a: 1 },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		})
		.then(
			() => 'answered',
			(error: Error) => `failed: ${error.message}`,
		);
	await wait(abortAfterMs);
	ours.abort();
	return await call;
}

describe(`stopping a request on n8n ${N8N_VERSION}`, () => {
	test("n8n's execute context offers getExecutionCancelSignal, and the seam reads it (absent elsewhere: none)", () => {
		// in a plain Node process of the n8n install (jest cannot load 2.0.3's n8n-core)
		const offered = inN8nProcess<string>(
			"console.log(JSON.stringify(typeof require('n8n-core').ExecuteContext.prototype.getExecutionCancelSignal))",
			null,
		);
		expect(offered).toBe('function');
		const execution = new AbortController();
		expect(seam.executionCancelSignal({ getExecutionCancelSignal: () => execution.signal })).toBe(
			execution.signal,
		);
		expect(seam.executionCancelSignal({})).toBeUndefined();
	});

	test('aborted while n8n fetches the first token: the token is stored, the service request is never sent', async () => {
		const stored: string[] = [];
		const before = serviceRequests().length;
		const ctx = oauth2NodeContext(server.baseUrl, { onStore: () => stored.push('stored') });
		const result = await sendThrough(ctx, 'ok', 100);
		await wait(200);
		expect({
			result: result.startsWith('failed'),
			stored,
			sent: serviceRequests().length - before,
		}).toEqual({
			result: true,
			stored: ['stored'],
			sent: 0,
		});
	});

	test('requestWithin: a first fetch still running at the limit is given up at the token endpoint, and nothing is sent later', async () => {
		const before = serviceRequests().length;
		const ctx = oauth2NodeContext(server.baseUrl);
		Object.assign(ctx, { getExecutionCancelSignal: () => new AbortController().signal });
		const given = await seam
			.requestWithin(
				ctx as never,
				'amlOAuth2Api',
				{ method: 'POST', url: `${server.baseUrl}/api/ok`, json: true, timeout: 100, ...ANSWER },
				Date.now() + 100,
			)
			.then(
				() => undefined,
				(error: unknown) => error,
			);
		await wait(TOKEN_LATE_MS);
		expect({
			placed: (given as { placed?: unknown }).placed,
			sent: serviceRequests().length - before,
		}).toEqual({
			placed: { kind: 'network', code: 'ETIMEDOUT', fromTokenEndpoint: true },
			sent: 0,
		});
	});

	test('without the seam (only the execution signal), n8n sends it once the token arrives', async () => {
		const before = serviceRequests().length;
		const ctx = oauth2NodeContext(server.baseUrl);
		const execution = new AbortController();
		const result = await ctx.helpers.httpRequestWithAuthentication
			.call(
				Object.assign(ctx, { getExecutionCancelSignal: () => execution.signal }),
				'amlOAuth2Api',
				{
					method: 'POST',
					url: `${server.baseUrl}/api/ok`,
					body: { a: 1 },
					json: true,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					abortSignal: AbortSignal.abort(),
				},
			)
			.then(
				() => 'answered',
				(error: Error) => `failed: ${error.message}`,
			);
		expect({ result, sent: serviceRequests().length - before }).toEqual({
			result: 'answered',
			sent: 1,
		});
	});

	test('aborted while the service request is in flight: the call fails at once', async () => {
		const ctx = oauth2NodeContext(server.baseUrl, { token: 'held' });
		const started = Date.now();
		const result = await sendThrough(ctx, 'slow', 200);
		expect(result).toMatch(/^failed/);
		expect(Date.now() - started).toBeLessThan(1500);
	});
});
