/**
 * Throughput of the sandbox for simple authenticated reads (GET /api/v1/persons/:id), measured with
 * autocannon from this process. Usage: npx tsx test/sandbox/loadtest.ts [seconds] [connections]
 */
import axios from 'axios';

import { startSandbox } from './index';

// autocannon ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: object) => Promise<{ requests: { average: number }; latency: { p99: number }; non2xx: number }>;

void (async () => {
	const seconds = Number(process.argv[2] ?? 10);
	const connections = Number(process.argv[3] ?? 50);
	const sb = await startSandbox({ quiet: true });
	const token = (
		await axios.post(sb.tokenUrl, 'grant_type=client_credentials', { auth: { username: sb.clientId, password: sb.clientSecret } })
	).data.access_token;
	const result = await autocannon({
		url: `${sb.baseUrl}/api/v1/persons/cust-1001`,
		headers: { authorization: `Bearer ${token}` },
		connections,
		duration: seconds,
	});
	console.log(
		`sandbox: ${Math.round(result.requests.average)} req/s average (p99 latency ${result.latency.p99} ms, ${result.non2xx} non-2xx) over ${seconds} s with ${connections} connections`,
	);
	await sb.close();
})();
