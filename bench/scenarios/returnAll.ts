import axios from 'axios';
import * as http from 'node:http';

import { CONCURRENCY } from './create';
import {
	executionMs,
	inWorker,
	mb,
	peakDuring,
	rawToken,
	type BenchEnv,
	type Result,
} from '../lib';

/** Delay added to every search request in the second pass: a round trip to a hosted service. */
export const SERVICE_LATENCY_MS = 20;

/**
 * The best any client can do here: a raw keep-alive client on its own thread that fetches the pages as the node does
 * (the first page, then the rest CONCURRENCY at a time), with no per-request cost of n8n's. Its time over the
 * sequential client's is the floor of the ratio on this machine: when the service is the bottleneck, no client
 * reaches a lower one.
 */
async function rawParallel(
	baseURL: string,
	token: string,
	body: Record<string, unknown>,
	expected: number,
): Promise<number> {
	return await inWorker(
		`const agent = new http.Agent({ keepAlive: true, maxSockets: d.concurrency });
		const raw = axios.create({ baseURL: d.baseURL, httpAgent: agent, headers: { Authorization: 'Bearer ' + d.token } });
		const page = async (n) => (await raw.post('/v2/persons/search', { ...d.body, page: n, size: 50 })).data;
		const started = Date.now();
		(async () => {
			const first = await page(0);
			const pages = [first.content];
			const count = Math.ceil(first.total / 50);
			let next = 1;
			await Promise.all(Array.from({ length: d.concurrency }, async () => {
				while (next < count) {
					const n = next++;
					pages[n] = (await page(n)).content;
				}
			}));
			const returned = pages.flat().length;
			if (returned !== d.expected) throw new Error('returned ' + returned + ' of ' + d.expected);
		})().then(
			() => { agent.destroy(); parentPort.postMessage({ ms: Date.now() - started }); },
			(error) => { agent.destroy(); parentPort.postMessage({ error: String(error) }); },
		);`,
		{ baseURL, token, body, expected, concurrency: CONCURRENCY },
	);
}

/** 3. Return All of N persons (person search, 50 per page): the AML node vs a raw sequential client. */
export async function returnAllPersons(env: BenchEnv): Promise<Result[]> {
	const { control, client, credentials, n8n, sb } = env;
	await control.post('/reset', {});
	await control.post('/config', { tokenLifetimeSeconds: 3600 });
	const persons = Math.round(10_000 * env.scale);
	const bearer = await rawToken(env);
	const auth = { headers: { Authorization: `Bearer ${bearer}` } };
	const csv = `id,type,first_name\n${Array.from({ length: persons }, (_, i) => `bp-${i},INDIVIDUAL,P${i}`).join('\n')}\n`;
	const form = new FormData();
	form.append('file', new Blob([csv]), 'persons.csv');
	const up = await axios.post(`${sb.baseUrl}/api/v1/data-upload?type=PERSON`, form, auth);
	for (let i = 0; i < 600; i++) {
		const s = (await axios.get(`${sb.baseUrl}/api/v1/data-upload/${up.data.id}/status`, auth)).data;
		if (s.status !== 'PROCESSING') break;
		await new Promise((r) => setTimeout(r, 100));
	}
	const filter = {
		filters: [{ attribute: 'id', operator: 'STARTS_WITH', query: 'bp-' }],
		logicalOperator: 'AND',
		category: 'CUSTOMER',
	};
	const search = (page: number) => ({ page, size: 50, ...filter });
	const node = {
		parameters: {
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			logicalOperator: 'AND',
			filters: { filter: [{ attribute: 'id', operator: 'STARTS_WITH', query: 'bp-' }] },
			returnAll: true,
			options: { parallelRequests: CONCURRENCY },
		},
		credentials,
	};
	// One warm-up run stores the token, as in any workflow after its first run.
	await client.runNode(node, [{}], { credentials });
	const results: Result[] = [];
	// The sandbox runs in this process on one thread and spends ~3 ms of CPU per page of this search (a scan of
	// all persons): with no added latency, parallel pages queue behind each other. A hosted service answers
	// across a network; the second pass adds the same delay to every search request, for both clients.
	for (const latencyMs of [0, SERVICE_LATENCY_MS]) {
		await control.delete('/faults');
		if (latencyMs)
			await control.post('/faults', {
				rules: [{ method: 'POST', path: 'persons/search$', latencyMs }],
			});
		const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
		let started = Date.now();
		let total = Infinity;
		let rawCount = 0;
		for (let page = 0; page * 50 < total; page++) {
			const body = (
				await axios.post(`${sb.baseUrl}/api/v2/persons/search`, search(page), {
					...auth,
					httpAgent: agent,
				})
			).data;
			total = body.total;
			rawCount += body.content?.length ?? 0;
		}
		const rawSeqMs = Date.now() - started;
		agent.destroy();
		const rawParallelMs = await rawParallel(`${sb.baseUrl}/api`, bearer, filter, persons);
		started = Date.now();
		const all = await peakDuring(n8n.pid, () => client.runNode(node, [{}], { credentials }));
		const allMs = executionMs(all.value.execution, Date.now() - started);
		const returned = all.value.outputs[0]?.length ?? 0;
		results.push({
			name: latencyMs
				? `return all persons, service latency ${latencyMs} ms`
				: 'return all persons',
			figures: {
				persons,
				pages: Math.ceil(persons / 50),
				addedLatencyMs: latencyMs,
				rawSequentialMs: rawSeqMs,
				rawReturned: rawCount,
				rawParallelMs,
				floor: +(rawParallelMs / rawSeqMs).toFixed(2),
				nodeMs: allMs,
				returned,
				peakRssMb: mb(all.peak),
				addedRssMb: mb(all.peak - all.idle),
			},
			ratio: +(allMs / rawSeqMs).toFixed(2),
			baseline: `raw sequential keep-alive client (floor: the same pages fetched by a raw client ${CONCURRENCY} at a time)`,
			goal: '<= 0.5',
			met: allMs / rawSeqMs <= 0.5 && returned === persons && rawCount === persons,
		});
	}
	await control.delete('/faults');
	return results;
}
