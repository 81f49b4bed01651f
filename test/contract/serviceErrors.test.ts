import { FAKE_SECRET, FAKE_TOKEN, scriptedServer } from '../unit/realHttpContext';
import { N8N_VERSION, n8nPackageVersion, oauth2NodeContext, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/errors.ts against what this n8n's REAL `httpRequestWithAuthentication` (its n8n-core's request
 * helpers, built as for an execution; the credential an OAuth2 one holding a token, as the AML credential is) throws or
 * returns for each of the service's failures, against a local server: every status the service uses comes back as an
 * answer (status, Retry-After, body; sent once, no token renewal), and a request without an answer (dropped,
 * refused, timed out) throws an error the seam reads as the service's network failure, refused as never sent.
 */
const seam = withN8n(
	() => require('../../nodes/shared/n8n/errors') as typeof import('../../nodes/shared/n8n/errors'),
);
const tokenSeam = withN8n(
	() =>
		require('../../nodes/shared/n8n/oauthToken') as typeof import('../../nodes/shared/n8n/oauthToken'),
);

/** The statuses the service's interface uses, each answered with a JSON body (422 also as plain text). */
const STATUSES: Array<[string, number, Record<string, string>, string]> = [
	['400', 400, {}, '{"message":"bad request"}'],
	['401', 401, {}, '{"message":"unauthorized"}'],
	['403', 403, {}, '{"message":"forbidden"}'],
	['404', 404, {}, '{"message":"not found"}'],
	['409', 409, {}, '{"message":"conflict"}'],
	['422', 422, {}, '{"message":"invalid"}'],
	['422 plain text', 422, { 'content-type': 'text/plain' }, 'Validation failed'],
	['429 with Retry-After', 429, { 'retry-after': '7' }, '{"message":"slow down"}'],
	['429 without Retry-After', 429, {}, '{"message":"slow down"}'],
	['500', 500, {}, '{"message":"boom"}'],
	['502', 502, {}, '{"message":"bad gateway"}'],
	['503', 503, { 'retry-after': '2' }, '{"message":"unavailable"}'],
];

const FAILURES: Record<string, object> = {
	'connection dropped': { kind: 'network', code: 'ECONNRESET' },
	'connection refused': { kind: 'network', code: 'ECONNREFUSED' },
	timeout: { kind: 'network', code: 'ETIMEDOUT' },
};

let server: Awaited<ReturnType<typeof scriptedServer>>;

beforeAll(async () => {
	server = await scriptedServer((req, _body, res) => {
		const [, kind] = /^\/api\/([^?]*)/.exec(req.url ?? '') ?? [];
		if (kind === 'drop') {
			req.socket.destroy();
			return;
		}
		if (kind === 'slow') return; // never answered
		const row = STATUSES.find(([name]) => encodeURIComponent(name) === kind);
		const [, status, headers, body] = row ?? ['', 200, {}, '{}'];
		res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
	});
});

afterAll(async () => await server.close());

/** One request as the package's transport sends it (transport/request.ts): every status handed back, no redirects. */
async function send(url: string, timeout = 2000) {
	const ctx = oauth2NodeContext(server.baseUrl, { token: FAKE_TOKEN, secret: FAKE_SECRET });
	return await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'amlOAuth2Api', {
		method: 'POST',
		url,
		body: { a: 1 },
		headers: { Accept: 'application/json' },
		json: true,
		disableFollowRedirect: true,
		...tokenSeam.ANSWER_EVERY_STATUS,
		timeout,
	});
}

describe(`the service's failures through n8n ${N8N_VERSION}'s httpRequestWithAuthentication (n8n-core ${n8nPackageVersion('n8n-core')})`, () => {
	test.each(STATUSES)(
		'%s: comes back as an answer (status, Retry-After, body), sent once, no token renewal',
		async (name, status, headers, body) => {
			const before = server.requests.length;
			const answer = await send(`${server.baseUrl}/api/${encodeURIComponent(name)}`);
			const sent = server.requests.slice(before);
			expect({
				statusCode: answer.statusCode,
				retryAfter: answer.headers['retry-after'],
				body: answer.body,
				sent: sent.map((r) => `${r.method} ${r.url} ${String(r.headers.authorization)}`),
			}).toEqual({
				statusCode: status,
				retryAfter: headers['retry-after'],
				body: headers['content-type'] === 'text/plain' ? body : JSON.parse(body),
				sent: [`POST /api/${encodeURIComponent(name)} Bearer ${FAKE_TOKEN}`],
			});
		},
	);

	test.each(Object.keys(FAILURES))(
		"%s: n8n throws, and the seam reads the service's network failure",
		async (kind) => {
			const url =
				kind === 'connection refused'
					? 'http://127.0.0.1:1/api/refused'
					: `${server.baseUrl}/api/${kind === 'timeout' ? 'slow' : 'drop'}`;
			const thrown = await send(url, 300).then(
				(answer: unknown) => ({ answer }),
				(error: Error) => error,
			);
			expect(thrown).toBeInstanceOf(Error);
			const outcome = seam.classify(thrown);
			expect(outcome).toEqual(FAILURES[kind]);
			// refused: nothing reached the service, so any request may be sent again; the others may have been applied
			expect(seam.NEVER_SENT.has((outcome as { code: string }).code)).toBe(
				kind === 'connection refused',
			);
			// the error n8n throws carries no secret
			expect(JSON.stringify(thrown, Object.getOwnPropertyNames(thrown))).not.toContain(FAKE_TOKEN);
		},
	);
});
