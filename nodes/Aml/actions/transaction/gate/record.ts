import { createHmac, randomUUID, timingSafeEqual } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { GATE_RECORD_KEYS } from '../../../helpers/attributes';
import { amlRequest, CREDENTIAL_TYPE, idSegment, type Deadline } from '../../../transport';
import { readStoredTransaction } from '../store';
import {
	CHECK_NAMES,
	type CheckName,
	type ClaimRead,
	type DecisionRead,
	type HeldAlert,
	type Generation,
	type ReasonCode,
	type RecordedDecision,
} from './rules';

/**
 * The Gate's record on the stored transaction, in generations (docs/internals.md "The Gate's record"): generation 0's
 * claim `n8n_gate_claim` is sent with the store (the create that succeeds is the payment's one checker); generation
 * n's claim `n8n_gate_claim_<n>` is added by an update (a release, or after a run that decided nothing) and is the
 * run's whose answer holds it. `n8n_gate_decision[_<n>]` is the decision of that generation's run. Every value is
 * text and signed (HMAC-SHA256 under a key with an ID, over the transaction's person and ID, the kind and the values):
 * no date-time is signed, so a service that normalises them breaks no signature.
 */

export const [CLAIM_ATTRIBUTE, DECISION_ATTRIBUTE, STALLED_ATTRIBUTE] = GATE_RECORD_KEYS;

/** Time a record write has of its own after the answer (it never delays a clear). */
export const RECORD_MS = 5_000;

const keyOf = (base: string, generation: number) => (generation ? `${base}_${generation}` : base);
export const claimKey = (generation: number) => keyOf(CLAIM_ATTRIBUTE, generation);
export const decisionKey = (generation: number) => keyOf(DECISION_ATTRIBUTE, generation);
/** The mark of the copy that raises the one alert for a claim whose run wrote no decision (heldAlert.ts). */
export const stalledKey = (generation: number) => keyOf(STALLED_ATTRIBUTE, generation);

/** The keys that sign and verify: the first signs, every one verifies (an old key stays accepted). */
export interface SigningKeys {
	sign: { id: string; secret: Buffer };
	verify: Map<string, Buffer>;
}

/**
 * The record's keys: the credential's "Gate Signing Keys" (lines `id=secret`; the first signs, every one is accepted),
 * never one derived from another secret, so that replacing the client secret blocks nothing already decided. A
 * recording Gate without them fails before any request.
 */
export async function signingKeys(ctx: IExecuteFunctions): Promise<SigningKeys> {
	const credentials = await ctx.getCredentials<IDataObject>(CREDENTIAL_TYPE);
	const lines = String(credentials.gateSigningSecrets ?? '')
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter(Boolean);
	const keys: Array<{ id: string; secret: Buffer }> = [];
	for (const line of lines) {
		const at = line.indexOf('=');
		const id = line.slice(0, at).trim();
		const secret = line.slice(at + 1).trim();
		if (at <= 0 || !/^[A-Za-z0-9._-]{1,40}$/.test(id) || secret.length < 16)
			throw new NodeOperationError(
				ctx.getNode(),
				'The credential\'s Gate Signing Keys must be lines "id=secret" (id: letters, digits, . _ -; secret: at least 16 characters)',
			);
		keys.push({
			id,
			secret: createHmac('sha256', secret).update('n8n-nodes-aml gate key').digest(),
		});
	}
	if (!keys.length)
		throw new NodeOperationError(
			ctx.getNode(),
			'The credential has no Gate Signing Keys: Transaction → Gate signs its record on each payment with them',
			{
				description:
					'Add one line "id=secret" (for example key-2026=<at least 16 random characters>) to the credential\'s Gate Signing Keys, or turn off the option Record Decision on Transaction (then every copy of a payment is checked).',
			},
		);
	return { sign: keys[0], verify: new Map(keys.map((key) => [key.id, key.secret])) };
}

