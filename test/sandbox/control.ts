import { randomUUID } from 'node:crypto';

import { fail, ok, type RouteDef } from './http';
import type { SandboxServer } from './server';
import { DEFAULT_CONFIG, type Config, type Json, type ListRecord, type Scenario } from './store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Validates a partial configuration; returns an error message or undefined. */
function configError(b: Json): string | undefined {
	const known = Object.keys(DEFAULT_CONFIG);
	for (const k of Object.keys(b))
		if (!known.includes(k)) return `unknown config key ${k} (known: ${known.join(', ')})`;
	const num = (k: string, min: number, max = Infinity) =>
		b[k] !== undefined &&
		(typeof b[k] !== 'number' || (b[k] as number) < min || (b[k] as number) > max)
			? `${k} must be a number ${min}..${max}`
			: undefined;
	const rl = b.tokenRateLimit as Json | undefined;
	return (
		num('tokenLifetimeSeconds', 1) ??
		num('deletionDelayMs', 0) ??
		num('fuzzyThreshold', 0, 100) ??
		num('webhookRetryScale', 0) ??
		num('monitoringScoreThreshold', 0, 100) ??
		(rl !== undefined &&
		(typeof rl !== 'object' ||
			rl === null ||
			(rl.max !== undefined && !(Number(rl.max) >= 1)) ||
			(rl.windowSeconds !== undefined && !(Number(rl.windowSeconds) > 0)))
			? 'tokenRateLimit must be {max >= 1, windowSeconds > 0}'
			: undefined) ??
		(b.personDeletionEnabled !== undefined && typeof b.personDeletionEnabled !== 'boolean'
			? 'personDeletionEnabled must be a boolean'
			: undefined) ??
		(['checksReportCreatedAlertsOnly', 'alertsOnStore'] as const)
			.filter((k) => b[k] !== undefined && typeof b[k] !== 'boolean')
			.map((k) => `${k} must be a boolean`)[0] ??
		(b.alertStatuses !== undefined &&
		(!Array.isArray(b.alertStatuses) ||
			!b.alertStatuses.length ||
			b.alertStatuses.some((s) => typeof s !== 'string' || !s.trim()))
			? 'alertStatuses must be a non-empty array of codes'
			: undefined) ??
		(b.decisionRules !== undefined &&
		(!Array.isArray(b.decisionRules) ||
			(b.decisionRules as Json[]).some(
				(r) =>
					typeof r.name !== 'string' ||
					!['PERSON', 'TRANSACTION'].includes(String(r.entity)) ||
					!['allAlertsClosed', 'anyTruePositive', 'allAlertsClosedNoneConfirmed'].includes(
						String(r.condition),
					),
			))
			? 'decisionRules must be [{name, entity: PERSON|TRANSACTION, condition: allAlertsClosed|anyTruePositive|allAlertsClosedNoneConfirmed}]'
			: undefined)
	);
}

function scenarioError(s: Json): string | undefined {
	if (typeof s.handle !== 'string' || !UUID.test(s.handle)) return 'scenario handle must be a uuid';
	if (typeof s.name !== 'string' || !s.name) return 'scenario name is required';
	if (!['ONLINE', 'OFFLINE', 'PERIODIC'].includes(String(s.type).toUpperCase()))
		return 'scenario type must be ONLINE, OFFLINE or PERIODIC';
	if (!['PERSON', 'TRANSACTION'].includes(String(s.entity)))
		return 'scenario entity must be PERSON or TRANSACTION';
	const r = (s.rule ?? {}) as Json;
	if (!['amountOver', 'countryIn', 'velocity', 'attributeEquals'].includes(String(r.kind)))
		return 'scenario rule.kind must be amountOver, countryIn, velocity or attributeEquals';
	if (typeof s.score !== 'number') return 'scenario score must be a number';
	return undefined;
}

