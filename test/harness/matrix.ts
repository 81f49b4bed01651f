import axios from 'axios';
import { randomUUID } from 'node:crypto';

import type { CredentialRef, Json } from './client';
import {
	amlCredentialData,
	context,
	control,
	n8n,
	ownTokenQuery,
	ownTokenUrl,
	runNode,
} from './context';
import { mcpTools, textOf } from './mcp';

/**
 * The fault matrix of issue 35, as tables shared by the e2e suite (test/e2e/matrix.test.ts, every row on the default
 * n8n) and the compat suite (a sample of it on the oldest supported 1.x and 2.x):
 * - OPERATIONS: every operation of the AML node, its kind (how it may be repeated and what its answer means), its
 *   parameters (IDs read from the input item, so that one workflow serves every row), the request a fault targets
 *   and how to read what the service stored;
 * - FAULTS: the token endpoint (first fetch, renewal: dropped, no answer in time, 429, 503, invalid_client) and the
 *   service request (refused before sending, dropped after the service stored it, timeout, 5xx, 429, 401 after a
 *   renewal, 403, 404, malformed 200s);
 * - ON_ERROR: stop, continue (regular output), continue (using error output).
 * `expected(kind, fault)` is the one rule the outcome follows: a new operation gets every row by being in OPERATIONS.
 */

/**
 * - read: a safe request (GET, a search, PUT/PATCH of a whole state), repeated after a lost answer;
 * - create: a create keyed by the caller's ID ("Error" if it exists): a 422 on a repeat is reported as stored;
 * - delete: a delete or archive whose repeat answers 404/409 "already gone" after a lost answer;
 * - oneShot: never repeated once it may have reached the service (notes, manual alerts, alert status changes);
 * - upload: one-shot file upload, then status polls;
 * - check: a check whose failed item carries `decision: "block"` (with Continue On Fail); a POST check (monitoring,
 *   screening) is never repeated once it may have run, a GET check (unresolved alerts) is a read;
 * - routedCheck: a transaction check: a check that could not be completed blocks (fail-closed) in every mode; never
 *   repeated once it may have run (it blocks with `check outcome unknown` and `mayHaveApplied`);
 * - gate: Transaction → Gate: store, then both checks; blocks on every failure of the store or a check.
 */
export type Kind =
	| 'read'
	| 'create'
	| 'delete'
	| 'oneShot'
	| 'upload'
	| 'check'
	| 'routedCheck'
	| 'gate';

/** The IDs of one row: unique per row, so that creates create and deletes delete. */
export interface Ids {
	u: string;
	/** The matrix's custom lists (each with a record `fixed`): records are written to `main` and `upsert`, synced in `sync`. */
	lists: { main: string; upsert: string; sync: string };
	monitoringAlertId: number;
	screeningAlertId: number;
	manualAlertId: string;
	uploadId: number;
}

export interface Operation {
	name: string;
	kind: Kind;
	/** AML node parameters (IDs as expressions on the input item). */
	parameters: Json;
	/** The input item of a row. */
	item: (ids: Ids) => Json;
	/** The request the service faults target: method and path regex (of the sandbox's path, /api included). */
	target: (ids: Ids) => { method: string; path: string };
	/**
	 * A request the operation sends before its target (an upload's token check): persistent faults (no `times`) hit it
	 * too, as a service that refuses the token refuses both.
	 */
	preflight?: { method: string; path: string };
	/** Prepares what the row needs in the service (through its API, before any fault). */
	seed?: (ids: Ids, api: Api) => Promise<void>;
	/** Whether the service holds what the operation writes (creates, one-shots, uploads). */
	stored?: (ids: Ids, api: Api) => Promise<boolean>;
	/** A list or an answer field the operation cannot work without: a malformed 200 fails it ("could not be read"). */
	readsAnswer: boolean;
	/** A list: one output item per entry. */
	many?: boolean;
	/** The output item of a success (checks: the checked ID). */
	ok?: (json: Json, ids: Ids) => void;
}

const p = (field: string) => `={{ $json.${field} }}`;
const json = (attributes: Json) => ({
	attributesMode: 'json',
	attributesJson: JSON.stringify(attributes),
});
const ATTRIBUTES_OF_ITEM = {
	attributesMode: 'json',
	attributesJson: '={{ JSON.stringify($json.attributes) }}',
};
const re = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Two hours apart per row: the sandbox's velocity scenario never triggers. */
let clock = Date.parse('2025-01-01T00:00:00Z');
const timestamp = () => new Date((clock += 2 * 3600_000)).toISOString();

/** The sandbox's API with the test client's own token (seeding and reading what was stored, outside any fault). */
export interface Api {
	(
		method: string,
		path: string,
		body?: unknown,
		headers?: Json,
	): Promise<{ status: number; data: any }>;
}
let apiToken: string | undefined;
export const api: Api = async (method, path, body, headers = {}) => {
	const sb = context().sandbox;
	if (!apiToken) {
		const response = await axios.post(sb.tokenUrl, 'grant_type=client_credentials&scope=aml', {
			auth: { username: sb.clientId, password: sb.clientSecret },
			validateStatus: () => true,
		});
		apiToken = response.data.access_token as string;
	}
	const response = await axios.request({
		method,
		url: `${sb.baseUrl}/api${path}`,
		data: body,
		headers: { authorization: `Bearer ${apiToken}`, ...headers },
		validateStatus: () => true,
	});
	if (response.status === 401) {
		apiToken = undefined; // a test expired every token: fetch a new one
		return await api(method, path, body, headers);
	}
	return { status: response.status, data: response.data };
};
const exists = (path: string) => async (_ids: Ids, call: Api) =>
	(await call('GET', path)).status === 200;

const personOf = (u: string) => `mx-${u}`;
const listOf = (ids: Ids, operation: string) =>
	operation === 'upsert' ? ids.lists.upsert : ids.lists.main;