export interface RecordOwner {
	id: string;
	personId: string;
}

const sigOf = (secret: Buffer, kind: string, owner: RecordOwner, fields: string[]) =>
	createHmac('sha256', secret)
		.update(JSON.stringify([kind, owner.personId, owner.id, ...fields]))
		.digest('hex');

/** Signs `values` (all text) as a record of `kind`: the values, the key's ID and the signature. */
function signed(
	keys: SigningKeys,
	kind: string,
	owner: RecordOwner,
	values: Record<string, string>,
): IDataObject {
	const key = keys.sign.id;
	return {
		...values,
		key,
		sig: sigOf(keys.sign.secret, kind, owner, [key, ...Object.values(values)]),
	};
}

/** The record's values when a key of `keys` signed them as `kind`, else undefined. */
function verified(
	keys: SigningKeys,
	kind: string,
	owner: RecordOwner,
	value: unknown,
	names: string[],
): Record<string, string> | undefined {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
	const record = value as IDataObject;
	const secret = typeof record.key === 'string' ? keys.verify.get(record.key) : undefined;
	if (!secret || typeof record.sig !== 'string' || !/^[0-9a-f]{64}$/.test(record.sig))
		return undefined;
	const values = Object.fromEntries(
		names.map((name) => [name, typeof record[name] === 'string' ? (record[name] as string) : '']),
	);
	const expected = Buffer.from(
		sigOf(secret, kind, owner, [record.key as string, ...Object.values(values)]),
		'hex',
	);
	return timingSafeEqual(expected, Buffer.from(record.sig, 'hex')) ? values : undefined;
}

const CLAIM_FIELDS = ['run', 'execution', 'status'];
const DECISION_FIELDS = [
	'decision',
	'code',
	'reason',
	'checks',
	'answered',
	'alertIds',
	'status',
	'run',
	'heldAlert',
	'execution',
];

export const newRun = () => randomUUID();

/** The claim of `generation` as the attribute written. */
export function claimAttribute(
	keys: SigningKeys,
	owner: RecordOwner,
	generation: number,
	claim: { run: string; execution: string; status: string },
): IDataObject {
	return { [claimKey(generation)]: signed(keys, `claim ${generation}`, owner, claim) };
}

/** The decision of `generation` as the attribute written. */
export function decisionAttribute(
	keys: SigningKeys,
	owner: RecordOwner,
	generation: number,
	decision: RecordedDecision,
	execution: string,
): IDataObject {
	const values = {
		decision: decision.decision,
		code: decision.code ?? '',
		reason: (decision.reason ?? '').slice(0, 500),
		checks: decision.checks.join(','),
		answered: decision.answered ? 'yes' : 'no',
		alertIds: decision.alertIds.join(','),
		status: decision.status,
		run: decision.run,
		heldAlert: heldText(decision.heldAlert),
		execution,
	};
	return { [decisionKey(generation)]: signed(keys, `decision ${generation}`, owner, values) };
}

/** The held alert as recorded: its ID, or `not raised: <why>`. */
const heldText = (held: HeldAlert | undefined) =>
	!held
		? ''
		: held.status === 'raised'
			? String(held.alertId)
			: `not raised: ${held.reason}`.slice(0, 300);

function heldRead(text: string): { heldAlert?: HeldAlert } {
	if (/^[1-9]\d*$/.test(text)) return { heldAlert: { status: 'raised', alertId: Number(text) } };
	if (text.startsWith('not raised: '))
		return { heldAlert: { status: 'not raised', reason: text.slice('not raised: '.length) } };
	return {};
}

function readClaim(
	keys: SigningKeys,
	owner: RecordOwner,
	generation: number,
	value: unknown,
): ClaimRead {
	const values = verified(keys, `claim ${generation}`, owner, value, CLAIM_FIELDS);
	return values
		? { kind: 'valid', run: values.run, execution: values.execution, status: values.status }
		: { kind: 'unreadable' };
}

