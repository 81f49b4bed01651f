import { compiledSeam, inN8nProcess, N8N_VERSION } from './n8n';

/**
 * Seam nodes/shared/n8n/webhookRequest.ts against this n8n's own body-parser middleware (the one its webhook server
 * runs before a webhook node): on real HTTP requests, after n8n parsed the body, `rawBodyOf` gives the bytes exactly as
 * sent (what the AML Trigger's HMAC check is computed over), for JSON, JSON under another content type and bytes that
 * are not text; and a request n8n has not read yet is read through its own `readRawBody`. Run in a plain Node process
 * in the n8n install (n8n-core's imports include ES modules jest cannot load), with the seam file compiled as it is.
 */
const json = Buffer.from(
	'{ "action" : "alert.created",\n  "metadata": {"id": "a-1", "name": "Zoë"} }\n',
);
const CASES: Array<[string, Buffer, string, boolean]> = [
	['JSON, parsed by n8n', json, 'application/json', true],
	['JSON sent as text/plain, parsed by n8n', json, 'text/plain', true],
	[
		'bytes that are not UTF-8 text',
		Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
		'application/octet-stream',
		true,
	],
	[
		'JSON that n8n has not read yet (read through its readRawBody)',
		json,
		'application/json',
		false,
	],
];

/** In the n8n install: a server running n8n's middlewares, then the seam's rawBodyOf; each case sent to it. */
const SCRIPT = `
const http = require('node:http');
const parser = require('n8n/dist/middlewares/body-parser');
const seam = require(input.seam);
const server = http.createServer((req, res) => {
	const run = (mw) => new Promise((resolve, reject) => mw(req, res, (e) => (e ? reject(e) : resolve())));
	(async () => {
		await run(parser.rawBodyReader);
		if (req.headers['x-parse'] === 'yes') await run(parser.bodyParser);
		const raw = await seam.rawBodyOf(req);
		res.end(JSON.stringify({ raw: raw ? raw.toString('base64') : null, parsed: req.body ?? null }));
	})().catch((e) => res.writeHead(500).end(JSON.stringify({ error: String(e) })));
});
server.listen(0, '127.0.0.1', async () => {
	const out = [];
	for (const c of input.cases) {
		const r = await fetch('http://127.0.0.1:' + server.address().port + '/webhook/x', {
			method: 'POST',
			headers: { 'content-type': c.contentType, 'x-parse': c.parse ? 'yes' : 'no' },
			body: Buffer.from(c.body, 'base64'),
		});
		out.push(await r.json());
	}
	console.log(JSON.stringify(out));
	process.exit(0);
});
`;

let seen: Array<{ raw: string | null; parsed: unknown; error?: string }>;

beforeAll(() => {
	const seam = compiledSeam('webhookRequest');
	seen = inN8nProcess(SCRIPT, {
		seam,
		cases: CASES.map(([, body, contentType, parse]) => ({
			body: body.toString('base64'),
			contentType,
			parse,
		})),
	});
});

describe(`a webhook's bytes through n8n ${N8N_VERSION}'s body parser`, () => {
	test.each(CASES.map((c, i) => [...c, i] as const))(
		'%s: the bytes exactly as sent',
		(_name, body, contentType, parse, i) => {
			expect(seen[i].error).toBeUndefined();
			expect(seen[i].raw).toBe(body.toString('base64'));
			if (parse && contentType === 'application/json')
				expect(seen[i].parsed).toEqual(JSON.parse(body.toString('utf8')));
		},
	);
});
