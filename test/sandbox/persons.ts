import type { Ctx } from './context';
import { fail, ok, paged, type RouteDef } from './http';
import { now, type Json, type Person } from './store';
import { personView } from './views';
import * as v from './validation';

const API_USER = { id: 1, email: 'api-client@sandbox.local', name: 'API client' };

function valueOf(p: Person, attribute: string): unknown {
	if (attribute in p && attribute !== 'attributes') return (p as unknown as Json)[attribute];
	return p.attributes[attribute];
}

export function matchFilter(p: Person, f: Json): boolean {
	const value = valueOf(p, String(f.attribute ?? ''));
	const q = String(f.query ?? '');
	const text =
		value === undefined || value === null
			? ''
			: typeof value === 'string'
				? value
				: JSON.stringify(value);
	const lower = text.toLowerCase();
	switch (f.operator) {
		case 'IS_EXACTLY':
			return text === q;
		case 'CONTAINS':
			return lower.includes(q.toLowerCase());
		case 'STARTS_WITH':
			return lower.startsWith(q.toLowerCase());
		case 'ENDS_WITH':
			return lower.endsWith(q.toLowerCase());
		case 'CONTAINS_WORD':
			return lower.split(/[^\p{L}\p{N}]+/u).includes(q.toLowerCase());
		case 'GT':
			return Number(text) > Number(q);
		case 'GTE':
			return Number(text) >= Number(q);
		case 'LT':
			return Number(text) < Number(q);
		case 'LTE':
			return Number(text) <= Number(q);
		case 'EXISTS':
			return value !== undefined && value !== null && text !== '';
		case 'NOT_EXISTS':
			return value === undefined || value === null || text === '';
		default:
			return false;
	}
}

function sortBy(list: Person[], orderBy?: string | null, direction?: string | null): Person[] {
	if (!orderBy) return list;
	const dir = direction === 'DESC' ? -1 : 1;
	return [...list].sort(
		(a, b) =>
			String(valueOf(a, orderBy) ?? '').localeCompare(String(valueOf(b, orderBy) ?? '')) * dir,
	);
}