export const OPERATIONS: Operation[] = [
	// person
	{
		name: 'person.create',
		kind: 'create',
		parameters: {
			resource: 'person',
			operation: 'create',
			personId: p('personId'),
			personType: 'INDIVIDUAL',
			onExisting: 'error',
			...json({ first_name: 'Matrix' }),
		},
		item: ({ u }) => ({ personId: `${personOf(u)}-new` }),
		target: () => ({ method: 'POST', path: '^/api/v2/persons$' }),
		stored: async ({ u }, call) => await exists(`/v1/persons/${personOf(u)}-new`)({} as Ids, call),
		readsAnswer: false,
	},
	...(
		[
			['get', 'GET', '/api/v1/persons/ID', true],
			['getRisk', 'GET', '/api/v1/persons/ID/risks', true],
			['getStatusHistory', 'GET', '/api/v1/persons/ID/statuses', true],
		] as const
	).map(
		([operation, method, path, readsAnswer]): Operation => ({
			name: `person.${operation}`,
			kind: 'read',
			parameters: { resource: 'person', operation, personId: p('personId') },
			item: () => ({ personId: 'cust-1001' }),
			target: () => ({ method, path: `^${path.replace('ID', 'cust-1001')}$` }),
			readsAnswer,
		}),
	),
	{
		name: 'person.replace',
		kind: 'read',
		parameters: {
			resource: 'person',
			operation: 'replace',
			personId: p('personId'),
			personType: 'INDIVIDUAL',
			...json({ first_name: 'Matrix', last_name: 'Replaced', country: 'DE' }),
		},
		item: ({ u }) => ({ personId: `${personOf(u)}-rw` }),
		target: ({ u }) => ({ method: 'PUT', path: `^/api/v2/persons/${re(personOf(u))}-rw$` }),
		seed: async ({ u }, call) => await seedPerson(call, `${personOf(u)}-rw`),
		readsAnswer: false,
	},
	{
		name: 'person.update',
		kind: 'read',
		parameters: {
			resource: 'person',
			operation: 'update',
			personId: p('personId'),
			...json({ country: 'AT' }),
		},
		item: ({ u }) => ({ personId: `${personOf(u)}-rw` }),
		target: ({ u }) => ({ method: 'PATCH', path: `^/api/v2/persons/${re(personOf(u))}-rw$` }),
		readsAnswer: false,
	},
	{
		name: 'person.setStatus',
		kind: 'read',
		parameters: {
			resource: 'person',
			operation: 'setStatus',
			personId: p('personId'),
			setFields: { status: 'REVIEWED' },
		},
		item: ({ u }) => ({ personId: `${personOf(u)}-rw` }),
		target: ({ u }) => ({ method: 'PATCH', path: `^/api/v1/persons/${re(personOf(u))}-rw$` }),
		readsAnswer: false,
	},
	{
		name: 'person.search',
		many: true,
		kind: 'read',
		parameters: {
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			logicalOperator: 'AND',
			returnAll: false,
			limit: 5,
			filters: { filter: [] },
		},
		item: () => ({}),
		target: () => ({ method: 'POST', path: '^/api/v2/persons/search$' }),
		readsAnswer: true,
	},
	{
		name: 'person.delete',
		kind: 'delete',
		parameters: { resource: 'person', operation: 'delete', personId: p('personId') },
		item: ({ u }) => ({ personId: `${personOf(u)}-del` }),
		target: ({ u }) => ({ method: 'DELETE', path: `^/api/v2/persons/${re(personOf(u))}-del$` }),
		seed: async ({ u }, call) => await seedPerson(call, `${personOf(u)}-del`),
		stored: async ({ u }) => {
			const person = await control.get<Json>(`/persons/${personOf(u)}-del`).catch(() => undefined);
			return person === undefined || person.queuedForDeletion === true;
		},
		readsAnswer: false,
	},
	{
		name: 'person.addNote',
		kind: 'oneShot',
		parameters: {
			resource: 'person',
			operation: 'addNote',
			personId: p('personId'),
			content: p('note'),
		},
		item: ({ u }) => ({ personId: 'cust-1002', note: `note ${u}` }),
		target: () => ({ method: 'POST', path: '^/api/v1/persons/cust-1002/notes$' }),
		stored: async ({ u }) =>
			(await control.get<Json[]>('/notes', { personId: 'cust-1002' })).some(
				(note) => note.content === `note ${u}`,
			),
		readsAnswer: false,
	},
	...(['runMonitoringCheck', 'runScreeningCheck', 'hasUnresolvedAlerts'] as const).map(
		(operation): Operation => ({
			name: `person.${operation}`,
			kind: 'check',
			parameters: { resource: 'person', operation, personId: p('personId') },
			item: () => ({ personId: 'cust-1004' }),
			target: () => ({
				method: operation === 'hasUnresolvedAlerts' ? 'GET' : 'POST',
				path: `^/api/v1/persons/cust-1004/${
					{
						runMonitoringCheck: 'monitoring-checks',
						runScreeningCheck: 'screening-checks',
						hasUnresolvedAlerts: 'unresolved-alerts',
					}[operation]
				}$`,
			}),
			readsAnswer: true,
			ok: (out) => expect(out).toMatchObject({ personId: 'cust-1004', decision: 'clear' }),
		}),
	),
	// transaction
	{
		name: 'transaction.create',
		kind: 'create',
		parameters: {
			resource: 'transaction',
			operation: 'create',
			personId: 'cust-1003',
			transactionId: p('transactionId'),
			onExisting: 'error',
			...ATTRIBUTES_OF_ITEM,
		},
		item: ({ u }) => ({
			transactionId: `mx-${u}-txc`,
			attributes: { amount: '10.00', direction: 'O', timestamp: timestamp() },
		}),
		target: () => ({ method: 'POST', path: '^/api/v1/persons/cust-1003/transactions$' }),
		stored: async ({ u }, call) =>
			await exists(`/v1/persons/cust-1003/transactions/mx-${u}-txc`)({} as Ids, call),
		readsAnswer: false,
	},
	{
		name: 'transaction.gate',
		kind: 'gate',
		parameters: {
			resource: 'transaction',
			operation: 'gate',
			personId: 'cust-1005',
			transactionId: p('transactionId'),
			onExisting: 'skip',
			...ATTRIBUTES_OF_ITEM,
		},
		item: ({ u }) => ({
			transactionId: `mx-${u}-gate`,
			attributes: {
				amount: '10.00',
				direction: 'O',
				timestamp: timestamp(),
				receiver_name: 'Ordinary Shop',
			},
		}),
		// the store, then both checks: the faults hit every request of the gate
		target: ({ u }) => ({
			method: 'POST',
			path: `^/api/v1/(persons/cust-1005/transactions|transactions/mx-${re(u)}-gate/(monitoring|screening)-checks)$`,
		}),
		stored: async ({ u }, call) =>
			await exists(`/v1/persons/cust-1005/transactions/mx-${u}-gate`)({} as Ids, call),
		readsAnswer: true,
		ok: (out, { u }) =>
			expect(out).toMatchObject({ transactionId: `mx-${u}-gate`, decision: 'clear' }),
	},
	{
		name: 'transaction.get',
		kind: 'read',
		parameters: {
			resource: 'transaction',
			operation: 'get',
			personId: 'cust-1001',
			transactionId: 'tx-cust-1001-1',
		},
		item: () => ({}),
		target: () => ({
			method: 'GET',
			path: '^/api/v1/persons/cust-1001/transactions/tx-cust-1001-1$',
		}),
		readsAnswer: true,
	},
	{
		name: 'transaction.getAll',
		many: true,
		kind: 'read',
		parameters: {
			resource: 'transaction',
			operation: 'getAll',
			personId: 'cust-1001',
			returnAll: false,
			limit: 5,
		},
		item: () => ({}),
		target: () => ({ method: 'GET', path: '^/api/v1/persons/cust-1001/transactions$' }),
		readsAnswer: true,
	},
	{
		name: 'transaction.update',
		kind: 'read',
		parameters: {
			resource: 'transaction',
			operation: 'update',
			personId: 'cust-1002',
			transactionId: 'tx-cust-1002-1',
			...json({ note: 'matrix' }),
		},
		item: () => ({}),
		target: () => ({
			method: 'PATCH',
			path: '^/api/v1/persons/cust-1002/transactions/tx-cust-1002-1$',
		}),
		readsAnswer: false,
	},
	...(['runMonitoringCheck', 'runScreeningCheck'] as const).map(
		(operation): Operation => ({
			name: `transaction.${operation}`,
			kind: 'routedCheck',
			parameters: { resource: 'transaction', operation, transactionId: 'tx-cust-1001-1' },
			item: () => ({}),
			target: () => ({
				method: 'POST',
				path: `^/api/v1/transactions/tx-cust-1001-1/${operation === 'runMonitoringCheck' ? 'monitoring' : 'screening'}-checks$`,
			}),
			readsAnswer: true,
			ok: (out) =>
				expect(out).toMatchObject({ transactionId: 'tx-cust-1001-1', decision: 'clear' }),
		}),
	),
	{
		name: 'transaction.hasUnresolvedAlerts',
		kind: 'check',
		parameters: {
			resource: 'transaction',
			operation: 'hasUnresolvedAlerts',
			transactionId: 'tx-cust-1001-1',
		},
		item: () => ({}),
		target: () => ({
			method: 'GET',
			path: '^/api/v1/transactions/tx-cust-1001-1/unresolved-alerts$',
		}),
		readsAnswer: true,
		ok: (out) => expect(out).toMatchObject({ transactionId: 'tx-cust-1001-1', decision: 'clear' }),
	},
	// alert
	{
		name: 'alert.createManualAlert',
		kind: 'oneShot',
		parameters: {
			resource: 'alert',
			operation: 'createManualAlert',
			personId: 'cust-1002',
			rationale: 'OTHER',
			rationaleComment: p('comment'),
		},
		item: ({ u }) => ({ comment: `matrix ${u}` }),
		target: () => ({ method: 'POST', path: '^/api/v1/manual-alerts$' }),
		stored: async ({ u }) =>
			(await control.get<Json[]>('/manual-alerts')).some((a) =>
				JSON.stringify(a).includes(`matrix ${u}`),
			),
		readsAnswer: false,
	},
	{
		name: 'alert.getMonitoringAlert',
		kind: 'read',
		parameters: { resource: 'alert', operation: 'getMonitoringAlert', alertId: p('alertId') },
		item: (ids) => ({ alertId: String(ids.monitoringAlertId) }),
		target: (ids) => ({ method: 'GET', path: `^/api/v1/alerts/${ids.monitoringAlertId}$` }),
		readsAnswer: true,
	},
	{
		name: 'alert.getScreeningHits',
		kind: 'read',
		parameters: {
			resource: 'alert',
			operation: 'getScreeningHits',
			screeningAlertId: p('alertId'),
			returnAll: false,
			limit: 5,
		},
		item: (ids) => ({ alertId: String(ids.screeningAlertId) }),
		target: (ids) => ({
			method: 'GET',
			path: `^/api/v1/screening-alerts/${ids.screeningAlertId}/hits$`,
		}),
		readsAnswer: true,
	},
	{
		name: 'alert.updateStatus',
		kind: 'oneShot',
		parameters: {
			resource: 'alert',
			operation: 'updateStatus',
			alertType: 'MONITORING',
			alertId: p('alertId'),
			status: 'CLOSED',
		},
		item: (ids) => ({ alertId: String(ids.monitoringAlertId) }),
		target: () => ({ method: 'PUT', path: '^/api/v1/alerts/status$' }),
		readsAnswer: false,
	},
	{
		name: 'alert.updateManualAlert',
		kind: 'oneShot',
		parameters: {
			resource: 'alert',
			operation: 'updateManualAlert',
			alertId: p('alertId'),
			rationale: 'OTHER',
			status: 'CLOSED',
		},
		item: (ids) => ({ alertId: ids.manualAlertId }),
		target: (ids) => ({ method: 'PUT', path: `^/api/v1/manual-alerts/${ids.manualAlertId}$` }),
		readsAnswer: false,
	},
	// screening
	{
		name: 'screening.search',
		kind: 'read',
		parameters: {
			resource: 'screening',
			operation: 'search',
			name: 'Viktor',
			recordEntityType: 'ALL',
			configurations: { configuration: [{ type: 'SANCTION' }] },
		},
		item: () => ({}),
		target: () => ({ method: 'POST', path: '^/api/v2/screening-searches$' }),
		readsAnswer: true,
	},
	{
		name: 'screening.getListGroups',
		many: true,
		kind: 'read',
		parameters: { resource: 'screening', operation: 'getListGroups' },
		item: () => ({}),
		target: () => ({ method: 'GET', path: '^/api/v1/screening-list-groups$' }),
		readsAnswer: true,
	},
	// custom list (the matrix's own list)
	...(
		[
			['create', 'create', 'POST', 'new'],
			['upsert', 'create', 'POST', 'ups'],
		] as const
	).map(
		([operation, kind, method, tag]): Operation => ({
			name: `customList.${operation}`,
			kind,
			parameters: {
				resource: 'customList',
				operation,
				customListId: p('listId'),
				recordId: p('recordId'),
				...json({ name: 'Matrix' }),
			},
			// each to its own list: a fault rule tells their requests apart by the path
			item: (ids) => ({ listId: listOf(ids, operation), recordId: `${ids.u}-${tag}` }),
			target: (ids) => ({
				method,
				path: `^/api/v1/custom-lists/${listOf(ids, operation)}/records$`,
			}),
			stored: async (ids, call) =>
				(await call('GET', `/v1/custom-lists/${listOf(ids, operation)}/records/${ids.u}-${tag}`))
					.status === 200,
			readsAnswer: false,
		}),
	),
	{
		name: 'customList.get',
		kind: 'read',
		parameters: {
			resource: 'customList',
			operation: 'get',
			customListId: p('listId'),
			recordId: 'fixed',
		},
		item: (ids) => ({ listId: ids.lists.main }),
		target: (ids) => ({
			method: 'GET',
			path: `^/api/v1/custom-lists/${ids.lists.main}/records/fixed$`,
		}),
		readsAnswer: true,
	},
	{
		name: 'customList.getAll',
		many: true,
		kind: 'read',
		parameters: {
			resource: 'customList',
			operation: 'getAll',
			customListId: p('listId'),
			returnAll: false,
			limit: 5,
		},
		item: (ids) => ({ listId: ids.lists.main }),
		target: (ids) => ({ method: 'GET', path: `^/api/v1/custom-lists/${ids.lists.main}/records$` }),
		readsAnswer: true,
	},
	{
		name: 'customList.update',
		kind: 'read',
		parameters: {
			resource: 'customList',
			operation: 'update',
			customListId: p('listId'),
			recordId: 'fixed',
			...json({ name: 'Fixed' }),
		},
		item: (ids) => ({ listId: ids.lists.main }),
		target: (ids) => ({
			method: 'PUT',
			path: `^/api/v1/custom-lists/${ids.lists.main}/records/fixed$`,
		}),
		readsAnswer: false,
	},
	{
		name: 'customList.archive',
		kind: 'delete',
		parameters: {
			resource: 'customList',
			operation: 'archive',
			customListId: p('listId'),
			recordId: p('recordId'),
		},
		item: (ids) => ({ listId: ids.lists.main, recordId: `${ids.u}-arc` }),
		target: (ids) => ({
			method: 'DELETE',
			path: `^/api/v1/custom-lists/${ids.lists.main}/records/${re(ids.u)}-arc$`,
		}),
		seed: async (ids, call) => {
			await call('POST', `/v1/custom-lists/${ids.lists.main}/records`, {
				id: `${ids.u}-arc`,
				attributes: { name: 'Archive me' },
			});
		},
		readsAnswer: false,
	},
	{
		name: 'customList.getUsableFields',
		kind: 'read',
		parameters: { resource: 'customList', operation: 'getUsableFields', customListId: p('listId') },
		item: (ids) => ({ listId: ids.lists.main }),
		target: (ids) => ({
			method: 'GET',
			path: `^/api/v1/custom-lists/${ids.lists.main}/screening-fields$`,
		}),
		readsAnswer: true,
	},
	{
		name: 'customList.sync',
		kind: 'read',
		parameters: {
			resource: 'customList',
			operation: 'sync',
			customListId: p('syncListId'),
			recordId: 'fixed',
			onMissing: 'leave',
			...json({ name: 'Fixed' }),
		},
		item: (ids) => ({ syncListId: `${ids.lists.sync}` }),
		// its first request: the list's records (compared with the input before anything is written)
		target: (ids) => ({ method: 'GET', path: `^/api/v1/custom-lists/${ids.lists.sync}/records$` }),
		readsAnswer: true,
	},
	// data upload
	{
		name: 'dataUpload.getStatus',
		kind: 'read',
		parameters: {
			resource: 'dataUpload',
			operation: 'getStatus',
			uploadId: p('uploadId'),
			waitForCompletion: false,
		},
		item: (ids) => ({ uploadId: String(ids.uploadId) }),
		target: (ids) => ({ method: 'GET', path: `^/api/v1/data-upload/${ids.uploadId}/status$` }),
		readsAnswer: true,
	},
	{
		name: 'dataUpload.upload',
		kind: 'upload',
		parameters: { resource: 'dataUpload', operation: 'upload', uploadType: 'PERSON' },
		preflight: { method: 'GET', path: '^/api/v1/screening-list-groups$' },
		item: ({ u }) => ({ id: `mx-${u}-up`, type: 'INDIVIDUAL', first_name: 'Upload' }),
		target: () => ({ method: 'POST', path: '^/api/v1/data-upload$' }),
		// the uploaded person, once the service processed the file
		stored: async ({ u }, call) => await exists(`/v1/persons/mx-${u}-up`)({} as Ids, call),
		readsAnswer: true,
	},
];

