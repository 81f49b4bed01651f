import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../nodes/Aml/actions/transaction/gate.operation';
import { FAKE_SECRET, FAKE_TOKEN, signedHelpers, TEST_NODE } from './realHttpContext';

/**
 * An in-memory AML service that keeps the interface's rules the Gate relies on: a create is unique by ID (422), an
 * update adds only new keys and `status`, a repeated check reports only the alerts it creates, manual alerts are
 * alerts of their transaction. Faults are scripted per path. And `gateRun`: the Gate's `execute()` in-process through
 * n8n's real HTTP client, one payment per run (a run is an execution: runs side by side are copies at once).
 */

export interface Alert {
	id: number;
	transactionId: string;
	personId: string;
	kind: 'monitoring' | 'screening' | 'manual';
	open: boolean;
	comment?: string;
}

export interface Fault {
	path: RegExp;
	method?: string;
	/** How many requests it applies to (default: every one). */
	times?: number;
	status?: number;
	headers?: Record<string, string>;
	/** Waits before the request is handled. */
	delayMs?: number;
	/** Handled (stored), then its answer dropped: the connection is closed without one. */
	dropAnswer?: boolean;
	/** Waits for this promise before handling. */
	hold?: Promise<void>;
	/** Runs when the request arrives, before it is handled (another client's request in between). */
	before?: () => void;
}

