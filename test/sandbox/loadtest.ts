/**
 * Throughput of the sandbox for simple authenticated reads (GET /api/v1/persons/:id), measured with autocannon.
 * The sandbox runs as a child process (the CLI) pinned to one core with `taskset -c 0` when available; autocannon runs
 * in this process (pinned to core 1 when there is one), so the figure is the sandbox's own on one core.
 *
 *   npx tsx test/sandbox/loadtest.ts [seconds=10] [connections=50]
 *   LOADTEST_INPROCESS=1 npx tsx test/sandbox/loadtest.ts   # sandbox and load generator share one process
 */
import axios from 'axios';
import { spawn, spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox } from './index';

// autocannon ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: object) => Promise<{
	requests: { average: number; total: number };
	latency: { p99: number };
	non2xx: number;
	errors: number;
}>;

async function startChild(): Promise<{
	baseUrl: string;
	tokenUrl: string;
	stop: () => void;
	pinned: boolean;
}> {
	const cli = path.join(__dirname, 'cli.ts');
	const tsx = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
	const canPin = os.cpus().length > 1 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
	const child = canPin
		? spawn('taskset', ['-c', '0', tsx, cli, '--port', '0'])
		: spawn(tsx, [cli, '--port', '0']);
	if (canPin && child.pid) spawnSync('taskset', ['-pc', '1', String(process.pid)]);
	const line = await new Promise<string>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (d: Buffer) => {
			out += d.toString();
			const m = /AML sandbox: .*\n/.exec(out);
			if (m) resolve(m[0]);
		});
		child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
	});
	const m = /api=(\S+) token=(\S+)/.exec(line)!;
	return { baseUrl: m[1], tokenUrl: m[2], stop: () => child.kill('SIGTERM'), pinned: canPin };
}

void (async () => {
	const seconds = Number(process.argv[2] ?? 10);
	const connections = Number(process.argv[3] ?? 50);
	const inProcess = process.env.LOADTEST_INPROCESS === '1';
	const sb = inProcess ? await startSandbox({ quiet: true }) : await startChild();
	const token = (
		await axios.post(sb.tokenUrl, 'grant_type=client_credentials', {
			auth: { username: 'aml-demo-client', password: 'aml-demo-secret' },
		})
	).data.access_token;
	const options = {
		url: `${sb.baseUrl}/api/v1/persons/cust-1001`,
		headers: { authorization: `Bearer ${token}` },
		connections,
	};
	await autocannon({ ...options, duration: 2 }); // warm-up (JIT)
	const result = await autocannon({ ...options, duration: seconds });
	const where = inProcess
		? 'in-process (sandbox and autocannon share one process)'
		: 'sandbox pinned to one core' +
			('pinned' in sb && sb.pinned ? '' : ' (taskset unavailable: not pinned)');
	console.log(
		`sandbox: ${Math.round(result.requests.average)} req/s average, ${result.requests.total} requests, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx, ${result.errors} errors; ${seconds} s, ${connections} connections, ${where}`,
	);
	if ('server' in sb) await sb.close();
	else sb.stop();
})();