async function seedPerson(call: Api, id: string): Promise<void> {
	const created = await call('POST', '/v2/persons', {
		id,
		type: 'INDIVIDUAL',
		attributes: { first_name: 'Matrix', last_name: 'Seed', country: 'DE' },
	});
	if (created.status >= 300) throw new Error(`seed person ${id}: HTTP ${created.status}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Faults

export type FaultName =
	| 'none'
	| 'refused'
	| 'dropped after stored'
	| 'timeout'
	| '503'
	| '429 + Retry-After'
	| '401 after renewal'
	| '403'
	| '404'
	| 'empty 200'
	| 'HTML 200'
	| '200 without the field'
	| `token ${'drop' | 'timeout' | '429 OAuth + Retry-After' | '503' | 'invalid_client'} on ${'first fetch' | 'renewal'}`;

export interface Fault {
	name: FaultName;
	/** Sandbox fault rules for one run of one operation (`key`: its credential's token URL query). */
	rules?: (target: { method: string; path: string }, key: string) => Json[];
	/** The credential points at a closed port: every request is refused before it is sent. */
	closedPort?: boolean;
	/** `first fetch`: the credential holds no token; `renewal`: every token expires before the run. */
	token?: 'first fetch' | 'renewal';
	/** Answers arrive this late (ms): after the runs, the row waits that long and then no API request may follow. */
	lateMs?: number;
}

const oauthBody = (error: string, description: string) =>
	JSON.stringify({ error, error_description: description });
const answer = (status: number, body: string, contentType: string) => ({
	answer: { status, body, contentType },
});
const onTarget =
	(rule: Json) =>
	(target: { method: string; path: string }): Json[] => [{ ...target, ...rule }];
const onToken =
	(rule: Json) =>
	(_target: unknown, key: string): Json[] => [
		{ method: 'POST', path: '^/oauth/token$', query: ownTokenQuery(key), ...rule },
	];

/** The token step's read (nodes/Aml/transport/auth.ts CHECK_REQUEST_PATH under the API prefix). */
const TOKEN_STEP_READ = '/api/v1/screening-list-groups';

/** A token endpoint that answers after the node's Timeout (OPTIONS.timeout) and the first retry's backoff. */
const TOKEN_LATE_MS = 4000;

const TOKEN_RULES = {
	drop: { dropRate: 1, times: 1 },
	timeout: { latencyMs: TOKEN_LATE_MS, times: 1 },
	'429 OAuth + Retry-After': {
		answer: {
			status: 429,
			body: oauthBody('too_many_requests', 'token endpoint rate limit'),
			contentType: 'application/json',
			headers: { 'retry-after': '1' },
		},
		times: 1,
	},
	'503': { errorRate: 1, errorStatus: 503, times: 1 },
	invalid_client: answer(
		401,
		oauthBody('invalid_client', 'Bad client credentials'),
		'application/json',
	),
} as const;

export const FAULTS: Fault[] = [
	{ name: 'none' },
	{ name: 'refused', closedPort: true },
	{ name: 'dropped after stored', rules: onTarget({ dropRate: 1, when: 'after', times: 1 }) },
	{ name: 'timeout', rules: onTarget({ hangRate: 1, times: 1 }) },
	{ name: '503', rules: onTarget({ errorRate: 1, errorStatus: 503, times: 1 }) },
	{ name: '429 + Retry-After', rules: onTarget({ rate429: 1, retryAfterRate: 1, times: 1 }) },
	{
		name: '401 after renewal',
		rules: onTarget(answer(401, '{"message":"invalid token"}', 'application/json')),
	},
	{ name: '403', rules: onTarget(answer(403, '{"message":"forbidden"}', 'application/json')) },
	{ name: '404', rules: onTarget(answer(404, '{"message":"no such thing"}', 'application/json')) },
	{ name: 'empty 200', rules: onTarget(answer(200, '', 'application/json')) },
	{
		name: 'HTML 200',
		rules: onTarget(answer(200, '<html><body>Maintenance</body></html>', 'text/html')),
	},
	{ name: '200 without the field', rules: onTarget(answer(200, '{}', 'application/json')) },
	// renewal first: every credential holds a token from the rows before; a first fetch then starts from none
	...(['renewal', 'first fetch'] as const).flatMap((token) =>
		(Object.keys(TOKEN_RULES) as Array<keyof typeof TOKEN_RULES>).map(
			(kind): Fault => ({
				name: `token ${kind} on ${token}`,
				rules: onToken(TOKEN_RULES[kind]),
				token,
				...(kind === 'timeout' ? { lateMs: TOKEN_LATE_MS } : {}),
			}),
		),
	),
];

// ---------------------------------------------------------------------------------------------------------------
// The rule

export type OnError = 'stop' | 'continueRegularOutput' | 'continueErrorOutput';
export const ON_ERROR: OnError[] = ['stop', 'continueRegularOutput', 'continueErrorOutput'];

export interface Expected {
	/** ok: the operation's answer; block: a check's decision "block" as its answer (any On Error); fail: an item error. */
	outcome: 'ok' | 'block' | 'fail';
	/** The error message, or the block's reason. */
	text?: RegExp;
	/** The error says the request may have been applied (only when the service received it). */
	mayHaveApplied: boolean;
	/** What the service holds afterwards, for operations that write (undefined: not asserted). */
	stored?: boolean;
	/** The answer says an earlier attempt's answer was lost (a create's 422 or a delete's 404 on the repeat). */
	afterLostAnswer?: boolean;
	/** Whether the faulted request reached the service at least once (the sandbox's request log). */
	reached: boolean;
	/** The faulted request reached the service exactly once: it was not repeated (it may have been applied). */
	once?: boolean;
}

const MAY = /may have been applied/;
const FAILS_ON: Partial<Record<FaultName, RegExp>> = {
	'401 after renewal': /^Authentication failed/,
	'403': /^Insufficient permissions/,
	'404': /^Not found/,
};
/** The words of an answer that cannot be read (the checks, the screening search and the upload say it their way). */
const UNREADABLE =
	/could not be read|not understood|without a list of results|returned no upload ID/;

/** A check that runs at the service (POST): never repeated once it may have run, since it may have raised its alert. */
export const sendsCheck = (operation: Operation): boolean =>
	operation.kind === 'routedCheck' ||
	(operation.kind === 'check' && operation.target({} as Ids).method === 'POST');

/** The reason of a check that reached the service without an answer (not repeated). */
const OUTCOME_UNKNOWN = /^check outcome unknown: .*may have been applied/;

/** What an item of an operation of `kind` reports under `fault`: the one rule of the matrix. */
export function expected(operation: Operation, fault: Fault): Expected {
	const { kind } = operation;
	const writes = operation.stored !== undefined;
	const oneShot = kind === 'oneShot' || kind === 'upload';
	/** A failure of a transaction check or the gate blocks (fail-closed) when it is transient, else fails the item. */
	const transient = (text: RegExp, reason: RegExp, extra: Partial<Expected> = {}): Expected =>
		kind === 'routedCheck' || kind === 'gate'
			? { outcome: 'block', text: reason, mayHaveApplied: false, reached: true, ...extra }
			: { outcome: 'fail', text, mayHaveApplied: false, reached: true, ...extra };
	const success = (extra: Partial<Expected> = {}): Expected => ({
		outcome: 'ok',
		mayHaveApplied: false,
		reached: true,
		...(writes ? { stored: true } : {}),
		...extra,
	});
	if (fault.token) {
		if (fault.name.includes('invalid_client'))
			return {
				outcome: 'fail',
				text: /token endpoint refused the credential/,
				mayHaveApplied: false,
				reached: false,
				...(writes ? { stored: false } : {}),
			};
		// a busy token endpoint is asked again after a wait: the request then goes out once
		return success();
	}
	switch (fault.name) {
		case 'none':
		case '429 + Retry-After':
			return success();
		case 'refused':
			// six attempts with backoff (up to about 8 s): on a loaded machine the check's 10 s Time Budget may end them
			// first, then the reason is `timeout` (and the store or check says it was not applied: no "may have been")
			return transient(
				/could not be reached \(connection refused\)/,
				kind === 'gate'
					? /^(store failed: could not be reached \(ECONNREFUSED\)|timeout)$/
					: /^(check failed: .*could not be reached|timeout$)/,
				{ reached: false, ...(writes ? { stored: false } : {}) },
			);
		case 'dropped after stored':
		case 'timeout':
		case '503': {
			const storedBy = fault.name === 'dropped after stored';
			if (oneShot)
				return {
					outcome: 'fail',
					text: MAY,
					mayHaveApplied: true,
					reached: true,
					once: true,
					stored: storedBy,
				};
			// a check that may have run is not repeated: a routed check blocks, a person check fails the item (with
			// Continue: decision block), both saying it may have been applied
			if (sendsCheck(operation))
				return kind === 'routedCheck'
					? {
							outcome: 'block',
							text: OUTCOME_UNKNOWN,
							mayHaveApplied: true,
							reached: true,
							once: true,
						}
					: { outcome: 'fail', text: MAY, mayHaveApplied: true, reached: true, once: true };
			// the gate's store comes first and is repeated (a create): its checks then run unfaulted
			// repeated: a create's or delete's repeat finds the lost attempt's work
			const lost = storedBy && (kind === 'create' || kind === 'delete');
			return success(lost ? { afterLostAnswer: true } : {});
		}
		case '401 after renewal':
		case '403':
		case '404':
			// an upload's token check refuses a token the service refuses, before any byte of the file is sent
			if (kind === 'upload' && fault.name === '401 after renewal')
				return {
					outcome: 'fail',
					text: FAILS_ON[fault.name],
					mayHaveApplied: false,
					reached: false,
					stored: false,
				};
			// the Gate's store refused (it does not exist, bad data): the payment is blocked, not failed
			if (kind === 'gate' && fault.name === '404')
				return {
					outcome: 'block',
					text: /^store refused: the service answered 404$/,
					mayHaveApplied: false,
					reached: true,
				};
			return {
				outcome: 'fail',
				text: FAILS_ON[fault.name],
				mayHaveApplied: false,
				reached: true,
				...(writes ? { stored: false } : {}),
			};
		default:
			// a malformed 200: an operation that needs the answer cannot report one
			if (!operation.readsAnswer) return success({ stored: undefined });
			if (kind === 'gate' || kind === 'routedCheck')
				return {
					outcome: 'block',
					// the Gate's reason names the check and says it in a few words (the item's error says the rest)
					text: kind === 'gate' ? /^(monitoring|screening): unreadable answer$/ : UNREADABLE,
					mayHaveApplied: false,
					reached: true,
				};
			if (kind === 'upload')
				return { outcome: 'fail', text: UNREADABLE, mayHaveApplied: false, reached: true };
			return { outcome: 'fail', text: UNREADABLE, mayHaveApplied: false, reached: true };
	}
}

// ---------------------------------------------------------------------------------------------------------------
// Running a row: every operation (or a sample) × the On Error settings, at the same time (each in its own workflow,
// reused across rows; the faults are per operation's request or per credential, so runs do not disturb each other)

type Logged = {
	seq: number;
	method: string;
	path: string;
	query: string;
	status: number;
	/** A tag of the bearer token an API request carried, or of the token a token request issued. */
	token?: string;
	/** For a late request: the token request (its seq and query, so the run's key) that issued its token. */
	issuedBy?: { seq: number; query: string; status: number } | null;
};

/** The matrix's fixed state: custom lists, alerts, an upload (rows add their own IDs). */
export async function prepareMatrix(): Promise<Omit<Ids, 'u'>> {
	const list = async (name: string) =>
		(await control.post<{ id: string }>('/custom-lists', { name, fields: [{ name: 'name' }] })).id;
	const lists = {
		main: await list('matrix'),
		upsert: await list('matrix upsert'),
		sync: await list('matrix sync'),
	};
	for (const id of [lists.main, lists.sync])
		await api('POST', `/v1/custom-lists/${id}/records`, {
			id: 'fixed',
			attributes: { name: 'Fixed' },
		});
	const monitoring = await api('POST', '/v1/transactions/tx-cust-1007-1/monitoring-checks');
	const screening = await api('POST', '/v1/persons/cust-1006/screening-checks');
	const manual = await api('POST', '/v1/manual-alerts', {
		personId: 'cust-1002',
		rationale: 'OTHER',
	});
	const form = new FormData();
	form.append('file', new Blob(['id,type,first_name\nmx-seed-up,INDIVIDUAL,Seed\n']), 'seed.csv');
	const uploaded = await api('POST', '/v1/data-upload?type=PERSON', form);
	const ids = {
		lists,
		monitoringAlertId: monitoring.data.results[0].alertId as number,
		screeningAlertId: screening.data.matches[0].alertId as number,
		manualAlertId: String(manual.data.id),
		uploadId: Number(uploaded.data.id ?? uploaded.data.uploadId),
	};
	if (!ids.manualAlertId || !Number.isFinite(ids.uploadId))
		throw new Error(
			`matrix seed: ${JSON.stringify({ manual: manual.data, uploaded: uploaded.data })}`,
		);
	return ids;
}

export interface Run {
	operation: Operation;
	onError: OnError;
	ids: Ids;
	/** Its credential's name in the token URL (`?c=<file>.<key>`). */
	key: string;
	/** ok/failed execution, the node's outputs (the error output last), the node's error in stop mode. */
	status: string;
	outputs: Json[][];
	error?: { message: string; description?: string };
	/** The requests this run made: its target's and its credential's token requests. */
	target: Logged[];
	tokens: Logged[];
	/** API requests that reached the sandbox after every run of the row had ended (`Fault.lateMs`): must be none. */
	late: Logged[];
}

/** How the node runs: in a workflow with an On Error setting, or as an AI tool (tool mode: the checks and the Gate). */
export type Mode = OnError | 'tool';

const MODE_KEY: Record<Mode, string> = {
	stop: 's',
	continueRegularOutput: 'r',
	continueErrorOutput: 'e',
	tool: 't',
};

/** One credential per operation and On Error setting (its Access Token URL names it, `?c=<file>.<key>`), made once. */
const credentials = new Map<string, CredentialRef>();
const keyOf = (operation: Operation, onError: Mode, closedPort = false) =>
	`${OPERATIONS.indexOf(operation)}${MODE_KEY[onError]}${closedPort ? 'x' : ''}`;

async function credentialFor(
	operation: Operation,
	onError: Mode,
	closedPort: boolean,
	fresh: boolean,
	closedUrl: string,
): Promise<CredentialRef> {
	const key = keyOf(operation, onError, closedPort);
	const data = amlCredentialData({
		accessTokenUrl: ownTokenUrl(key),
		...(closedPort ? { baseUrl: closedUrl } : {}),
	});
	let credential = credentials.get(key);
	if (!credential) {
		credential = await n8n().createCredential(
			`matrix ${key} ${randomUUID().slice(0, 6)}`,
			'amlOAuth2Api',
			data,
		);
		credentials.set(key, credential);
	} else if (fresh) {
		// the public API replaces the data: the token n8n stored goes with it (the next request fetches one). n8n 1.x
		// has no route for it: a new credential then (its runs get new workflows)
		const updated = await n8n()
			.updateCredential(credential.id, data)
			.then(() => true)
			.catch(() => false);
		if (!updated) {
			await n8n()
				.deleteCredential(credential.id)
				.catch(() => undefined);
			credential = await n8n().createCredential(
				`matrix ${key} ${randomUUID().slice(0, 6)}`,
				'amlOAuth2Api',
				data,
			);
			credentials.set(key, credential);
		}
	}
	return credential;
}

/** Deletes the credentials the matrix made (afterAll). */
export async function cleanupMatrix(): Promise<void> {
	for (const credential of credentials.values())
		await n8n()
			.deleteCredential(credential.id)
			.catch(() => undefined);
	credentials.clear();
}

/** A 127.0.0.1 port nothing listens on: connections are refused before any byte is sent. */
export async function closedPortUrl(): Promise<string> {
	const net = await import('node:net');
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}`;
}

const OPTIONS = { timeout: 1000 };

export async function runOne(
	operation: Operation,
	onError: OnError,
	ids: Ids,
	credential: CredentialRef,
	key: string,
	/** More node settings (Retry On Fail, Always Output Data, …). */
	more: Json = {},
): Promise<Omit<Run, 'target' | 'tokens' | 'late'>> {
	const settings = { ...(onError === 'stop' ? {} : { onError }), ...more };
	const aml = {
		parameters: { ...operation.parameters, options: OPTIONS },
		settings,
		credentials: { amlOAuth2Api: credential },
	};
	if (operation.kind !== 'upload') {
		const run = await runNode(aml, [operation.item(ids)], { credentials: aml.credentials });
		return {
			operation,
			onError,
			ids,
			key,
			status: run.status,
			outputs: run.outputs,
			error: run.error,
		};
	}
	// an upload needs a file: Convert to File (CSV) makes it from the item, then the AML node
	const run = await runNode(
		{
			name: 'File',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			parameters: { operation: 'csv', options: { fileName: 'data.csv' } },
		},
		[operation.item(ids)],
		{
			credentials: aml.credentials,
			extraNodes: [
				{ name: 'AML', type: 'n8n-nodes-aml.aml', ...aml, ...settings, settings: undefined },
			],
			extraConnections: { File: { main: [[{ node: 'AML', type: 'main', index: 0 }]] } },
		},
	);
	const { nodeOutputs, nodeError } = await import('./client');
	return {
		operation,
		onError,
		ids,
		key,
		status: run.status,
		outputs: nodeOutputs(run.execution, 'AML'),
		error: nodeError(run.execution, 'AML') as Run['error'],
	};
}

/** Parameters reading `$json.<field>` read `$json["<operation>"].<field>`: one input item serves several nodes. */
function namespaced(value: unknown, name: string): unknown {
	if (typeof value === 'string') return value.replace(/\$json\.(\w+)/g, `$json["${name}"].$1`);
	if (Array.isArray(value)) return value.map((entry) => namespaced(entry, name));
	if (value && typeof value === 'object')
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, namespaced(v, name)]));
	return value;
}

