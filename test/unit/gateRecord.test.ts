import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { headerProblem } from '../../nodes/Aml/actions/dataUpload/csv';
import {
	CLAIM_ATTRIBUTE,
	claimLive,
	CLOCK_MARGIN_MS,
	decisionAttribute,
	DECISION_ATTRIBUTE,
	isReleased,
	latestClaim,
	newClaim,
	recordKey,
	storedClaim,
	storedDecision,
	uncheckedAttribute,
	uncheckedRun,
	UNCHECKED_ATTRIBUTE,
	UNVERIFIED_RECORD_REASON,
} from '../../nodes/Aml/actions/transaction/record';
import { attributeDifferences } from '../../nodes/Aml/actions/transaction/store';
import { isGateRecordKey } from '../../nodes/Aml/helpers/attributes';

/**
 * The Gate's record on a transaction, read and written as the node does: a claim and a decision signed with a key of
 * the credential's client secret, for one transaction. (A detail test; the behaviour is tested in real n8n in
 * test/e2e/gate.test.ts.)
 */

const owner = { id: 'tx-1', personId: 'p-1' };

/** A context with only what the record reads: the credential and the execution's ID. */
function ctxWith(secret: string): IExecuteFunctions {
	return {
		getCredentials: async () => await Promise.resolve({ clientId: 'id', clientSecret: secret }),
		getExecutionId: () => '42',
		getNode: () => ({ name: 'AML' }),
	} as unknown as IExecuteFunctions;
}

describe("the Gate's claim", () => {
	test('a claim this credential signed reads back with its run, execution and time', async () => {
		const key = await recordKey(ctxWith('secret'));
		const { claim, attribute } = newClaim(ctxWith('secret'), key, owner, {
			at: Date.now() + 1000,
			ms: 1000,
		});
		expect(storedClaim(attribute, key, owner)).toEqual({ kind: 'claim', ...claim });
		expect(claim.execution).toBe('42');
	});

	test('none when absent; unreadable when a text, unsigned, signed by another secret, for another transaction or altered', async () => {
		const key = await recordKey(ctxWith('secret'));
		const other = await recordKey(ctxWith('another secret'));
		const { attribute } = newClaim(ctxWith('secret'), key, owner, undefined);
		const value = attribute[CLAIM_ATTRIBUTE] as IDataObject;
		expect(storedClaim({}, key, owner)).toEqual({ kind: 'none' });
		expect(storedClaim({ [CLAIM_ATTRIBUTE]: 'taken' }, key, owner)).toEqual({ kind: 'unreadable' });
		const unsigned = { run: 'r', execution: '1', until: '2099-01-01T00:00:00' };
		expect(storedClaim({ [CLAIM_ATTRIBUTE]: unsigned }, key, owner)).toEqual({
			kind: 'unreadable',
		});
		expect(storedClaim(attribute, other, owner)).toEqual({ kind: 'unreadable' });
		expect(storedClaim(attribute, key, { ...owner, id: 'tx-2' })).toEqual({ kind: 'unreadable' });
		const later = { ...value, until: '2099-01-01T00:00:00.000Z' };
		expect(storedClaim({ [CLAIM_ATTRIBUTE]: later }, key, owner)).toEqual({ kind: 'unreadable' });
	});
});

