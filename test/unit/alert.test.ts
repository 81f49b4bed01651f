import {
	alertIdRule,
	explainStatusNotFound,
	simplifyHit,
	simplifyMonitoringAlert,
} from '../../nodes/Aml/actions/alert/shared';
import { answerOrSent } from '../../nodes/Aml/helpers/answers';

describe('alert IDs are whole numbers (int64)', () => {
	test.each([
		['1', 1, true],
		[' 42 ', 1, true],
		[7, 1, true],
		['0', 0, true],
		['0', 1, false],
		['abc', 1, false],
		['', 1, false],
		['-1', 0, false],
		['1.5', 1, false],
		['1e3', 1, false],
		['0x10', 1, false],
		['12a', 1, false],
		[1.5, 1, false],
		['99999999999999999999', 1, false],
		[undefined, 1, false],
		[null, 0, false],
	])('%j with minimum %d valid=%s', (value, min, ok) => {
		expect(alertIdRule(value, min) === undefined).toBe(ok);
	});

	test('the rule names the minimum', () => {
		expect(alertIdRule('abc', 1)).toMatch(/whole-number alert ID of at least 1/);
		expect(alertIdRule('-3', 0)).toMatch(/at least 0/);
	});
});

describe('simplify', () => {
	test('monitoring alert keeps id, status, priority, person, transaction, results, created time', () => {
		const alert = {
			id: 1001,
			priority: 'HIGH',
			status: 'NEW',
			statusId: 1,
			person: { id: 'cust-1', attributes: { first_name: 'A' } },
			transaction: { id: 'tx-1', attributes: { amount: '20000.00' } },
			score: { results: [{ reason: 'Large transaction', score: 80 }] },
			notes: [{ id: 1 }],
			createdTime: '2026-01-01T00:00:00Z',
		};
		expect(simplifyMonitoringAlert(alert)).toEqual({
			id: 1001,
			status: 'NEW',
			priority: 'HIGH',
			personId: 'cust-1',
			transactionId: 'tx-1',
			results: [{ reason: 'Large transaction', score: 80 }],
			createdTime: '2026-01-01T00:00:00Z',
		});
	});

	test('monitoring alert without transaction or person', () => {
		const simple = simplifyMonitoringAlert({
			id: 5,
			status: 'NEW',
			transaction: null,
			person: null,
		});
		expect(simple.personId).toBeNull();
		expect(simple.transactionId).toBeNull();
		expect(simple.results).toEqual([]);
	});

	test('hit keeps id, name, list name, list type, score', () => {
		expect(
			simplifyHit({
				id: 'hit-1',
				listName: 'Sanctions',
				listType: 'SANCTION',
				listProvider: 'X',
				score: 93,
				attributes: { name: 'V D', roles: [] },
			}),
		).toEqual({ id: 'hit-1', name: 'V D', listName: 'Sanctions', listType: 'SANCTION', score: 93 });
	});
});

describe('answers', () => {
	test('an empty answer returns what was sent', () => {
		expect(answerOrSent(undefined, { id: 3 })).toEqual({ id: 3 });
		expect(answerOrSent('', { id: 3 })).toEqual({ id: 3 });
		expect(answerOrSent({}, { id: 3 })).toEqual({ id: 3 });
		expect(answerOrSent({ id: 4, status: 'NEW' }, { id: 3 })).toEqual({ id: 4, status: 'NEW' });
	});

	test('a 404 of a status change names both causes; other errors are unchanged', () => {
		const notFound = { httpCode: '404', description: 'PUT /v1/alerts/status answered HTTP 404' };
		explainStatusNotFound(notFound, 'MONITORING alert 7', 'DONE');
		expect(notFound.description).toMatch(
			/MONITORING alert 7 does not exist, or the status code "DONE" is not configured/,
		);
		expect(notFound.description).toMatch(/answered HTTP 404$/);
		const other = { httpCode: '400', description: 'x' };
		explainStatusNotFound(other, 'a', 'b');
		expect(other.description).toBe('x');
		const noStatus = { httpCode: '404', description: 'x' };
		explainStatusNotFound(noStatus, 'manual alert 3', undefined);
		expect(noStatus.description).toBe('x');
	});
});
