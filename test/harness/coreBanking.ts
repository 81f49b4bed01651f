import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for a core banking system's payment calls, for example 08 (release or reject a payment the Gate held):
 * every POST under `/payments/` is answered 200 `{"ok":true}` and recorded. The same port serves `GET /calls` (the
 * calls received, oldest first) and `DELETE /calls` (forgets them). Binds 127.0.0.1 on a free port.
 */
export interface CoreBankingCall {
	/** e.g. `/payments/release`, `/payments/reject`. */
	path: string;
	body: Record<string, unknown>;
	receivedAt: string;
}

export interface CoreBankingStandIn {
	/** `http://127.0.0.1:<port>`. */
	url: string;
	calls: CoreBankingCall[];
	close(): Promise<void>;
}

export async function startCoreBankingStandIn(
	onCall: (call: CoreBankingCall) => void = () => undefined,
): Promise<CoreBankingStandIn> {
	const calls: CoreBankingCall[] = [];
	const server = http.createServer((req, res) => {
		let text = '';
		req.on('data', (chunk) => (text += chunk));
		req.on('end', () => {
			res.setHeader('content-type', 'application/json');
			const url = req.url ?? '/';
			if (req.method === 'GET' && url === '/calls') return void res.end(JSON.stringify(calls));
			if (req.method === 'DELETE' && url === '/calls') {
				calls.length = 0;
				return void res.end('{}');
			}
			if (req.method === 'POST' && url.startsWith('/payments/')) {
				let body: Record<string, unknown> = {};
				try {
					body = JSON.parse(text) as Record<string, unknown>;
				} catch {
					body = { unparsed: text };
				}
				const call = { path: url, body, receivedAt: new Date().toISOString() };
				calls.push(call);
				onCall(call);
				return void res.end('{"ok":true}');
			}
			res.statusCode = 404;
			res.end('{"error":"not found"}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		calls,
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