type Pair = { operation: Operation; onError: OnError; ids: Ids; key: string };

/**
 * Several operations with Continue (regular or error output) in one workflow: Items feeds one AML node per operation,
 * n8n runs them one after another in one execution (a failed item never stops the others).
 */
async function runTogether(
	pairs: Pair[],
	creds: Map<string, CredentialRef>,
): Promise<Array<Omit<Run, 'target' | 'tokens' | 'late'>>> {
	const { nodeOutputs, nodeError } = await import('./client');
	const item = Object.fromEntries(
		pairs.map(({ operation, ids }) => [operation.name, operation.item(ids)]),
	);
	const nodes = pairs.map(({ operation, onError, key }, index) => ({
		name: `m${index}`,
		type: 'n8n-nodes-aml.aml',
		typeVersion: 1,
		position: [660, 200 * index],
		parameters: namespaced({ ...operation.parameters, options: OPTIONS }, operation.name),
		credentials: { amlOAuth2Api: creds.get(key)! },
		onError,
	}));
	const [first, ...rest] = nodes;
	const run = await runNode(
		{
			name: first.name,
			parameters: first.parameters as Json,
			credentials: first.credentials,
			settings: { onError: first.onError },
		},
		[item],
		{
			credentials: first.credentials,
			extraNodes: rest,
			extraConnections: {
				Items: { main: [nodes.map((node) => ({ node: node.name, type: 'main', index: 0 }))] },
			},
		},
	);
	return pairs.map((pair, index) => ({
		...pair,
		status: nodeError(run.execution, `m${index}`) ? 'error' : run.status,
		outputs: nodeOutputs(run.execution, `m${index}`),
		error: nodeError(run.execution, `m${index}`) as Run['error'],
	}));
}

