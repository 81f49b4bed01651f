import { context, control, n8n } from '../harness/context';
import type { Json } from '../harness/client';
import { describeGateRules } from '../harness/gateRules';
import {
	api,
	cleanupMatrix,
	OPERATIONS,
	prepareMatrix,
	runOne,
	type Ids,
	type Operation,
} from '../harness/matrix';
import { resources } from '../../nodes/Aml/actions/router';

/**
 * n8n's node settings on every operation, in real n8n (issue 40): Retry On Fail is refused before any request by every
 * operation that writes or checks (n8n would run the whole node again), and runs as usual on the operations that only
 * read; Always Output Data is refused by the operations with Block and Clear outputs (n8n would add an empty item).
 * Then the payment gate's rule through example 01 (test/harness/gateRules.ts).
 */
let base: Omit<Ids, 'u'>;
let row = 0;

beforeAll(async () => {
	await control.post('/reset');
	await control.post('/config', { tokenRateLimit: { max: 100000, windowSeconds: 60 } });
	base = await prepareMatrix();
});

afterAll(async () => {
	await control.post('/config', { tokenRateLimit: { max: 5, windowSeconds: 60 } });
	await cleanupMatrix();
	await n8n().cleanup();
});

const moduleOf = (operation: Operation) =>
	resources[operation.parameters.resource as string].operations[
		operation.parameters.operation as string
	];
const routed = (operation: Operation) =>
	operation.kind === 'routedCheck' || operation.kind === 'gate';

/** One run of `operation` with more node settings; what reached the service for its target. */
async function runWith(operation: Operation, onError: 'stop' | 'continueErrorOutput', more: Json) {
	const ids = { ...base, u: `set${++row}${Date.now() % 100000}` } as Ids;
	await operation.seed?.(ids, api);
	const mark = await control.mark();
	const run = await runOne(operation, onError, ids, context().credential, '', more);
	const target = operation.target(ids);
	const sent = ((await control.requestsSince(mark)) as Json[]).filter(
		(r) => r.method === target.method && new RegExp(target.path).test(r.path),
	);
	return { run, sent };
}

describe('Retry On Fail on every operation', () => {
	const retry = { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 };

	test.each(OPERATIONS.map((operation) => [operation.name, operation] as const))(
		'%s',
		async (_name, operation) => {
			const readOnly = moduleOf(operation).readOnly === true;
			const stopped = await runWith(operation, 'stop', retry);
			if (readOnly) {
				// a read may run again: it runs as without the setting
				expect(stopped.run.error?.message ?? '').not.toMatch(/Retry On Fail/);
				return;
			}
			expect(stopped.run.status).toBe('error');
			expect(stopped.run.error?.message).toMatch(/^Turn off "Retry On Fail"/);
			expect(stopped.sent).toEqual([]);
			// with the error output each item leaves there (routed: Block and Clear empty), nothing sent
			const continued = await runWith(operation, 'continueErrorOutput', retry);
			expect(continued.sent).toEqual([]);
			const errorOutput = continued.run.outputs[continued.run.outputs.length - 1];
			expect(errorOutput).toEqual([
				expect.objectContaining({ error: expect.stringMatching(/^Turn off "Retry On Fail"/) }),
			]);
			if (routed(operation)) expect(continued.run.outputs).toEqual([[], [], errorOutput]);
		},
	);
});

describe('Always Output Data on every operation', () => {
	test.each(OPERATIONS.map((operation) => [operation.name, operation] as const))(
		'%s',
		async (_name, operation) => {
			const stopped = await runWith(operation, 'stop', { alwaysOutputData: true });
			if (!routed(operation)) {
				expect(stopped.run.error?.message ?? '').not.toMatch(/Always Output Data/);
				return;
			}
			expect(stopped.run.status).toBe('error');
			expect(stopped.run.error?.message).toMatch(/^Turn off "Always Output Data"/);
			expect(stopped.sent).toEqual([]);
			const continued = await runWith(operation, 'continueErrorOutput', {
				alwaysOutputData: true,
			});
			expect(continued.sent).toEqual([]);
			// every item stays on Block with its decision (an empty Block would get n8n's empty item), Clear empty
			expect(continued.run.outputs).toEqual([
				[
					expect.objectContaining({
						decision: 'block',
						reason: expect.stringMatching(/Turn off "Always Output Data"/),
						error: expect.stringMatching(/^Turn off "Always Output Data"/),
					}),
				],
				[],
				[],
			]);
		},
	);
});

describeGateRules();
