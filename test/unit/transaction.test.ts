import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { transactionAttributesProblem } from '../../nodes/Aml/actions/transaction/shared';
import {
	alertIdsOf,
	checkOutcome,
	failClosed,
	failClosedOrThrow,
} from '../../nodes/Aml/helpers/checks';
import { toNodeError } from '../../nodes/Aml/transport';

const node: INode = {
	id: '1',
	name: 'AML',
	type: 'n8n-nodes-aml.aml',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const names = { amount: 'Amount', timestamp: 'Timestamp' };

describe('transaction attributes on create', () => {
	test.each([
		[{ amount: '1250.00' }, undefined],
		[{ amount: '-3.5', timestamp: '2024-05-01T12:30:00.123456Z' }, undefined],
		[{ amount: '1000', timestamp: '2024-05-01' }, undefined],
		[{}, /Amount.*is required/],
		[{ amount: '' }, /Amount.*is required/],
		[{ amount: '1,250.00' }, /Amount.*decimal number written as text/],
		[{ amount: '1e3' }, /Amount.*decimal number/],
		[
			{ amount: '12.00', timestamp: '2024-05-01T12:30:00.1234567Z' },
			/Timestamp.*at most 6 fractional-second digits \(has 7\)/,
		],
		[{ amount: '12.00', timestamp: '01.05.2024' }, /Timestamp.*ISO-8601/],
	])('%j → %s', (attributes, expected) => {
		const problem = transactionAttributesProblem(attributes, names);
		if (expected === undefined) expect(problem).toBeUndefined();
		else expect(`${problem?.field} ${problem?.rule}`).toMatch(expected);
	});
});

describe('check decisions', () => {
	test('a non-empty list blocks; only a present, empty list clears', () => {
		expect(checkOutcome({ results: [{ reason: 'x', alertId: 5 }] }, 'results')).toMatchObject({
			decision: 'block',
			alertIds: [5],
			malformed: false,
		});
		expect(checkOutcome({ results: [] }, 'results')).toEqual({
			decision: 'clear',
			list: [],
			alertIds: [],
			malformed: false,
		});
		expect(checkOutcome({ matches: [{ alertId: 1 }] }, 'matches').decision).toBe('block');
		expect(alertIdsOf([{ alertId: 7 }, { alertId: 7 }, { alertId: null }, { alertId: 9 }])).toEqual(
			[7, 9],
		);
	});

	test.each([
		['no body', undefined],
		['empty text', ''],
		['an HTML page', '<html><body>Bad gateway</body></html>'],
		['an object without the list', { status: 'ok' }],
		['the list under another key', { matches: [] }],
		['the list not an array', { results: 'none' }],
		['a bare array', []],
		['null', null],
	])('a malformed answer (%s) blocks with the reason', (_label, answer) => {
		const outcome = checkOutcome(answer, 'results');
		expect(outcome).toMatchObject({ decision: 'block', malformed: true, list: [], alertIds: [] });
		expect(outcome.reason).toMatch(/check answer not understood: .* without a "results" list/);
	});

	test('fail-closed: 5xx, 429 and network failures block with the reason', () => {
		const five = toNodeError(node, {
			kind: 'service',
			status: 500,
			body: { message: 'boom' },
			method: 'POST',
			path: '/v1/transactions/t1/monitoring-checks',
			attempts: 6,
		});
		expect(failClosed(five, 'results', 't1')).toMatchObject({
			transactionId: 't1',
			decision: 'block',
			results: [],
			httpCode: '500',
			reason: expect.stringMatching(/^check failed: Service error \(500\)/),
		});
		const limited = toNodeError(node, {
			kind: 'service',
			status: 429,
			body: '',
			method: 'POST',
			path: '/x',
			attempts: 6,
		});
		expect(failClosed(limited, 'matches', 't2')).toMatchObject({ decision: 'block', matches: [] });
		const dropped = toNodeError(node, {
			kind: 'network',
			code: 'ECONNRESET',
			method: 'POST',
			path: '/x',
			attempts: 6,
		});
		expect(failClosed(dropped, 'results', 't3')?.reason).toMatch(
			/No answer from the AML service \(connection dropped\)/,
		);
		const timeout = toNodeError(node, {
			kind: 'network',
			code: 'ETIMEDOUT',
			method: 'POST',
			path: '/x',
			attempts: 6,
		});
		expect(failClosed(timeout, 'results', 't4')?.decision).toBe('block');
	});

	test('client errors are not decisions: they are thrown', () => {
		const notFound = toNodeError(node, {
			kind: 'service',
			status: 404,
			body: 'no',
			method: 'POST',
			path: '/x',
			attempts: 1,
		});
		expect(failClosed(notFound, 'results', 't1')).toBeUndefined();
		expect(() => failClosedOrThrow(notFound, 'results', 't1')).toThrow(NodeApiError);
		const bad = new NodeOperationError(node, 'bad input');
		expect(() => failClosedOrThrow(bad, 'results', 't1')).toThrow('bad input');
	});
});