/** One operation of each kind: the On Error settings that cost a run each (stop) run for these. */
export const SAMPLE: Operation[] = OPERATIONS.filter(
	(operation, index) => OPERATIONS.findIndex((other) => other.kind === operation.kind) === index,
);

/** Runs `operations` × `modes` under `fault` at the same time (at most `parallel` at once). */
export async function runRow(
	fault: Fault,
	base: Omit<Ids, 'u'>,
	operations: Operation[],
	modes: OnError[] | ((operation: Operation) => OnError[]),
	opts: { parallel?: number; together?: number; closedUrl?: string } = {},
): Promise<Run[]> {
	const modesOf = typeof modes === 'function' ? modes : () => modes;
	const row = randomUUID().slice(0, 6);
	// each run its own IDs (a create creates, a delete deletes) and its own credential (a token of its own)
	const pairs = operations.flatMap((operation) =>
		modesOf(operation).map((onError) => ({
			operation,
			onError,
			ids: { ...base, u: `${row}${MODE_KEY[onError]}` } as Ids,
			key: keyOf(operation, onError, fault.closedPort === true),
		})),
	);
	const creds = new Map<string, CredentialRef>();
	for (const { operation, onError, ids, key } of pairs) {
		await operation.seed?.(ids, api);
		creds.set(
			key,
			await credentialFor(
				operation,
				onError,
				fault.closedPort === true,
				fault.token === 'first fetch',
				opts.closedUrl ?? '',
			),
		);
	}
	// every credential holds a token (earlier rows), then all of them expire: the next request renews
	if (fault.token === 'renewal') await control.post('/tokens/expire');
	// `times` counts per run (each run's credential has its own token); the same rule twice would fault twice
	const rules = [
		...new Set(
			pairs.flatMap(({ operation, ids, key }) =>
				[
					...(fault.rules?.(operation.target(ids), key) ?? []),
					...(operation.preflight && !fault.token
						? (fault.rules?.(operation.preflight, key) ?? []).filter(
								(rule) => rule.times === undefined,
							)
						: []),
				].map((rule) => JSON.stringify(fault.token ? rule : { ...rule, timesPerToken: true })),
			),
		),
	].map((rule) => JSON.parse(rule) as Json);
	if (rules.length) await control.post('/faults', { rules });
	const mark = await control.mark();
	const results: Array<Omit<Run, 'target' | 'tokens' | 'late'>> = [];
	// Stop ends the execution at the first failure, an upload needs its file: a workflow each. The rest in workflows of
	// `together` operations (one execution, nodes one after another), those workflows side by side.
	const alone = pairs.filter((pair) => pair.onError === 'stop' || pair.operation.kind === 'upload');
	// a refused connection is repeated with backoff (about 6 s an operation), a token fault waits out the token
	// endpoint's pause or lateness: mostly waiting, so fewer in a row and more side by side
	const waits = fault.closedPort === true || fault.token !== undefined;
	const together = opts.together ?? (waits ? 2 : 5);
	const parallel = opts.parallel ?? (waits ? 24 : 6);
	const batches: Pair[][] = [];
	for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
		const batch = pairs.filter((pair) => pair.onError === onError && !alone.includes(pair));
		for (let i = 0; i < batch.length; i += together) batches.push(batch.slice(i, i + together));
	}
	const jobs: Array<() => Promise<Array<Omit<Run, 'target' | 'tokens' | 'late'>>>> = [
		...batches.map((batch) => () => runTogether(batch, creds)),
		...alone.map(({ operation, onError, ids, key }) => async () => [
			await runOne(operation, onError, ids, creds.get(key)!, key),
		]),
	];
	try {
		let next = 0;
		const worker = async () => {
			while (next < jobs.length) results.push(...(await jobs[next++]()));
		};
		await Promise.all(Array.from({ length: parallel }, worker));
	} finally {
		if (rules.length) await control.del('/faults');
	}
	const late = await lateRequests(fault, mark);
	const log = (await control.requestsSince(mark)) as unknown as Logged[];
	return results.map((run) => {
		const target = run.operation.target(run.ids);
		const path = new RegExp(target.path);
		return {
			...run,
			late,
			target: log.filter((r) => r.method === target.method && path.test(r.path)),
			tokens: log.filter(
				(r) => r.path === '/oauth/token' && new RegExp(ownTokenQuery(run.key)).test(r.query),
			),
		};
	});
}

