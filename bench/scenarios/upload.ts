import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { webhookNode } from '../../test/harness/client';
import { mb, peakDuring, rawToken, type BenchEnv, type Result } from '../lib';

/** A CSV of persons of about `size` bytes; the first row is invalid, so the service stores nothing. */
function writeCsv(file: string, size: number, tag: string): number {
	const filler = 'x'.repeat(100 * 1024 - 40);
	const fd = fs.openSync(file, 'w');
	fs.writeSync(fd, 'id,type,note\n');
	let written = 13;
	for (let i = 0; written < size; i++) {
		const line = `${tag}-${i},${i === 0 ? 'ALIEN' : 'INDIVIDUAL'},${filler}\n`.slice(
			0,
			Math.max(0, size - written),
		);
		fs.writeSync(fd, line);
		written += line.length;
	}
	fs.closeSync(fd);
	return written;
}

/**
 * 4. Upload of a 100 MB CSV (10 MB quick): Read/Write Files from Disk → AML Data Upload (no waiting for the
 *    service's processing). Added peak memory of the n8n process over idle, and throughput of the AML node
 *    (file size / the node's own execution time) vs curl uploading the same file to the sandbox.
 */
export async function uploadCsv(env: BenchEnv): Promise<Result[]> {
	const { control, client, credentials, n8n, sb } = env;
	await control.post('/reset', {});
	const dir = path.join(os.homedir(), '.n8n-files');
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, `bench-upload-${randomUUID().slice(0, 8)}.csv`);
	const size = writeCsv(file, Math.round(100e6 * env.scale), 'bu');
	try {
		// curl: the same file, multipart, straight to the sandbox (best of two).
		const bearer = await rawToken(env);
		let curlMs = Infinity;
		for (let i = 0; i < 2; i++) {
			// Asynchronous: the sandbox answering curl runs in this process.
			const { stdout: out } = await promisify(execFile)(
				'curl',
				[
					'-s',
					'-o',
					'/dev/null',
					'-w',
					'%{http_code} %{time_total}',
					'-H',
					`Authorization: Bearer ${bearer}`,
					'-F',
					`file=@${file};type=text/csv`,
					`${sb.baseUrl}/api/v1/data-upload?type=PERSON`,
				],
				{ encoding: 'utf8' },
			);
			const [code, seconds] = out.trim().split(' ');
			if (code !== '202') throw new Error(`curl upload answered ${code}`);
			curlMs = Math.min(curlMs, Number(seconds) * 1000);
		}
		const webhookPath = `bench-upload-${randomUUID()}`;
		const workflow = {
			name: `bench upload ${webhookPath}`,
			nodes: [
				webhookNode(webhookPath, { responseData: 'noData' }),
				{
					id: randomUUID(),
					name: 'Source',
					type: 'n8n-nodes-base.readWriteFile',
					typeVersion: 1,
					position: [200, 0],
					parameters: { operation: 'read', fileSelector: file, options: {} },
				},
				{
					id: randomUUID(),
					name: 'AML',
					type: 'n8n-nodes-aml.aml',
					typeVersion: 1,
					position: [400, 0],
					parameters: {
						resource: 'dataUpload',
						operation: 'upload',
						uploadType: 'PERSON',
						waitForCompletion: false,
					},
					credentials,
				},
			],
			connections: {
				Webhook: { main: [[{ node: 'Source', type: 'main', index: 0 }]] },
				Source: { main: [[{ node: 'AML', type: 'main', index: 0 }]] },
			},
		};
		// Warm-up with a small file: token stored, code paths loaded.
		const small = path.join(dir, `bench-upload-small-${randomUUID().slice(0, 8)}.csv`);
		writeCsv(small, 64 * 1024, 'bw');
		await client.runWorkflow({
			...workflow,
			nodes: workflow.nodes.map((n) =>
				n.name === 'Source' ? { ...n, parameters: { ...n.parameters, fileSelector: small } } : n,
			),
		});
		fs.rmSync(small, { force: true });
		const measured = await peakDuring(n8n.pid, () =>
			client.runWorkflow(workflow, {}, { timeoutMs: 600_000 }),
		);
		const runData = measured.value.execution.data?.resultData?.runData ?? {};
		const amlRun = runData.AML?.[0];
		const status =
			amlRun?.data?.main?.[0]?.[0]?.json?.status ?? amlRun?.error?.message ?? 'no output';
		const nodeMs = Number(amlRun?.executionTime ?? NaN);
		const added = measured.peak - measured.idle;
		const nodeMBps = size / 1e6 / (nodeMs / 1000);
		const curlMBps = size / 1e6 / (curlMs / 1000);
		return [
			{
				name: 'upload csv',
				figures: {
					fileMb: mb(size),
					status,
					nodeMs,
					curlMs: Math.round(curlMs),
					nodeMBps: +nodeMBps.toFixed(1),
					curlMBps: +curlMBps.toFixed(1),
					idleRssMb: mb(measured.idle),
					peakRssMb: mb(measured.peak),
					addedRssMb: mb(added),
					addedPerFileSize: +(added / size).toFixed(2),
				},
				ratio: +(nodeMBps / curlMBps).toFixed(2),
				baseline: 'curl throughput (same file, same sandbox)',
				goal: 'added memory <= 1.2× file size, throughput >= 0.5× curl',
				met: added / size <= 1.2 && nodeMBps / curlMBps >= 0.5 && status === 'ACCEPTED',
			},
		];
	} finally {
		fs.rmSync(file, { force: true });
	}
}