describe("the Gate's decision", () => {
	async function written(secret: string, decision: IDataObject): Promise<IDataObject> {
		return decisionAttribute(
			await recordKey(ctxWith(secret)),
			owner,
			decision as unknown as Parameters<typeof decisionAttribute>[2],
			{ execution: '42', decidedAt: '2026-01-01T00:00:00.000Z' },
		);
	}

	test('a block written by this credential reads back with its reason, alert IDs and status at the block', async () => {
		const key = await recordKey(ctxWith('secret'));
		const attributes = await written('secret', {
			decision: 'block',
			reason: '1 monitoring scenario(s) triggered',
			alertIds: [7, 9],
			status: 'pending',
			run: 'r',
		});
		expect(Object.keys(attributes)).toEqual([DECISION_ATTRIBUTE]);
		expect(storedDecision(attributes, key, owner)).toEqual({
			decision: 'block',
			reason: '1 monitoring scenario(s) triggered',
			alertIds: [7, 9],
			status: 'pending',
			verified: true,
		});
	});

	test('a clear reads as clear only when this credential signed it for this transaction; anything else is an unverified block', async () => {
		const key = await recordKey(ctxWith('secret'));
		const clear = await written('secret', { decision: 'clear', alertIds: [], run: 'r' });
		expect(storedDecision(clear, key, owner)).toMatchObject({ decision: 'clear', verified: true });
		const unverified = {
			decision: 'block',
			reason: UNVERIFIED_RECORD_REASON,
			alertIds: [],
			verified: false,
		};
		expect(storedDecision({ [DECISION_ATTRIBUTE]: { decision: 'clear' } }, key, owner)).toEqual(
			unverified,
		);
		expect(storedDecision({ [DECISION_ATTRIBUTE]: 'clear' }, key, owner)).toEqual(unverified);
		expect(storedDecision(clear, key, { ...owner, personId: 'p-2' })).toEqual(unverified);
		// the credential's secret changed: the old record is not this credential's
		const rotated = await recordKey(ctxWith('new secret'));
		expect(storedDecision(clear, rotated, owner)).toEqual(unverified);
		const value = clear[DECISION_ATTRIBUTE] as IDataObject;
		const altered = { [DECISION_ATTRIBUTE]: { ...value, alertIds: '1' } };
		expect(storedDecision(altered, key, owner)).toEqual(unverified);
		expect(storedDecision({}, key, owner)).toBeUndefined();
	});

	test('a credential without a client secret cannot sign: refused', async () => {
		await expect(recordKey(ctxWith(''))).rejects.toThrow(/no client secret/);
	});
});

describe('release', () => {
	test('only a Release Status set after the block releases it, in any case', () => {
		const statuses = ['RELEASED', 'APPROVED'];
		expect(isReleased({ status: 'released' }, statuses, { status: 'pending' })).toBe('released');
		expect(isReleased({ status: 'RELEASED' }, statuses, { status: '' })).toBe('RELEASED');
		expect(isReleased({ status: 'pending' }, statuses, { status: 'pending' })).toBeUndefined();
		// the status the transaction had at its block
		expect(isReleased({ status: 'released' }, statuses, { status: 'RELEASED' })).toBeUndefined();
		expect(isReleased({ status: 'APPROVED' }, statuses, { status: 'RELEASED' })).toBe('APPROVED');
		expect(isReleased({}, statuses, {})).toBeUndefined();
	});
});

describe('the same payment', () => {
	test('a resend differing only in status is the same payment; any other attribute differs', () => {
		const stored = { amount: '10.00', status: 'RELEASED', n8n_gate_claim: {} };
		expect(attributeDifferences({ amount: '10.0', status: 'pending' }, stored)).toEqual([]);
		expect(attributeDifferences({ amount: '11.00', status: 'pending' }, stored)).toEqual([
			'amount',
		]);
	});
});

describe("the record's keys on other write paths", () => {
	test('named in any case, snake_case or camelCase', () => {
		for (const name of [
			'n8n_gate_claim',
			'n8n_gate_decision',
			'n8nGateDecision',
			' N8N_GATE_CLAIM ',
		])
			expect(isGateRecordKey(name)).toBe(true);
		for (const name of ['n8n_gate', 'gate_decision', 'decision'])
			expect(isGateRecordKey(name)).toBe(false);
	});

	test('a TRANSACTION or TRANSACTION_UPDATE file with one as a column is refused, naming it; other types are not', () => {
		const header = 'id,person_id,timestamp,amount,direction,n8nGateDecision';
		expect(headerProblem(header, 'TRANSACTION')).toMatch(/has the column "n8nGateDecision"/);
		expect(headerProblem('id,person_id,n8n_gate_claim', 'TRANSACTION_UPDATE')).toMatch(
			/has the column "n8n_gate_claim"/,
		);
		expect(headerProblem('id,type,n8n_gate_claim', 'PERSON')).toBeUndefined();
	});
});

describe('a claim is live', () => {
	test('only until its end less the clock margin (2 s): a clear is answered only then', () => {
		const until = 1_000_000;
		expect(CLOCK_MARGIN_MS).toBe(2000);
		expect(claimLive({ until }, until - 2001)).toBe(true);
		expect(claimLive({ until }, until - 2000)).toBe(false);
		expect(claimLive({ until }, until + 1)).toBe(false);
	});
});

