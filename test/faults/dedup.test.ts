import axios from 'axios';
import { randomUUID } from 'node:crypto';

import { dbNotReady, type Json } from '../harness/client';
import { n8n, nodeOutput } from '../harness/context';
import { cleanup, NODE, publish, settled, until } from '../harness/trigger';
import { report, sleep, tally } from './helpers';

/**
 * AML Trigger deduplication in real n8n: the same delivery sent again as the service would (each copy answered
 * non-2xx is sent again until a 2xx), and every event must run the workflow exactly once (a trigger output), none
 * lost, none doubled:
 * - twice in sequence (the second after the first's execution ended);
 * - COPIES copies at once;
 * - later again (a few seconds after, n8n not restarted), one copy and COPIES at once.
 * Each test prints `[faults] dedup-… {figures}`: executions started (a copy stopped by n8n's deduplication store
 * starts an execution that outputs nothing), runs, and the answers.
 */
const COPIES = 20;

const event = (alertId: number) =>
	JSON.stringify({
		action: 'ALERT_STATUS_UPDATED',
		createdTime: new Date().toISOString(),
		metadata: { alertId, status: 'CLOSED', previousStatus: 'NEW', nonce: randomUUID() },
	});

/** POSTs the bytes as the service does: again (after a second) while the answer is not a 2xx. */
async function deliver(url: string, body: string): Promise<Array<string>> {
	const answers: string[] = [];
	for (let tries = 0; tries < 60; tries++) {
		const r = await axios.post(url, body, {
			headers: { 'content-type': 'application/json' },
			validateStatus: () => true,
			transformRequest: (b) => b,
			timeout: 60_000,
		});
		answers.push(`${r.status}${r.data?.reason ? ` ${r.data.reason}` : ''}`);
		if (r.status >= 200 && r.status < 300 && !dbNotReady(r)) return answers;
		await sleep(1000);
	}
	return answers;
}

/** Every execution of the workflow (finished), and the trigger's output items by alert id. */
async function executions(
	workflowId: string,
): Promise<{ started: number; runs: Record<string, number> }> {
	const list: Json[] = [];
	let cursor: string | undefined;
	do {
		const page = await n8n().api.get('/executions', {
			params: { workflowId, limit: 250, includeData: true, ...(cursor ? { cursor } : {}) },
		});
		list.push(...page.data.data);
		cursor = page.data.nextCursor ?? undefined;
	} while (cursor);
	const runs: Record<string, number> = {};
	for (const e of list)
		for (const item of nodeOutput(e, NODE))
			runs[item.metadata.alertId] = (runs[item.metadata.alertId] ?? 0) + 1;
	return { started: list.length, runs };
}

afterAll(() => {
	cleanup.splice(0);
});

test(
	`the same delivery in sequence, ${COPIES} copies at once, and later again: each event runs once`,
	async () => {
		const wf = await publish({ authentication: 'none', events: ['*'] });
		const answers: string[] = [];
		const send = async (body: string, copies = 1) =>
			(await Promise.all(Array.from({ length: copies }, () => deliver(wf.url, body)))).forEach(
				(a) => answers.push(...a),
			);
		const warmUp = event(1); // the trigger's first key: n8n's store then holds a record for it (later keys update it)
		const sequence = event(2);
		const atOnce = event(3);
		await send(warmUp);
		await settled(wf.id, 1, 300);

		await send(sequence);
		await settled(wf.id, 2, 300);
		await send(sequence);

		await send(atOnce, COPIES);
		await until('the copies at once ran', async () => (await executions(wf.id)).runs['3']);
		await sleep(3000);
		const atOnceFigures = await executions(wf.id);

		// Later, n8n not restarted: one copy of each, then COPIES of one at once.
		await send(warmUp);
		await send(sequence);
		await send(atOnce, COPIES);
		await sleep(5000);
		const { started, runs } = await executions(wf.id);
		report('dedup', {
			copiesAtOnce: COPIES,
			runsOfCopiesAtOnce: atOnceFigures.runs['3'],
			executionsStartedAfterCopiesAtOnce: atOnceFigures.started,
			executionsStarted: started,
			runs,
			answers: tally(answers),
		});
		expect(runs).toEqual({ '1': 1, '2': 1, '3': 1 });
	},
	10 * 60_000,
);