export async function gateService() {
	const transactions = new Map<string, { id: string; personId: string; attributes: IDataObject }>();
	const persons = new Map<string, { id: string; status: string }>([
		['p-1', { id: 'p-1', status: 'NEW' }],
	]);
	const alerts: Alert[] = [];
	const flagged = new Set<string>();
	const faults: Fault[] = [];
	const requests: Array<{ method: string; path: string }> = [];
	let nextAlert = 1;

	const raise = (transactionId: string, kind: Alert['kind'], comment?: string) => {
		const tx = transactions.get(transactionId);
		const alert = {
			id: nextAlert++,
			transactionId,
			personId: tx?.personId ?? '',
			kind,
			open: true,
			comment,
		};
		alerts.push(alert);
		return alert;
	};
	/** The service's own check: an alert the first time a scenario or list matches, never again (a repeat raises nothing). */
	const check = (id: string, kind: 'monitoring' | 'screening') => {
		const tx = transactions.get(id);
		if (!tx) return undefined;
		const hit =
			kind === 'monitoring'
				? Number(tx.attributes.amount) > 10_000
				: tx.attributes.receiver_name === 'Viktor Drabenko';
		if (!hit || flagged.has(`${kind} ${id}`)) return [];
		flagged.add(`${kind} ${id}`);
		return [{ alertId: raise(id, kind).id, reason: kind }];
	};

	const route = (method: string, path: string, body: IDataObject): [number, unknown] => {
		let m: RegExpMatchArray | null;
		if ((m = path.match(/^\/api\/v1\/persons\/([^/]+)\/transactions$/)) && method === 'POST') {
			if (!persons.has(m[1])) return [404, { message: 'person not found' }];
			if (transactions.has(String(body.id))) return [422, { message: 'exists' }];
			const tx = {
				id: String(body.id),
				personId: m[1],
				attributes: { ...(body.attributes as IDataObject) },
			};
			transactions.set(tx.id, tx);
			return [200, tx];
		}
		if ((m = path.match(/^\/api\/v1\/persons\/([^/]+)\/transactions\/([^/]+)$/))) {
			const tx = transactions.get(m[2]);
			if (!tx || tx.personId !== m[1]) return [404, { message: 'not found' }];
			if (method === 'PATCH') {
				// only completely new keys, or status
				for (const [key, value] of Object.entries((body.attributes ?? {}) as IDataObject))
					if (key === 'status' || !(key in tx.attributes)) tx.attributes[key] = value;
			}
			return [200, tx];
		}
		if ((m = path.match(/^\/api\/v1\/transactions\/([^/]+)\/(monitoring|screening)-checks$/))) {
			const list = check(m[1], m[2] as 'monitoring' | 'screening');
			if (!list) return [404, { message: 'not found' }];
			return [200, m[2] === 'monitoring' ? { results: list } : { matches: list }];
		}
		if ((m = path.match(/^\/api\/v1\/transactions\/([^/]+)\/unresolved-alerts$/)))
			return [
				200,
				{ hasUnresolvedAlerts: alerts.some((a) => a.open && a.transactionId === m![1]) },
			];
		if ((m = path.match(/^\/api\/v1\/persons\/([^/]+)\/unresolved-alerts$/)))
			return [
				200,
				{
					hasUnresolvedAlerts: alerts.some((a) => a.open && a.personId === m![1]),
				},
			];
		if ((m = path.match(/^\/api\/v1\/persons\/([^/]+)$/))) {
			const person = persons.get(m[1]);
			return person
				? [200, { id: person.id, type: 'INDIVIDUAL', status: person.status, attributes: {} }]
				: [404, {}];
		}
		if (path === '/api/v1/manual-alerts' && method === 'POST') {
			const comment = String(body.rationaleComment ?? '');
			if (comment.length > 1000) return [400, { message: 'rationaleComment too long' }];
			const alert = raise(String(body.transactionId), 'manual', comment);
			return [
				200,
				{ id: alert.id, personId: body.personId, transactionId: body.transactionId, status: 'NEW' },
			];
		}
		return [404, { message: `no route ${method} ${path}` }];
	};

	const server = http.createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', () => {
			void (async () => {
				const path = (req.url ?? '').split('?')[0];
				const method = req.method ?? '';
				requests.push({ method, path });
				const fault = faults.find(
					(f) => f.path.test(path) && (!f.method || f.method === method) && (f.times ?? 1) > 0,
				);
				if (fault && fault.times !== undefined) fault.times--;
				fault?.before?.();
				if (fault?.hold) await fault.hold;
				if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
				if (fault?.status) {
					res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
					res.end('{"message":"fault"}');
					return;
				}
				const [status, body] = route(method, path, raw ? (JSON.parse(raw) as IDataObject) : {});
				if (fault?.dropAnswer) {
					req.socket.destroy();
					return;
				}
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			})();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	return {
		baseUrl,
		transactions,
		persons,
		alerts,
		faults,
		requests,
		/** Stores a transaction as an import would (no Gate record), with its checks run and their alerts. */
		imported(id: string, attributes: IDataObject, personId = 'p-1') {
			transactions.set(id, { id, personId, attributes });
			check(id, 'monitoring');
			check(id, 'screening');
		},
		/** Another client's checks of a stored transaction (its alerts raised). */
		checkedElsewhere: (id: string) => [check(id, 'monitoring'), check(id, 'screening')],
		raise,
		close: (id: number) => void (alerts.find((a) => a.id === id)!.open = false),
		setStatus: (id: string, status: string) =>
			void (transactions.get(id)!.attributes.status = status),
		count: (pattern: RegExp, method = 'POST') =>
			requests.filter((r) => r.method === method && pattern.test(r.path)).length,
		stop: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

export type GateService = Awaited<ReturnType<typeof gateService>>;

/** Reads a dotted path (`options.timeBudget`). */
function at(parameters: IDataObject, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>((value, key) => (value as IDataObject | undefined)?.[key], parameters);
}

/** One execution of the Gate with one payment: its output item (either output) or its error. */
export async function gateRun(
	service: GateService,
	payment: IDataObject,
	parameters: IDataObject = {},
	credential: IDataObject = {},
): Promise<IDataObject> {
	const node = {
		...TEST_NODE,
		parameters: { resource: 'transaction', operation: 'gate', ...parameters },
	};
	const values: IDataObject = {
		personId: payment.personId ?? 'p-1',
		transactionId: payment.id,
		attributesMode: 'json',
		attributesJson: JSON.stringify({
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-01T10:00:00Z',
			...payment,
			id: undefined,
			personId: undefined,
		}),
		onExisting: 'skip',
		...parameters,
		options: { timeBudget: 2_000, ...(parameters.options as IDataObject) },
	};
	const items: INodeExecutionData[] = [{ json: payment }];
	const ctx = {
		getNode: () => node,
		getCredentials: async () => ({
			baseUrl: service.baseUrl,
			apiPathPrefix: '/api',
			accessTokenUrl: `${service.baseUrl}/oauth/token`,
			clientId: 'client',
			clientSecret: FAKE_SECRET,
			gateSigningSecrets: 'unit-1=in-process gate key, long enough',
			oauthTokenData: { access_token: FAKE_TOKEN, token_type: 'Bearer' },
			...credential,
		}),
		getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
			at(values, name) ?? fallback,
		getInputData: () => items,
		getExecutionId: () => 'exec-1',
		continueOnFail: () => true,
		getExecutionCancelSignal: () => undefined,
		helpers: signedHelpers,
	};
	const outputs = await execute.call(ctx as never, items, () => undefined);
	const item = outputs.flat()[0];
	return item.json;
}

/** Waits until the records written after the answer have landed (they never delay the answer). */
export async function settle(ms = 150): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
}