/** The control API under /_control (no auth): reset, stats, request log, config, tokens, faults, state, webhooks. */
export function controlRoutes(server: SandboxServer): RouteDef[] {
	const store = () => server.store;
	const body = (b: unknown) => (b ?? {}) as Json;
	const queued = <T extends { deleteAt?: number }>(p: T) => {
		const { deleteAt, ...rest } = p;
		return {
			...rest,
			queuedForDeletion: deleteAt !== undefined,
			deleteAt: deleteAt !== undefined ? new Date(deleteAt).toISOString() : null,
		};
	};
	return [
		[
			'POST',
			'/_control/reset',
			({ body: b }) => {
				server.reset(body(b).seed !== false);
				return ok({ reset: true, seeded: body(b).seed !== false });
			},
		],
		['GET', '/_control/stats', () => ok(server.stats)],
		[
			'GET',
			'/_control/requests',
			({ query }) => ok(server.requestLog.since(Number(query.get('since') ?? 0))),
		],
		['GET', '/_control/config', () => ok(store().config)],
		[
			'POST',
			'/_control/config',
			({ body: b }) => {
				const e = configError(body(b));
				if (e) return fail(400, e);
				const c = store().config;
				const patch = body(b) as Partial<Config>;
				Object.assign(c, {
					...patch,
					tokenRateLimit: { ...c.tokenRateLimit, ...(patch.tokenRateLimit ?? {}) },
					screeningFields: { ...c.screeningFields, ...(patch.screeningFields ?? {}) },
				});
				// A changed limit counts from now: a test that raised it leaves no full window to the next one.
				if (patch.tokenRateLimit) server.auth.clearLimitWindows();
				return ok(c);
			},
		],
		['GET', '/_control/tokens', () => ok({ issued: server.auth.issued })],
		[
			'POST',
			'/_control/tokens/expire',
			() => {
				server.auth.expireAll();
				return ok({ expired: true });
			},
		],
		['GET', '/_control/faults', () => ok({ rules: server.faults.list() })],
		[
			'POST',
			'/_control/faults',
			({ body: b }) => {
				try {
					return ok({
						rules: server.faults.set(
							(body(b).rules as never) ?? [],
							body(b).seed as number | undefined,
						),
					});
				} catch (error) {
					return fail(400, (error as Error).message);
				}
			},
		],
		[
			'DELETE',
			'/_control/faults',
			() => {
				server.faults.clear();
				return ok({ rules: 0 });
			},
		],
		// Stored state
		[
			'GET',
			'/_control/persons',
			() =>
				ok(
					[...store().persons.keys()]
						.map((id) => store().personVisible(id))
						.filter(Boolean)
						.map((p) => queued(p!)),
				),
		],
		[
			'GET',
			'/_control/persons/:id',
			({ params }) => {
				const p = store().personVisible(params.id);
				return p ? ok(queued(p)) : fail(404, `no person ${params.id}`);
			},
		],
		[
			'GET',
			'/_control/transactions',
			({ query }) => {
				const personId = query.get('personId');
				const ids = personId
					? (store().transactionsByPerson.get(personId) ?? [])
					: [...store().transactions.keys()];
				return ok(ids.map((id) => store().transactions.get(id)).filter(Boolean));
			},
		],
		['GET', '/_control/relations', () => ok(store().relations)],
		['GET', '/_control/alerts', () => ok([...store().alerts.values()])],
		['GET', '/_control/screening-alerts', () => ok([...store().screeningAlerts.values()])],
		['GET', '/_control/manual-alerts', () => ok([...store().manualAlerts.values()])],
		[
			'GET',
			'/_control/notes',
			({ query }) => {
				const personId = query.get('personId');
				return ok(store().notes.filter((n) => !personId || n.personId === personId));
			},
		],
		['GET', '/_control/uploads', () => ok([...store().uploads.values()])],
		['GET', '/_control/events', () => ok(server.hooks.events)],
		// Custom lists
		[
			'GET',
			'/_control/custom-lists',
			() =>
				ok(
					[...store().customLists.values()].map((l) => ({
						id: l.id,
						name: l.name,
						goodlist: l.goodlist,
						fields: l.fields,
						records: l.records.size,
					})),
				),
		],
		[
			'POST',
			'/_control/custom-lists',
			({ body: b }) => {
				const x = body(b);
				const id = x.id === undefined ? randomUUID() : String(x.id);
				if (!UUID.test(id)) return fail(400, 'id must be a uuid');
				if (store().customLists.has(id)) return fail(422, `custom list ${id} exists`);
				const fields = Array.isArray(x.fields)
					? (x.fields as Json[]).map((f) => ({
							id: typeof f.id === 'string' ? f.id : randomUUID(),
							name: String(f.name),
						}))
					: [{ id: randomUUID(), name: 'name' }];
				store().customLists.set(id, {
					id,
					name: String(x.name ?? 'Custom list'),
					fields,
					goodlist: x.goodlist === true,
					records: new Map(),
				});
				return ok({
					id,
					name: String(x.name ?? 'Custom list'),
					fields,
					goodlist: x.goodlist === true,
				});
			},
		],
		[
			'GET',
			'/_control/custom-lists/:customListId/records',
			({ params }) => {
				const l = store().customLists.get(params.customListId);
				return l ? ok([...l.records.values()]) : fail(404, `no custom list ${params.customListId}`);
			},
		],
		// Scenarios, screening list, risk rules
		['GET', '/_control/scenarios', () => ok(store().scenarios)],
		[
			'POST',
			'/_control/scenarios',
			({ body: b }) => {
				const list = (Array.isArray(b) ? b : body(b).scenarios) as Json[];
				if (!Array.isArray(list))
					return fail(400, 'body must be an array of scenarios or {scenarios: [...]}');
				for (const s of list) {
					const e = scenarioError(s);
					if (e) return fail(400, e);
				}
				store().scenarios = list.map((s) => ({
					weight: 1,
					...s,
					type: String(s.type).toUpperCase(),
				})) as unknown as Scenario[];
				return ok({ scenarios: store().scenarios.length });
			},
		],
		['GET', '/_control/screening-list', () => ok(store().screeningList)],
		[
			'POST',
			'/_control/screening-list',
			({ body: b }) => {
				const x = Array.isArray(b) ? { records: b, replace: true } : body(b);
				if (!Array.isArray(x.records))
					return fail(
						400,
						'body must be {records: [...], replace?: boolean} or an array of records',
					);
				const records = (x.records as Json[]).map((r, i) => ({
					id: String(r.id ?? `ctl-${Date.now()}-${i}`),
					name: String(r.name),
					aliases: Array.isArray(r.aliases) ? (r.aliases as string[]) : [],
					dob: r.dob as string | undefined,
					type: r.type === 'ENTITY' ? 'ENTITY' : 'PERSON',
					checkType: ['SANCTION', 'PEP', 'ADVERSE_MEDIA'].includes(String(r.checkType))
						? r.checkType
						: 'SANCTION',
					listCode: String(r.listCode ?? 'CONTROL-LIST'),
					listName: String(r.listName ?? 'Control list'),
					countries: Array.isArray(r.countries) ? (r.countries as string[]) : [],
					groups: Array.isArray(r.groups) ? (r.groups as string[]) : ['SANCTIONS'],
				})) as ListRecord[];
				if (records.some((r) => !r.name || r.name === 'undefined'))
					return fail(400, 'every record needs a name');
				if (x.replace) store().screeningList = [];
				store().screeningList.push(...records);
				return ok({ records: store().screeningList.length });
			},
		],
		['GET', '/_control/risk-rules', () => ok(store().riskRules)],
		[
			'POST',
			'/_control/risk-rules',
			({ body: b }) => {
				const list = (Array.isArray(b) ? b : body(b).rules) as Json[];
				if (!Array.isArray(list))
					return fail(400, 'body must be an array of risk rules or {rules: [...]}');
				store().riskRules = list.map((r, i) => ({
					id: Number(r.id ?? i + 1),
					factor: String(r.factor),
					level: String(r.level),
					weight: Number(r.weight ?? 1),
					rule: r.rule as never,
				}));
				server.ctx.risk.rescoreAll();
				return ok({ rules: store().riskRules.length });
			},
		],
		// Webhooks
		[
			'POST',
			'/_control/webhooks',
			({ body: b }) => {
				try {
					return ok(server.hooks.add(body(b) as never));
				} catch (error) {
					return fail(400, (error as Error).message);
				}
			},
		],
		['GET', '/_control/webhooks', () => ok(server.hooks.targets)],
		['GET', '/_control/webhooks/deliveries', () => ok(server.hooks.log)],
		[
			'POST',
			'/_control/webhooks/emit',
			({ body: b }) => {
				const x = body(b);
				if (typeof x.action !== 'string' || !x.action) return fail(400, 'action is required');
				server.hooks.emit(x.action, (x.metadata as Json) ?? {});
				return ok({ emitted: true });
			},
		],
		['POST', '/_control/webhooks/flush', () => ok({ flushed: server.hooks.flush() })],
		[
			'DELETE',
			'/_control/webhooks/:id',
			({ params }) =>
				server.hooks.remove(params.id)
					? ok({ deleted: true })
					: fail(404, `no webhook ${params.id}`),
		],
		// Demo helpers: a local stand-in for a Slack incoming webhook, and what it received.
		['GET', '/_control/slack', () => ok(server.slack)],
	];
}