function readDecision(
	keys: SigningKeys,
	owner: RecordOwner,
	generation: number,
	value: unknown,
): DecisionRead {
	const v = verified(keys, `decision ${generation}`, owner, value, DECISION_FIELDS);
	if (!v || !['clear', 'block', 'none'].includes(v.decision)) return { kind: 'unreadable' };
	const ids = (text: string) =>
		text
			.split(',')
			.map(Number)
			.filter((id) => Number.isInteger(id) && id > 0);
	return {
		kind: 'valid',
		decision: v.decision as RecordedDecision['decision'],
		...(v.code ? { code: v.code as ReasonCode } : {}),
		...(v.reason ? { reason: v.reason } : {}),
		checks: CHECK_NAMES.filter((name) => v.checks.split(',').includes(name)) as CheckName[],
		answered: v.answered === 'yes',
		alertIds: ids(v.alertIds),
		status: v.status,
		run: v.run,
		...heldRead(v.heldAlert),
	};
}

/** The generations stored on the transaction, as read (trailing empty ones left out). */
export function readGenerations(
	stored: IDataObject,
	keys: SigningKeys,
	owner: RecordOwner,
): Generation[] {
	const generations: Generation[] = [];
	for (let n = 0; ; n++) {
		const claim = stored[claimKey(n)];
		const decision = stored[decisionKey(n)];
		if ((claim === undefined || claim === null) && (decision === undefined || decision === null))
			break;
		generations.push({
			...(claim === undefined || claim === null ? {} : { claim: readClaim(keys, owner, n, claim) }),
			...(decision === undefined || decision === null
				? {}
				: { decision: readDecision(keys, owner, n, decision) }),
		});
	}
	return generations;
}

/**
 * Adds record attributes to the stored transaction (adding a key is safe to repeat: a key the transaction holds is
 * left as it is); the attributes as the service answers them.
 */
export async function addRecord(
	ctx: IExecuteFunctions,
	owner: RecordOwner,
	attributes: IDataObject,
	i: number,
	deadline: Deadline = { at: Date.now() + RECORD_MS, ms: RECORD_MS },
): Promise<IDataObject> {
	const response = await amlRequest.call(
		ctx,
		{
			method: 'PATCH',
			path: `/v1/persons/${idSegment(owner.personId)}/transactions/${idSegment(owner.id)}`,
			body: { id: owner.id, attributes },
			retry: 'safe',
			deadline,
			answer: { fields: ['attributes'] },
		},
		i,
	);
	return ((response.body as IDataObject | undefined)?.attributes ?? {}) as IDataObject;
}

/** The Release Statuses option as a list (compared in upper case). */
export function releaseStatuses(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((status) => status.trim().toUpperCase())
		.filter(Boolean);
}

/**
 * A run that may have stored or claimed the payment and sent no check decided nothing: its generation gets decision
 * `none` (the next copy checks), when the claim stored there is this run's.
 */
export async function decidedNothing(
	ctx: IExecuteFunctions,
	keys: SigningKeys,
	transaction: RecordOwner,
	generation: number,
	run: string,
	execution: string,
	checks: RecordedDecision['checks'],
	status: string,
	i: number,
): Promise<void> {
	try {
		const stored = await readStoredTransaction(ctx, transaction, i, undefined, [404]);
		const claim = stored?.[claimKey(generation)] as IDataObject | undefined;
		if (!stored || claim?.run !== run || stored[decisionKey(generation)] !== undefined) return;
		const none: RecordedDecision = {
			decision: 'none',
			checks,
			answered: false,
			alertIds: [],
			status,
			run,
		};
		await addRecord(
			ctx,
			transaction,
			decisionAttribute(keys, transaction, generation, none, execution),
			i,
		);
	} catch {
		// Not written: the claim stays without a decision, and every copy blocks until a release.
	}
}