/**
 * A request n8n would send once a late token arrives must not go out: for a fault with late answers, waits for them
 * after the row's runs ended and returns the API requests that came meanwhile (none expected), two aside: the token
 * step's read (a GET of the credential test's path, safe to arrive late: the token step sends it to have n8n fetch a
 * token) and the Gate's record of a clear (a PATCH of its transaction, written just after the answer by design).
 */
async function lateRequests(fault: Fault, mark: number): Promise<Logged[]> {
	if (!fault.lateMs) return [];
	const ended = await control.mark();
	await new Promise((resolve) => setTimeout(resolve, fault.lateMs! + 1500));
	const log = (await control.requestsSince(mark)) as unknown as Logged[];
	const issuers = log.filter((r) => r.path === '/oauth/token' && r.token);
	return log
		.filter((r) => r.seq > ended && r.path.startsWith('/api/'))
		.filter((r) => !(r.method === 'GET' && r.path === TOKEN_STEP_READ))
		.filter(
			(r) =>
				!(
					r.method === 'PATCH' &&
					/^\/api\/v1\/persons\/[^/]+\/transactions\/[^/]+-gate$/.test(r.path)
				),
		)
		.map((r) => {
			const issuer = issuers.find((t) => t.token === r.token);
			return {
				...r,
				issuedBy: issuer ? { seq: issuer.seq, query: issuer.query, status: issuer.status } : null,
			};
		});
}