/** Operations 3-13, 17, 20, 28 and the person unresolved-alerts check (31). */
export function personRoutes(ctx: () => Ctx): RouteDef[] {
	const store = () => ctx().store;
	const find = (id: string) => ctx().store.personVisible(id);
	const notFound = (id: string, text = false) => fail(404, `Person with id ${id} not found`, text);
	/** OFFLINE person scenarios and rescoring after a create or update. */
	const afterWrite = (p: Person) => {
		ctx().monitoring.run('OFFLINE', p, undefined, false);
		ctx().risk.rescore(p);
	};
	const typeError = (t: unknown, required: boolean) =>
		t === undefined && !required
			? undefined
			: v.PERSON_TYPES.includes(String(t))
				? undefined
				: `type ${required ? 'is required and ' : ''}must be one of ${v.PERSON_TYPES.join(', ')}`;

	return [
		// 3 create person v2: 200, empty body; 4xx as text/plain
		[
			'POST',
			'/api/v2/persons',
			({ body }) => {
				const b = (body ?? {}) as Json;
				const err =
					v.idError(b.id) ??
					typeError(b.type, true) ??
					(b.attributes === undefined
						? 'attributes is required'
						: v.attributesError(b.attributes)) ??
					(b.category !== undefined && !v.CATEGORIES.includes(String(b.category))
						? 'category must be COUNTERPARTY or CUSTOMER'
						: undefined);
				if (err) return fail(400, err, true);
				if (find(String(b.id))) return fail(422, `Person with id ${b.id} already exists`, true);
				const p = store().newPerson(
					String(b.id),
					String(b.type),
					b.attributes as Json,
					(b.category as string) ?? 'CUSTOMER',
				);
				store().persons.set(p.id, p);
				afterWrite(p);
				return ok(undefined);
			},
		],
		// 4 patch person v2: only the given attributes added or updated (arrays merged by item id)
		[
			'PATCH',
			'/api/v2/persons/:personId',
			({ params, body }) => {
				const b = (body ?? {}) as Json;
				const err =
					typeError(b.type, false) ??
					(b.attributes === undefined ? 'attributes is required' : v.attributesError(b.attributes));
				if (err) return fail(400, err);
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				if (b.type !== undefined) p.type = String(b.type);
				p.attributes = v.mergeAttributes(p.attributes, b.attributes as Json);
				afterWrite(p);
				return ok(undefined);
			},
		],
		// 5 update person v2: replaces type and attributes
		[
			'PUT',
			'/api/v2/persons/:personId',
			({ params, body }) => {
				const b = (body ?? {}) as Json;
				const err =
					typeError(b.type, true) ??
					(b.attributes === undefined ? 'attributes is required' : v.attributesError(b.attributes));
				if (err) return fail(400, err);
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				p.type = String(b.type);
				p.attributes = b.attributes as Json;
				afterWrite(p);
				return ok(undefined);
			},
		],
		// 6 search persons
		[
			'POST',
			'/api/v2/persons/search',
			({ body }) => {
				const b = (body ?? {}) as Json;
				if (b.page === undefined || b.size === undefined)
					return fail(400, 'page and size are required');
				const pa = v.pageArgs(b);
				if (pa.error) return fail(400, pa.error);
				if (!Array.isArray(b.filters) || b.filters.length > 5)
					return fail(400, 'filters is required and must have 0..5 items');
				if (!['AND', 'OR'].includes(String(b.logicalOperator)))
					return fail(400, 'logicalOperator is required and must be AND or OR');
				if (!v.CATEGORIES.includes(String(b.category)))
					return fail(400, 'category is required and must be COUNTERPARTY or CUSTOMER');
				const e = v.lengthError(b.orderBy, 'orderBy');
				if (e) return fail(400, e);
				if (b.direction !== undefined && !v.DIRECTIONS.includes(String(b.direction)))
					return fail(400, 'direction must be ASC or DESC');
				const filters = b.filters as Json[];
				for (const f of filters) {
					if (f === null || typeof f !== 'object')
						return fail(400, 'each filter must be an object');
					if (!v.OPERATORS.includes(String(f.operator)))
						return fail(400, `operator must be one of ${v.OPERATORS.join(', ')}`);
					if (f.attribute !== undefined && typeof f.attribute !== 'string')
						return fail(400, 'filter attribute must be a string');
					const qe = v.lengthError(f.query, 'query');
					if (qe) return fail(400, qe);
				}
				let list = store()
					.visiblePersons()
					.filter((p) => p.category === b.category);
				if (filters.length) {
					list = list.filter((p) => {
						const results = filters.map((f) => (f.not ? !matchFilter(p, f) : matchFilter(p, f)));
						return b.logicalOperator === 'AND' ? results.every(Boolean) : results.some(Boolean);
					});
				}
				return paged(
					sortBy(list, b.orderBy as string, b.direction as string),
					pa.page,
					pa.size,
					true,
					personView,
				);
			},
		],
		// 7 delete person: queued, removed after deletionDelayMs; 403 when switched off
		[
			'DELETE',
			'/api/v2/persons/:personId',
			({ params }) => {
				if (!store().config.personDeletionEnabled)
					return fail(403, 'Person deletion through the API is not enabled for this organisation');
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				if (p.deleteAt === undefined) p.deleteAt = Date.now() + store().config.deletionDelayMs;
				return ok(undefined, 202);
			},
		],
		// 8 fetch persons (deprecated)
		[
			'GET',
			'/api/v1/persons',
			({ query }) => {
				if (query.get('page') === null || query.get('size') === null)
					return fail(400, 'page and size are required');
				const pa = v.pageArgs(query);
				if (pa.error) return fail(400, pa.error);
				const q = query.get('query');
				const e =
					v.lengthError(q ?? undefined, 'query') ??
					v.lengthError(query.get('orderBy') ?? undefined, 'orderBy');
				if (e) return fail(400, e);
				const attribute = query.get('attribute');
				if (attribute !== null && !attribute) return fail(400, 'attribute must not be empty');
				const category = query.get('category');
				if (category !== null && !v.CATEGORIES.includes(category))
					return fail(400, 'category must be COUNTERPARTY or CUSTOMER');
				const direction = query.get('direction');
				if (direction !== null && !v.DIRECTIONS.includes(direction))
					return fail(400, 'direction must be ASC or DESC');
				const operator = query.get('operator') ?? 'IS_EXACTLY';
				if (!v.OPERATORS.includes(operator))
					return fail(400, `operator must be one of ${v.OPERATORS.join(', ')}`);
				let list = store().visiblePersons();
				if (category) list = list.filter((p) => p.category === category);
				if (q && attribute)
					list = list.filter((p) => matchFilter(p, { attribute, query: q, operator }));
				else if (q)
					list = list.filter(
						(p) =>
							p.id.includes(q) ||
							JSON.stringify(p.attributes).toLowerCase().includes(q.toLowerCase()),
					);
				return paged(
					sortBy(list, query.get('orderBy'), direction),
					pa.page,
					pa.size,
					true,
					personView,
				);
			},
		],
		// 9 create person v1 (deprecated): answers {id, type, attributes}
		[
			'POST',
			'/api/v1/persons',
			({ body }) => {
				const b = (body ?? {}) as Json;
				const err =
					v.idError(b.id) ??
					typeError(b.type, true) ??
					(b.attributes === undefined ? undefined : v.attributesError(b.attributes));
				if (err) return fail(400, err, true);
				if (find(String(b.id))) return fail(422, `Person with id ${b.id} already exists`, true);
				const p = store().newPerson(String(b.id), String(b.type), (b.attributes as Json) ?? {});
				store().persons.set(p.id, p);
				afterWrite(p);
				return ok({ id: p.id, type: p.type, attributes: p.attributes });
			},
		],
		// 10 fetch person
		[
			'GET',
			'/api/v1/persons/:personId',
			({ params }) => {
				const p = find(params.personId);
				return p ? ok(personView(p)) : notFound(params.personId);
			},
		],
		// 11 patch person v1 (deprecated): answers the person; status change → PERSON_STATUS_UPDATED
		[
			'PATCH',
			'/api/v1/persons/:personId',
			({ params, body }) => {
				const b = (body ?? {}) as Json;
				const err =
					v.idError(b.id) ??
					typeError(b.type, false) ??
					(b.status !== undefined && !v.PERSON_STATUSES.includes(String(b.status))
						? `status must be one of ${v.PERSON_STATUSES.join(', ')}`
						: undefined) ??
					(b.category !== undefined && !v.CATEGORIES.includes(String(b.category))
						? 'category must be COUNTERPARTY or CUSTOMER'
						: undefined) ??
					(b.attributes !== undefined ? v.attributesError(b.attributes) : undefined) ??
					(b.createdTime !== undefined
						? v.timestampError(b.createdTime, 'createdTime')
						: undefined);
				if (err) return fail(400, err);
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				if (b.attributes !== undefined)
					p.attributes = v.mergeAttributes(p.attributes, b.attributes as Json);
				if (b.type !== undefined) p.type = String(b.type);
				if (b.category !== undefined) p.category = String(b.category);
				if (b.snoozeConfiguration !== undefined)
					p.snoozeConfiguration = b.snoozeConfiguration as Json;
				if (Array.isArray(b.scenarioSnoozeConfigurations))
					p.scenarioSnoozeConfigurations = b.scenarioSnoozeConfigurations as Json[];
				if (b.status !== undefined && b.status !== p.status) {
					const t = now();
					const previous = p.status;
					const last = p.statuses[p.statuses.length - 1];
					if (last) last.endTime = t;
					p.status = String(b.status);
					p.statuses.push({
						id: store().nextId('status'),
						assigner: API_USER,
						status: p.status,
						startTime: t,
						endTime: null,
						createdTime: t,
					});
					ctx().hooks.emit('PERSON_STATUS_UPDATED', {
						personId: p.id,
						status: p.status,
						previousStatus: previous,
					});
				}
				if (b.attributes !== undefined || b.type !== undefined) afterWrite(p);
				return ok(personView(p));
			},
		],
		// 12 status history
		[
			'GET',
			'/api/v1/persons/:personId/statuses',
			({ params }) => {
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				let latest: { id: number; createdTime: string } | undefined;
				for (const a of store().screeningAlerts.values())
					if (a.personId === p.id && !a.transactionId) latest = a;
				const snoozeHistory = [p.snoozeConfiguration, ...p.scenarioSnoozeConfigurations]
					.filter(Boolean)
					.map((s) => ({ ...(s as Json), eventType: 'CREATE' }));
				return ok({
					statuses: p.statuses,
					snoozeHistory,
					latestSanctionCheck: latest
						? { sanctionAlertId: latest.id, createdTime: latest.createdTime }
						: null,
				});
			},
		],
		// 17 create note
		[
			'POST',
			'/api/v1/persons/:personId/notes',
			({ params, body }) => {
				const b = (body ?? {}) as Json;
				if (typeof b.content !== 'string' || !b.content.trim())
					return fail(400, 'content is required and must not be empty');
				if (b.id !== undefined && (!Number.isInteger(b.id) || (b.id as number) < 1))
					return fail(400, 'id must be an integer >= 1');
				if (b.createdTime !== undefined) {
					const te = v.timestampError(b.createdTime, 'createdTime');
					if (te) return fail(400, te);
				}
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				if (b.id !== undefined && store().notes.some((n) => n.id === b.id))
					return fail(422, `Note with id ${b.id} already exists`);
				const note = {
					id: b.id !== undefined ? (b.id as number) : store().nextId('note'),
					personId: p.id,
					content: b.content,
					createdTime: (b.createdTime as string) ?? now(),
				};
				store().notes.push(note);
				return ok({ id: note.id, content: note.content, createdTime: note.createdTime });
			},
		],
		// 20 person monitoring checks (ONLINE)
		[
			'POST',
			'/api/v1/persons/:personId/monitoring-checks',
			({ params, query }) => {
				const all = query.get('all-results');
				if (all !== null && all !== 'true' && all !== 'false')
					return fail(400, 'all-results must be true or false');
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				return ok({ results: ctx().monitoring.run('ONLINE', p, undefined, all === 'true') });
			},
		],
		// 28 person risk
		[
			'GET',
			'/api/v1/persons/:personId/risks',
			({ params }) => {
				const p = find(params.personId);
				if (!p) return notFound(params.personId);
				return ok({
					finalRisk: p.finalRisk,
					risks: p.risks,
					activeOverrideLevel: null,
					activeOverrideReason: null,
					finalRiskScore: p.finalRiskScore,
					finalRiskCreatedTime: p.finalRiskCreatedTime,
				});
			},
		],
		// 31 unresolved alerts of a person (deprecated)
		[
			'GET',
			'/api/v1/persons/:id/unresolved-alerts',
			({ params }) => {
				if (!find(params.id)) return notFound(params.id);
				return ok({
					hasUnresolvedAlerts: ctx().decisions.unresolved((a) => a.personId === params.id),
				});
			},
		],
	];
}
