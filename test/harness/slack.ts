import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

/**
 * A stand-in for slack.com, so the Slack nodes of the example workflows post for real and the tests see what they
 * posted. n8n's Slack node always calls `https://slack.com/api/…` (its credential holds only a token), and n8n sends
 * outgoing requests through the proxy named by HTTPS_PROXY (NO_PROXY excepted). The e2e n8n therefore runs with
 * HTTPS_PROXY set to this server, which answers a CONNECT to slack.com:443 with a TLS server of its own, its
 * certificate (made here with openssl, valid two days, for slack.com only) trusted through NODE_EXTRA_CA_CERTS.
 * Every other CONNECT is refused (the tests have no internet), NO_PROXY keeps loopback (sandbox, n8n itself)
 * direct.
 *
 * The same port serves the tests over plain HTTP: `GET /calls` lists the Slack Web API calls received (method
 * name, token, body), `DELETE /calls` forgets them. A post to the channel `#aml-broken` is answered `channel_not_found`.
 */
export interface SlackCall {
	/** Slack Web API method, e.g. `chat.postMessage`. */
	method: string;
	/** The bearer token the call carried. */
	token: string | undefined;
	body: Record<string, any>;
	receivedAt: string;
}

export interface SlackStandIn {
	/** `http://127.0.0.1:<port>`: the proxy for n8n (HTTPS_PROXY) and the tests' `/calls`. */
	url: string;
	/** PEM file of the stand-in's certificate (NODE_EXTRA_CA_CERTS). */
	caFile: string;
	/** Environment for n8n: HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS. */
	env: Record<string, string>;
	close(): Promise<void>;
}

/** What the stand-in answers to a Slack Web API method (Slack answers 200 with `ok` in the body). */
function answer(method: string, body: Record<string, any>, calls: number): Record<string, unknown> {
	const ts = `${Math.floor(Date.now() / 1000)}.${String(calls).padStart(6, '0')}`;
	switch (method) {
		case 'chat.postMessage':
			// a channel the bot cannot post to, as Slack answers it (the tests' way to make a post fail)
			if (body.channel === '#aml-broken') return { ok: false, error: 'channel_not_found' };
			return {
				ok: true,
				channel: 'C0AMLREVIEW',
				ts,
				message: { type: 'message', text: body.text ?? '', blocks: body.blocks, ts },
			};
		case 'chat.update':
		case 'chat.postEphemeral':
			return { ok: true, channel: body.channel, ts };
		case 'users.info':
			return {
				ok: true,
				user: { id: body.user ?? 'U0AMLOFFICER', name: 'compliance.officer', profile: {} },
			};
		case 'auth.test':
		case 'users.profile.get':
			return { ok: true, user_id: 'U0AMLBOT', team_id: 'T0AMLTEST' };
		default:
			return { ok: false, error: 'unknown_method' };
	}
}

function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		let text = '';
		req.setEncoding('utf8');
		req.on('data', (c: string) => (text += c));
		req.on('end', () => resolve(text));
		req.on('error', reject);
	});
}

function parseBody(text: string, contentType: string | undefined): Record<string, any> {
	if (!text) return {};
	if (contentType?.includes('application/x-www-form-urlencoded'))
		return Object.fromEntries(new URLSearchParams(text));
	try {
		return JSON.parse(text) as Record<string, any>;
	} catch {
		return { raw: text };
	}
}

/** Starts the stand-in; `dir` receives its key and certificate; `onCall` sees each call (the demo prints them). */
export async function startSlackStandIn(
	dir: string,
	onCall?: (call: SlackCall) => void,
): Promise<SlackStandIn> {
	const keyFile = path.join(dir, 'slack-standin.key');
	const caFile = path.join(dir, 'slack-standin.pem');
	execFileSync(
		'openssl',
		[
			'req',
			'-x509',
			'-newkey',
			'rsa:2048',
			'-nodes',
			'-keyout',
			keyFile,
			'-out',
			caFile,
			'-days',
			'2',
			'-subj',
			'/CN=slack.com',
			'-addext',
			'subjectAltName=DNS:slack.com',
		],
		{ stdio: 'ignore' },
	);
	const calls: SlackCall[] = [];

	const slack = https.createServer(
		{ key: fs.readFileSync(keyFile), cert: fs.readFileSync(caFile) },
		(req, res) => {
			void readBody(req).then((text) => {
				const url = new URL(req.url ?? '/', 'https://slack.com');
				const method = url.pathname.replace(/^\/api\//, '');
				const body = {
					...Object.fromEntries(url.searchParams),
					...parseBody(text, req.headers['content-type']),
				};
				const auth = req.headers.authorization;
				const call = {
					method,
					token: auth?.replace(/^Bearer /, ''),
					body,
					receivedAt: new Date().toISOString(),
				};
				calls.push(call);
				onCall?.(call);
				res.setHeader('content-type', 'application/json; charset=utf-8');
				res.end(
					JSON.stringify(
						auth ? answer(method, body, calls.length) : { ok: false, error: 'not_authed' },
					),
				);
			});
		},
	);

	const proxy = http.createServer((req, res) => {
		// The tests' side (plain HTTP to this port); a proxied http:// request has an absolute URL and is refused.
		if (req.url === '/calls' && req.method === 'GET') {
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify(calls));
		} else if (req.url === '/calls' && req.method === 'DELETE') {
			calls.length = 0;
			res.end();
		} else {
			res.statusCode = 403;
			res.end('only slack.com is served here');
		}
	});
	proxy.on('connect', (req, socket, head) => {
		if (req.url !== 'slack.com:443') {
			socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
			return;
		}
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		if (head.length) socket.unshift(head);
		slack.emit('connection', socket);
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
	return {
		url,
		caFile,
		env: {
			HTTPS_PROXY: url,
			https_proxy: url,
			NO_PROXY: '127.0.0.1,localhost,::1',
			no_proxy: '127.0.0.1,localhost,::1',
			NODE_EXTRA_CA_CERTS: caFile,
		},
		close: async () => {
			proxy.closeAllConnections();
			slack.closeAllConnections();
			await new Promise((resolve) => proxy.close(resolve));
		},
	};
}