/**
 * What was really sent: the request log of the faulted request (a 401 of a renewal's first try aside) against whether
 * the rule says it reached the service. Returns the requests that count.
 */
function sentAsExpected(
	target: Logged[],
	fault: Fault,
	want: Expected,
	note: (what: string, got: unknown) => void,
): Logged[] {
	const reached = target.filter((r) => !(fault.token === 'renewal' && r.status === 401));
	if (want.reached !== reached.length > 0)
		note(
			want.reached
				? 'expected the request to reach the service'
				: 'expected no request at the service',
			target,
		);
	return reached;
}

/**
 * Whether a request was repeated within one run: the log of a target holds the runs of every On Error setting (each
 * with its own credential and so its own token), and a repeat goes out with the token of its first attempt.
 */
function sentTwice(reached: Logged[]): boolean {
	const tokens = reached.map((r) => r.token ?? '');
	return new Set(tokens).size !== tokens.length;
}

/** Outputs of the node without n8n's error output: a routed check or the gate has Clear and Block. */
const nodeOutputCount = (operation: Operation) =>
	operation.kind === 'routedCheck' || operation.kind === 'gate' ? 2 : 1;
const isCheck = (kind: Kind) => kind === 'check' || kind === 'routedCheck' || kind === 'gate';

/**
 * Asserts one run against the rule: the execution's status, which output the item left on, its fields (`decision` and
 * the reason of a check, the error text, "may have been applied"), what the request log shows was sent and what the
 * service stored. Returns the mismatches (empty when the run agrees), so that a row lists every one at once.
 */
export async function mismatches(run: Run, fault: Fault): Promise<string[]> {
	const { operation, onError, ids } = run;
	const want = expected(operation, fault);
	const problems: string[] = [];
	const where = `${operation.name} [${onError}] under ${fault.name}`;
	const note = (what: string, got: unknown) =>
		problems.push(`${where}: ${what}; got ${JSON.stringify(got)?.slice(0, 600)}`);
	const outputs = run.outputs;
	const everywhere = outputs.flatMap((items, index) => items.map((item) => ({ index, item })));
	// Block is output 0 of a routed check or the gate (n8n's own fallback items land there), Clear output 1
	const blockOutput = 0;
	const okOutput = nodeOutputCount(operation) === 2 ? 1 : 0;
	const errorOutput = nodeOutputCount(operation);
	const texts = JSON.stringify({ outputs, error: run.error });

	if (want.outcome === 'fail' && onError === 'stop') {
		if (run.status !== 'error' || !run.error)
			note('expected the execution to fail', { status: run.status, outputs });
		else if (!want.text!.test(run.error.message))
			note(`error should match ${want.text}`, run.error.message);
	} else {
		if (run.status !== 'success')
			note('expected the execution to succeed', { status: run.status, error: run.error });
		if (everywhere.length !== 1 && !(want.outcome === 'ok' && operation.many))
			note('expected exactly one item', outputs);
		const [{ index, item } = { index: -1, item: {} as Json }] = everywhere;
		if (want.outcome === 'ok') {
			if (everywhere.some((entry) => entry.index !== okOutput))
				note(`expected the item on output ${okOutput} (Clear for a routed check)`, outputs);
			if (item.error !== undefined) note('expected no error', item);
			if (isCheck(operation.kind) && item.decision !== 'clear')
				note('expected decision clear', item);
			if (operation.ok) {
				try {
					operation.ok(item, ids);
				} catch (error) {
					note(`answer: ${(error as Error).message.split('\n')[0]}`, item);
				}
			}
			if (want.afterLostAnswer) {
				const flagged =
					item.afterLostAnswer === true || item.reasons?.store?.afterLostAnswer === true;
				if (!flagged) note('expected afterLostAnswer', item);
			}
		} else if (want.outcome === 'block') {
			if (index !== blockOutput)
				note(`expected the item on output ${blockOutput} (Block)`, outputs);
			if (item.decision !== 'block') note('expected decision block', item);
			if (!want.text!.test(String(item.reason))) note(`reason should match ${want.text}`, item);
		} else if (onError === 'continueErrorOutput') {
			if (index !== errorOutput)
				note(`expected the item on n8n's error output ${errorOutput}`, outputs);
			if (!want.text!.test(String(item.error))) note(`error should match ${want.text}`, item);
		} else {
			// Continue (regular output): the failed item, on Block for a routed check, with the check's decision
			if (index !== blockOutput)
				note('expected the error item on its output (Block for a routed check)', outputs);
			if (!want.text!.test(String(item.error))) note(`error should match ${want.text}`, item);
			if (isCheck(operation.kind) && item.decision !== 'block')
				note('a failed check item must say decision block', item);
			if (
				sendsCheck(operation) &&
				want.mayHaveApplied &&
				!OUTCOME_UNKNOWN.test(String(item.reason))
			)
				note(`reason should match ${OUTCOME_UNKNOWN}`, item);
		}
		// a check item says whether the check may have run (it carries `decision`: not on n8n's error output)
		if (isCheck(operation.kind) && item.decision !== undefined) {
			const flagged =
				item.mayHaveApplied === true ||
				Object.values((item.reasons ?? {}) as Json).some(
					(step: Json) => step?.mayHaveApplied === true,
				);
			if (flagged !== want.mayHaveApplied)
				note(`expected mayHaveApplied ${want.mayHaveApplied ? 'true' : 'absent'}`, item);
		}
	}
	if (MAY.test(texts) !== want.mayHaveApplied)
		note(
			want.mayHaveApplied
				? 'expected "may have been applied"'
				: 'must not say "may have been applied"',
			run.error ?? outputs,
		);
	const reached = sentAsExpected(run.target, fault, want, note);
	if (want.mayHaveApplied && reached.length === 0)
		note('"may have been applied" for a request never received', run.target);
	if (want.once && sentTwice(reached))
		note('expected the request sent exactly once (not repeated)', run.target);
	if (run.late.length)
		note('a request went out after the run had ended (sent by a late token)', run.late);
	if (fault.token && fault.lateMs) {
		// given up after the Timeout: a first fetch is asked again (the late one answers too), a renewal waited for
		const want = fault.token === 'first fetch' ? 2 : 1;
		if (run.tokens.length < want || !run.tokens.every((r) => r.status === 200))
			note(`expected at least ${want} token requests, answered`, run.tokens);
	} else if (fault.token && !fault.name.includes('invalid_client')) {
		const statuses = run.tokens.map((r) => r.status);
		if (statuses[0] === 200 || !statuses.slice(1).includes(200))
			note('expected a failed token request, then one answered', statuses);
	}
	if (fault.token && fault.name.includes('invalid_client') && run.tokens.length !== 1)
		note('expected exactly one token request', run.tokens);
	if (want.stored !== undefined && operation.stored) {
		const stored = await operation.stored(ids, api);
		if (stored !== want.stored) note(`expected stored=${want.stored}`, stored);
	}
	return problems;
}