describe("the Gate's unchecked mark (a claim whose run had no check reach the service)", () => {
	test('reads back as its run for this credential and transaction; nothing for any other value', async () => {
		const key = await recordKey(ctxWith('secret'));
		const other = await recordKey(ctxWith('another secret'));
		const mark = uncheckedAttribute(key, owner, 'run-1', '42');
		expect(uncheckedRun(mark, key, owner)).toBe('run-1');
		expect(uncheckedRun({}, key, owner)).toBeUndefined();
		expect(uncheckedRun({ [UNCHECKED_ATTRIBUTE]: 'run-1' }, key, owner)).toBeUndefined();
		expect(
			uncheckedRun({ [UNCHECKED_ATTRIBUTE]: { run: 'run-1', execution: '42' } }, key, owner),
		).toBeUndefined();
		expect(uncheckedRun(mark, other, owner)).toBeUndefined();
		expect(uncheckedRun(mark, key, { ...owner, id: 'tx-2' })).toBeUndefined();
		const value = mark[UNCHECKED_ATTRIBUTE] as IDataObject;
		expect(
			uncheckedRun({ [UNCHECKED_ATTRIBUTE]: { ...value, run: 'run-2' } }, key, owner),
		).toBeUndefined();
	});

	test('its key is a key of the record: every write path refuses it, in any case', () => {
		expect(isGateRecordKey('n8n_gate_unchecked')).toBe(true);
		expect(isGateRecordKey('N8nGateUnchecked')).toBe(true);
	});
});

describe('the claim after an unchecked one (generation 1, 2, …)', () => {
	test('a run takes it under the next key, with its own run; it reads back as the latest claim, of its generation', async () => {
		const key = await recordKey(ctxWith('secret'));
		const first = newClaim(ctxWith('secret'), key, owner, undefined);
		const next = newClaim(ctxWith('secret'), key, owner, undefined, {
			run: 'run-2',
			generation: 1,
		});
		expect(Object.keys(next.attribute)).toEqual(['n8n_gate_claim_1']);
		expect(next.claim).toMatchObject({ run: 'run-2', generation: 1, execution: '42' });
		const stored = { ...first.attribute, ...next.attribute };
		expect(latestClaim(stored, key, owner)).toEqual({ kind: 'claim', ...next.claim });
		expect(latestClaim(first.attribute, key, owner)).toEqual({ kind: 'claim', ...first.claim });
		expect(first.claim.generation).toBe(0);
		expect(latestClaim({}, key, owner)).toEqual({ kind: 'none' });
	});

	test("a record of one generation never stands for another's: a claim or mark moved to another key does not verify", async () => {
		const key = await recordKey(ctxWith('secret'));
		const first = newClaim(ctxWith('secret'), key, owner, undefined);
		const moved = { ...first.attribute, n8n_gate_claim_1: first.attribute[CLAIM_ATTRIBUTE] };
		expect(latestClaim(moved, key, owner)).toEqual({ kind: 'unreadable' });
		expect(latestClaim({ ...first.attribute, n8n_gate_claim_1: null }, key, owner)).toEqual({
			kind: 'unreadable',
		});
		const mark = uncheckedAttribute(key, owner, 'run-2', '43', 1);
		expect(Object.keys(mark)).toEqual(['n8n_gate_unchecked_1']);
		expect(uncheckedRun(mark, key, owner, 1)).toBe('run-2');
		expect(uncheckedRun(mark, key, owner)).toBeUndefined();
		const markMoved = { [UNCHECKED_ATTRIBUTE]: mark.n8n_gate_unchecked_1 };
		expect(uncheckedRun(markMoved, key, owner)).toBeUndefined();
	});

	test('their keys are keys of the record: every write path refuses them, in any case', () => {
		for (const name of ['n8n_gate_claim_1', 'N8nGateClaim12', 'n8n_gate_unchecked_3'])
			expect(isGateRecordKey(name)).toBe(true);
		for (const name of ['n8n_gate_claimant', 'gate_claim_1', 'n8n_gate'])
			expect(isGateRecordKey(name)).toBe(false);
	});
});
