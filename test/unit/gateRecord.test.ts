import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { headerProblem } from '../../nodes/Aml/actions/dataUpload/csv';
import {
	claimAttribute,
	claimKey,
	decisionAttribute,
	decisionKey,
	readGenerations,
	signingKeys,
} from '../../nodes/Aml/actions/transaction/gate/record';
import type { RecordedDecision } from '../../nodes/Aml/actions/transaction/gate/rules';
import { attributeDifferences } from '../../nodes/Aml/actions/transaction/store';
import { isGateRecordKey } from '../../nodes/Aml/helpers/attributes';

/**
 * The Gate's record on a transaction (gate/record.ts), read and written as the node does: claims and decisions in
 * generations, signed under a key with an ID for one transaction. (A detail test; the behaviour is tested in-process in
 * test/unit/gateInProcess.test.ts and in real n8n in test/e2e/gate.test.ts.)
 */

const owner = { id: 'tx-1', personId: 'p-1' };

/** A context with only what the record reads: the credential. */
function ctxWith(credential: IDataObject): IExecuteFunctions {
	return {
		getCredentials: async () => await Promise.resolve({ clientId: 'id', ...credential }),
		getNode: () => ({ name: 'AML' }),
	} as unknown as IExecuteFunctions;
}

const blocked: RecordedDecision = {
	decision: 'block',
	code: 'check-unanswered',
	reason: 'screening: the service answered 502',
	checks: ['monitoring', 'screening'],
	answered: false,
	alertIds: [3, 4],
	status: 'PENDING',
	run: 'run-1',
	heldAlert: { status: 'raised', alertId: 77 },
};

describe("the Gate's record", () => {
	test('a claim and a decision this credential signed read back as written, generation by generation', async () => {
		const keys = await signingKeys(
			ctxWith({ clientSecret: 's', gateSigningSecrets: 'k1=first key, long enough' }),
		);
		const stored = {
			...claimAttribute(keys, owner, 0, { run: 'run-1', execution: '7', status: 'PENDING' }),
			...decisionAttribute(keys, owner, 0, blocked, '7'),
			...claimAttribute(keys, owner, 1, { run: 'run-2', execution: '8', status: 'RELEASED' }),
		};
		expect(Object.keys(stored)).toEqual([claimKey(0), decisionKey(0), claimKey(1)]);
		expect(readGenerations(stored, keys, owner)).toEqual([
			{
				claim: { kind: 'valid', run: 'run-1', execution: '7', status: 'PENDING' },
				decision: { kind: 'valid', ...blocked },
			},
			{ claim: { kind: 'valid', run: 'run-2', execution: '8', status: 'RELEASED' } },
		]);
	});

	test('every signed value is text the service keeps as sent: no date-time, no number', async () => {
		const keys = await signingKeys(
			ctxWith({ clientSecret: 's', gateSigningSecrets: 'k1=first key, long enough' }),
		);
		const value = decisionAttribute(keys, owner, 0, blocked, '7')[decisionKey(0)] as IDataObject;
		for (const v of Object.values(value)) {
			expect(typeof v).toBe('string');
			expect(String(v)).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
		}
	});

	test('unreadable when unsigned, signed for another transaction, moved to another generation, or altered', async () => {
		const keys = await signingKeys(
			ctxWith({ clientSecret: 's', gateSigningSecrets: 'k1=first key, long enough' }),
		);
		const claim = claimAttribute(keys, owner, 0, { run: 'r', execution: '1', status: '' })[
			claimKey(0)
		] as IDataObject;
		const read = (stored: IDataObject, who = owner) => readGenerations(stored, keys, who);
		expect(read({})).toEqual([]);
		expect(read({ [claimKey(0)]: 'taken' })).toEqual([{ claim: { kind: 'unreadable' } }]);
		expect(read({ [claimKey(0)]: { run: 'r', execution: '1', status: '' } })).toEqual([
			{ claim: { kind: 'unreadable' } },
		]);
		expect(read({ [claimKey(0)]: claim }, { id: 'tx-2', personId: 'p-1' })).toEqual([
			{ claim: { kind: 'unreadable' } },
		]);
		expect(read({ [claimKey(0)]: { ...claim, run: 'other' } })).toEqual([
			{ claim: { kind: 'unreadable' } },
		]);
		// moved to generation 1 (generation 0 left as it was)
		expect(read({ [claimKey(0)]: claim, [claimKey(1)]: claim })[1]).toEqual({
			claim: { kind: 'unreadable' },
		});
	});

	test('a rotation blocks nothing decided: a record signed by an old key is read while that key is listed', async () => {
		const before = await signingKeys(
			ctxWith({ clientSecret: 'old secret', gateSigningSecrets: 'k1=first key, long enough' }),
		);
		const stored = decisionAttribute(before, owner, 0, blocked, '7');
		// a new key signs; the old key is kept; the client secret changed
		const after = await signingKeys(
			ctxWith({
				clientSecret: 'new secret',
				gateSigningSecrets: 'k2=second key, long enough\nk1=first key, long enough',
			}),
		);
		expect(after.sign.id).toBe('k2');
		expect(readGenerations(stored, after, owner)[0].decision).toEqual({
			kind: 'valid',
			...blocked,
		});
		// the old key removed: unreadable
		const dropped = await signingKeys(
			ctxWith({ clientSecret: 'new secret', gateSigningSecrets: 'k2=second key, long enough' }),
		);
		expect(readGenerations(stored, dropped, owner)[0].decision).toEqual({ kind: 'unreadable' });
	});

	test('without Gate Signing Keys the Gate refuses (no key is derived from the client secret); keys not "id=secret" are refused', async () => {
		await expect(signingKeys(ctxWith({ clientSecret: 's' }))).rejects.toThrow(
			/no Gate Signing Keys/,
		);
		await expect(
			signingKeys(ctxWith({ clientSecret: 's', gateSigningSecrets: 'short=abc' })),
		).rejects.toThrow(/id=secret/);
		await expect(signingKeys(ctxWith({}))).rejects.toThrow(/no Gate Signing Keys/);
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
			'n8n_gate_claim_3',
			'n8n_gate_stalled',
			'n8nGateStalled1',
			'n8nGateDecision2',
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