// ---------------------------------------------------------------------------------------------------------------
// Tool mode

/** The checks and the Gate: the operations whose answer an agent acts on (`decision`). */
export const TOOL_OPERATIONS = OPERATIONS.filter((operation) => isCheck(operation.kind));

/** An operation's parameters with the input item's values put in (a tool has no input item). */
function toolParameters(operation: Operation, ids: Ids): Json {
	const item = operation.item(ids);
	const fill = (value: unknown): unknown => {
		if (typeof value !== 'string') return value;
		if (value === '={{ JSON.stringify($json.attributes) }}') return JSON.stringify(item.attributes);
		const field = /^=\{\{ \$json\.(\w+) \}\}$/.exec(value)?.[1];
		return field === undefined ? value : String(item[field]);
	};
	return Object.fromEntries(
		Object.entries(operation.parameters).map(([name, value]) => [name, fill(value)]),
	);
}

export interface ToolRun {
	operation: Operation;
	ids: Ids;
	/** The tool's answer as the MCP client got it: its text and whether n8n marked it an error. */
	text: string;
	isError: boolean;
	target: Logged[];
	late: Logged[];
}

/**
 * One fault row in tool mode: every check and the Gate as n8n's tool variant of the AML node (each with its own
 * credential, `?c=<file>.<key>`), in one workflow with the MCP Server Trigger, called side by side by a real MCP client.
 */
export async function runToolRow(
	fault: Fault,
	base: Omit<Ids, 'u'>,
	operations: Operation[],
	opts: { closedUrl?: string } = {},
): Promise<ToolRun[]> {
	const row = randomUUID().slice(0, 6);
	const ids = { ...base, u: `${row}t` } as Ids;
	const path = `aml-matrix-${row}`;
	const trigger = 'MCP Server Trigger';
	const nodes: Json[] = [
		{
			name: trigger,
			type: '@n8n/n8n-nodes-langchain.mcpTrigger',
			typeVersion: 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { path },
		},
	];
	const connections: Json = {};
	const keys = new Map<Operation, string>();
	for (const [index, operation] of operations.entries()) {
		await operation.seed?.(ids, api);
		const credential = await credentialFor(
			operation,
			'tool',
			fault.closedPort === true,
			fault.token === 'first fetch',
			opts.closedUrl ?? '',
		);
		keys.set(operation, keyOf(operation, 'tool', fault.closedPort === true));
		const name = `tool_${index}`;
		nodes.push({
			name,
			type: 'n8n-nodes-aml.amlTool',
			typeVersion: 1,
			position: [200, index * 120],
			parameters: {
				...toolParameters(operation, ids),
				options: OPTIONS,
				descriptionType: 'manual',
				toolDescription: operation.name,
			},
			credentials: { amlOAuth2Api: credential },
		});
		connections[name] = { ai_tool: [[{ node: trigger, type: 'ai_tool', index: 0 }]] };
	}
	const tools = await mcpTools(
		{ name: `AML matrix tools ${row}`, nodes, connections, settings: {} },
		path,
	);
	try {
		if (fault.token === 'renewal') await control.post('/tokens/expire');
		const rules = operations.flatMap((operation) =>
			(fault.rules?.(operation.target(ids), keys.get(operation)!) ?? []).map((rule) =>
				fault.token ? rule : { ...rule, timesPerToken: true },
			),
		);
		if (rules.length) await control.post('/faults', { rules });
		const mark = await control.mark();
		let answers: Array<{ text: string; isError: boolean }>;
		try {
			answers = await Promise.all(
				operations.map(async (_operation, index) => {
					const result = await tools.client
						.callTool({ name: `tool_${index}`, arguments: {} }, undefined, { timeout: 120_000 })
						.catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }));
					return { text: textOf(result), isError: result.isError === true };
				}),
			);
		} finally {
			if (rules.length) await control.del('/faults');
		}
		const late = await lateRequests(fault, mark);
		const log = (await control.requestsSince(mark)) as unknown as Logged[];
		return operations.map((operation, index) => {
			const target = operation.target(ids);
			const pattern = new RegExp(target.path);
			return {
				operation,
				ids,
				...answers[index],
				late,
				target: log.filter((r) => r.method === target.method && pattern.test(r.path)),
			};
		});
	} finally {
		await tools.close();
	}
}

/**
 * Tool mode against the rule: the agent always gets the check's items, each with `decision` (never an error without
 * one); `clear` with the operation's answer where the rule says ok, else `block` with the reason; what reached the
 * service as the rule says; nothing sent after the run.
 */
export function toolMismatches(run: ToolRun, fault: Fault): string[] {
	const { operation } = run;
	const want = expected(operation, fault);
	const problems: string[] = [];
	const note = (what: string, got: unknown) =>
		problems.push(
			`${operation.name} [tool] under ${fault.name}: ${what}; got ${JSON.stringify(got)?.slice(0, 600)}`,
		);
	let items: Json[] = [];
	try {
		const parsed = JSON.parse(run.text) as Json | Json[];
		items = Array.isArray(parsed) ? parsed : [parsed];
	} catch {
		note('the answer is not the items as JSON', run.text);
	}
	if (run.isError) note('the tool call failed instead of answering with a decision', run.text);
	if (items.length !== 1) note('expected one item', items);
	const [item = {} as Json] = items;
	if (item.decision === undefined) note('an item without decision', item);
	if (want.outcome === 'ok') {
		if (item.decision !== 'clear') note('expected decision clear', item);
		try {
			operation.ok?.(item, run.ids);
		} catch (error) {
			note(`answer: ${(error as Error).message.split('\n')[0]}`, item);
		}
	} else {
		if (item.decision !== 'block') note('expected decision block', item);
		if (!want.text!.test(String(item.reason)) && !want.text!.test(String(item.error)))
			note(`reason should match ${want.text}`, item);
	}
	const reached = sentAsExpected(run.target, fault, want, note);
	if (want.once && sentTwice(reached))
		note('expected the request sent exactly once (not repeated)', run.target);
	if (item.decision === 'block' && (item.mayHaveApplied === true) !== want.mayHaveApplied)
		note(`expected mayHaveApplied ${want.mayHaveApplied ? 'true' : 'absent'}`, item);
	if (run.late.length)
		note('a request went out after the run had ended (sent by a late token)', run.late);
	return problems;
}
