import type { Json, MonitoringAlert, Person, Scenario, State, Transaction } from './state';
import { now } from './state';
import * as rules from './rules';
import type { Webhooks } from './webhooks';

/** An answer of the API: status, body (JSON unless `text`), optional headers. */
export interface Reply {
	status: number;
	body?: unknown;
	text?: boolean;
	headers?: Record<string, string>;
}

export const ok = (body?: unknown, status = 200): Reply => ({ status, body });
export const fail = (status: number, message: string, text = false): Reply =>
	text
		? { status, body: message, text: true }
		: { status, body: { status, error: ERRORS[status] ?? 'Error', message } };
const ERRORS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Payload Too Large', 422: 'Unprocessable Entity', 429: 'Too Many Requests' };

export interface Req {
	params: Record<string, string>;
	query: URLSearchParams;
	body: unknown;
}

const RISK_LEVELS = ['LOW', 'LOW_TO_MEDIUM', 'MEDIUM', 'MEDIUM_TO_HIGH', 'HIGH', 'UNACCEPTABLE'];

function paged<T>(items: T[], page: number, size: number, capped = false): Reply {
	const total = capped ? Math.min(items.length, 10_000) : items.length;
	if (capped && page * size >= 10_000) return fail(400, 'paging past the 10000th result is not possible');
	return ok({ number: page, size, total, content: items.slice(page * size, page * size + size) });
}

function pageArgs(q: URLSearchParams | Json): { page: number; size: number; error?: string } {
	const get = (k: string) => (q instanceof URLSearchParams ? q.get(k) ?? undefined : (q[k] as unknown));
	const page = get('page') === undefined ? 0 : Number(get('page'));
	const size = get('size') === undefined ? 20 : Number(get('size'));
	return { page, size, error: rules.pageError(page, size) };
}

function lengthError(value: unknown, field: string): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string' || value.length < 1 || value.length > 200) return `${field} must have 1..200 characters`;
	return undefined;
}

function personView(p: Person): Json {
	return {
		id: p.id,
		type: p.type,
		attributes: p.attributes,
		status: p.status,
		createdTime: p.createdTime,
		category: p.category,
		snoozeConfiguration: p.snoozeConfiguration,
		scenarioSnoozeConfigurations: p.scenarioSnoozeConfigurations,
	};
}

function txView(t: Transaction): Json {
	return { id: t.id, personId: t.personId, attributes: t.attributes, createdTime: t.createdTime };
}

export class Api {
	constructor(
		private state: State,
		private hooks: Webhooks,
	) {}

	private person(id: string): Person | undefined {
		return this.state.personVisible(id);
	}

	// ---------- risk ----------
	rescore(p: Person): void {
		const highRisk = ['IR', 'KP', 'SY'].includes(String(p.attributes.country ?? ''));
		const alerts = [...this.state.alerts.values()].filter((a) => a.personId === p.id && !String(a.status).startsWith('CLOSED')).length;
		const screening = [...this.state.screeningAlerts.values()].filter((a) => a.personId === p.id && a.status === 'CLOSED AS TRUE POSITIVE').length;
		let level = 0;
		const risks: Json[] = [];
		if (highRisk) {
			level = Math.max(level, 4);
			risks.push({ id: 1, level: 'HIGH', factor: 'COUNTRY', details: `country ${p.attributes.country} is high-risk`, weight: 1, createdTime: now() });
		}
		if (alerts > 0) {
			level = Math.max(level, Math.min(3, alerts + 1));
			risks.push({ id: 2, level: RISK_LEVELS[Math.min(3, alerts + 1)], factor: 'OPEN_ALERTS', details: `${alerts} open monitoring alert(s)`, weight: 0.5, createdTime: now() });
		}
		if (screening > 0) {
			level = 5;
			risks.push({ id: 3, level: 'UNACCEPTABLE', factor: 'SCREENING_TRUE_POSITIVE', details: 'confirmed screening match', weight: 1, createdTime: now() });
		}
		const finalRisk = RISK_LEVELS[level];
		const previous = p.finalRisk;
		p.risks = risks;
		p.finalRiskScore = level * 20 + 10;
		if (finalRisk !== previous) {
			p.finalRisk = finalRisk;
			p.finalRiskCreatedTime = now();
			this.hooks.emit('FINAL_RISK_UPDATED', { personId: p.id, finalRisk, previousRisk: previous, finalRiskScore: p.finalRiskScore });
		}
	}

	// ---------- monitoring ----------
	private evaluate(s: Scenario, p: Person, tx?: Transaction): boolean {
		const r = s.rule;
		if (r.kind === 'amountOver') return !!tx && Number(tx.attributes.amount) > r.threshold;
		if (r.kind === 'countryIn') return r.countries.includes(String(p.attributes.country ?? ''));
		if (r.kind === 'attributeEquals') return String((tx ?? p).attributes[r.key] ?? '') === r.value;
		if (r.kind === 'velocity' && tx) {
			const since = Date.parse(String(tx.attributes.timestamp ?? tx.createdTime)) - r.windowMinutes * 60_000;
			const ids = this.state.transactionsByPerson.get(tx.personId) ?? [];
			const recent = ids.filter((id) => Date.parse(String(this.state.transactions.get(id)?.attributes.timestamp ?? '')) >= since).length;
			return recent > r.count;
		}
		return false;
	}

	/** Runs scenarios of one type; creates one alert per triggered scenario; returns result items. */
	private monitor(type: 'ONLINE' | 'OFFLINE', p: Person, tx: Transaction | undefined, allResults: boolean): Json[] {
		const entity = tx ? 'TRANSACTION' : 'PERSON';
		const results: Json[] = [];
		const threshold = this.state.config.monitoringScoreThreshold;
		for (const s of this.state.scenarios.filter((x) => x.type === type && x.entity === entity)) {
			if (!this.evaluate(s, p, tx)) continue;
			const item: Json = { reason: s.name, details: this.details(s, p, tx), score: s.score, weight: s.weight, scenarioType: s.type, scenarioHandle: s.handle, alertId: null };
			if (s.score >= threshold) {
				const alert: MonitoringAlert = {
					id: this.state.nextId('alert'),
					priority: s.score >= 90 ? 'HIGH' : 'LOW',
					status: 'NEW',
					personId: p.id,
					transactionId: tx?.id ?? null,
					entityType: entity,
					scenarioType: type,
					results: [item],
					createdTime: now(),
					statuses: [{ id: this.state.nextId('status'), assigner: null, status: 'NEW', statusId: 1, createdTime: now(), startTime: now(), endTime: null }],
					notes: [],
				};
				item.alertId = alert.id;
				this.state.alerts.set(alert.id, alert);
				this.hooks.emit('ALERT_CREATED', {
					alertId: alert.id,
					personId: p.id,
					transactionId: tx?.id ?? null,
					entityType: entity,
					scenarioType: type,
					hits: [{ reason: item.reason, details: item.details, scenarioHandle: s.handle }],
				});
				results.push(item);
			} else if (allResults) {
				results.push(item);
			}
		}
		if (results.some((r) => r.alertId !== null)) this.rescore(p);
		return results;
	}

	private details(s: Scenario, p: Person, tx?: Transaction): string {
		if (s.rule.kind === 'amountOver') return `amount ${tx?.attributes.amount} > ${s.rule.threshold}`;
		if (s.rule.kind === 'countryIn') return `country ${p.attributes.country} in ${s.rule.countries.join(',')}`;
		return s.name;
	}

	// ---------- screening ----------
	private screenNames(names: string[]): Json[] {
		const threshold = this.state.config.fuzzyThreshold;
		const goodNames = [...this.state.customLists.values()]
			.filter((l) => l.goodlist)
			.flatMap((l) => [...l.records.values()].filter((r) => !r.archived).map((r) => String(r.attributes.name ?? '')));
		const hits: Json[] = [];
		for (const input of names.filter((n) => n.trim().length >= 3)) {
			for (const rec of this.state.screeningList) {
				const score = Math.max(...[rec.name, ...rec.aliases].map((n) => rules.nameScore(input, n)));
				if (score < threshold) continue;
				const cleared = goodNames.some((g) => rules.nameScore(g, rec.name) >= 95 && rules.nameScore(g, input) >= 95);
				hits.push({ input, rec, score, cleared });
			}
			for (const list of this.state.customLists.values()) {
				if (list.goodlist) continue;
				for (const r of list.records.values()) {
					if (r.archived || typeof r.attributes.name !== 'string') continue;
					const score = rules.nameScore(input, r.attributes.name);
					if (score >= threshold) {
						hits.push({
							input,
							score,
							cleared: false,
							rec: { id: r.id, name: r.attributes.name, aliases: [], type: 'PERSON', checkType: 'SANCTION', listCode: `CUSTOM-${list.id}`, listName: list.name, countries: [], groups: [] },
						});
					}
				}
			}
		}
		return hits;
	}

	private screen(p: Person | undefined, tx: Transaction | undefined): Reply {
		const names: string[] = [];
		const attrs = (tx ?? p)?.attributes ?? {};
		if (tx) {
			for (const k of ['sender_name', 'receiver_name']) if (typeof attrs[k] === 'string') names.push(attrs[k] as string);
		} else if (p) {
			const full = [attrs.first_name, attrs.last_name].filter((x) => typeof x === 'string').join(' ');
			if (full) names.push(full);
			if (typeof attrs.company_name === 'string') names.push(attrs.company_name);
			if (Array.isArray(attrs.shareholders)) for (const s of attrs.shareholders as Json[]) if (typeof s?.name === 'string') names.push(s.name as string);
		}
		const found = this.screenNames(names) as Array<{ input: string; rec: Json; score: number; cleared: boolean }>;
		const open = found.filter((h) => !h.cleared);
		if (!found.length) return ok({ matches: [] });
		const alert = {
			id: this.state.nextId('screening'),
			personId: p?.id ?? tx?.personId ?? null,
			transactionId: tx?.id ?? null,
			status: open.length ? 'NEW' : 'FILTERED',
			createdTime: now(),
			statuses: [],
			hits: found.map((h, i) => ({
				id: `hit-${i + 1}`,
				listName: h.rec.listName,
				listProvider: 'SYNTHETIC_PROVIDER',
				listType: h.rec.checkType,
				score: h.score,
				cleared: h.cleared,
				attributes: {
					name: h.rec.name,
					aliases: (h.rec.aliases as string[]).join('; '),
					mainList: h.rec.listCode,
					type: h.rec.type,
					recordDate: 1735689600,
					referenceGroupCodes: h.rec.groups,
					providers: ['SYNTHETIC_PROVIDER'],
					identificationDetails: h.rec.dob ? { dob: h.rec.dob } : {},
					descriptions: {},
					notes: '',
					overview: JSON.stringify({ countries: h.rec.countries }),
					roles: [],
					associations: [],
				},
			})),
		};
		this.state.screeningAlerts.set(alert.id, alert);
		this.hooks.emit('SCREENING_ALERT_CREATED', { alertId: alert.id, personId: alert.personId, transactionId: alert.transactionId, hitCount: alert.hits.length, status: alert.status });
		if (!open.length) return ok({ matches: [] });
		return ok({
			matches: open.map((h) => ({
				alertId: alert.id,
				screeningFlowId: '6a7b8c9d-0e1f-4a2b-8c3d-4e5f60718293',
				inputData: h.input,
				matchData: JSON.stringify({ id: h.rec.id, name: h.rec.name, dob: h.rec.dob ?? null }),
				sanctionList: h.rec.listName,
				listCode: h.rec.listCode,
				score: h.score,
				checkType: h.rec.checkType,
				highlight: `<em>${h.rec.name}</em>`,
				referenceGroupCodes: h.rec.groups,
				providers: ['SYNTHETIC_PROVIDER'],
			})),
		});
	}

	// ---------- routes ----------
	routes(): Array<[string, string, (r: Req) => Reply | Promise<Reply>]> {
		const s = this.state;
		return [
			// 3 create person v2
			['POST', '/api/v2/persons', ({ body }) => {
				const b = (body ?? {}) as Json;
				const err = rules.idError(b.id) ?? (rules.PERSON_TYPES.includes(String(b.type)) ? undefined : 'type is required and must be a valid person type') ?? (b.attributes === undefined ? 'attributes is required' : rules.attributesError(b.attributes));
				if (err) return fail(400, err, true);
				if (this.person(String(b.id))) return fail(422, `Person with id ${b.id} already exists`, true);
				const p: Person = {
					id: String(b.id), type: String(b.type), attributes: b.attributes as Json, status: 'NEW', category: 'CUSTOMER', createdTime: now(),
					snoozeConfiguration: null, scenarioSnoozeConfigurations: [], statuses: [{ id: s.nextId('status'), assigner: null, status: 'NEW', startTime: now(), endTime: null, createdTime: now() }],
					finalRisk: 'LOW', finalRiskScore: 10, finalRiskCreatedTime: now(), risks: [],
				};
				s.persons.set(p.id, p);
				this.monitor('OFFLINE', p, undefined, false);
				this.rescore(p);
				return ok(undefined);
			}],
			// 4 patch v2
			['PATCH', '/api/v2/persons/:personId', ({ params, body }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				const b = (body ?? {}) as Json;
				if (b.type !== undefined && !rules.PERSON_TYPES.includes(String(b.type))) return fail(400, 'type must be a valid person type');
				const err = b.attributes === undefined ? 'attributes is required' : rules.attributesError(b.attributes);
				if (err) return fail(400, err);
				if (b.type) p.type = String(b.type);
				p.attributes = rules.mergeAttributes(p.attributes, b.attributes as Json);
				this.monitor('OFFLINE', p, undefined, false);
				this.rescore(p);
				return ok(undefined);
			}],
			// 5 update v2
			['PUT', '/api/v2/persons/:personId', ({ params, body }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				const b = (body ?? {}) as Json;
				if (!rules.PERSON_TYPES.includes(String(b.type))) return fail(400, 'type is required and must be a valid person type');
				const err = b.attributes === undefined ? 'attributes is required' : rules.attributesError(b.attributes);
				if (err) return fail(400, err);
				p.type = String(b.type);
				p.attributes = b.attributes as Json;
				this.monitor('OFFLINE', p, undefined, false);
				this.rescore(p);
				return ok(undefined);
			}],
			// 6 search v2
			['POST', '/api/v2/persons/search', ({ body }) => {
				const b = (body ?? {}) as Json;
				const pa = pageArgs(b);
				if (b.page === undefined || b.size === undefined) return fail(400, 'page and size are required');
				if (pa.error) return fail(400, pa.error);
				if (!Array.isArray(b.filters) || b.filters.length > 5) return fail(400, 'filters must be an array of 0..5 items');
				if (!['AND', 'OR'].includes(String(b.logicalOperator))) return fail(400, 'logicalOperator must be AND or OR');
				if (!['COUNTERPARTY', 'CUSTOMER'].includes(String(b.category))) return fail(400, 'category must be COUNTERPARTY or CUSTOMER');
				const e = lengthError(b.orderBy, 'orderBy');
				if (e) return fail(400, e);
				if (b.direction !== undefined && !['ASC', 'DESC'].includes(String(b.direction))) return fail(400, 'direction must be ASC or DESC');
				for (const f of b.filters as Json[]) {
					if (!rules.OPERATORS.includes(String(f.operator))) return fail(400, `unknown operator ${f.operator}`);
					const qe = !['EXISTS', 'NOT_EXISTS'].includes(String(f.operator)) ? lengthError(f.query, 'query') : undefined;
					if (qe) return fail(400, qe);
				}
				let list = [...s.persons.keys()].map((id) => this.person(id)).filter((p): p is Person => !!p && p.category === b.category);
				const filters = b.filters as Json[];
				if (filters.length) {
					list = list.filter((p) => {
						const results = filters.map((f) => {
							const r = matchFilter(p, f);
							return f.not ? !r : r;
						});
						return b.logicalOperator === 'AND' ? results.every(Boolean) : results.some(Boolean);
					});
				}
				list = sortBy(list, b.orderBy as string | undefined, b.direction as string | undefined);
				return paged(list.map(personView), pa.page, pa.size, true);
			}],
			// 7 delete
			['DELETE', '/api/v2/persons/:personId', ({ params }) => {
				if (!s.config.personDeletionEnabled) return fail(403, 'Person deletion through the API is not enabled for this organisation');
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				if (p.deleteAt === undefined) p.deleteAt = Date.now() + s.config.deletionDelayMs;
				return ok(undefined, 202);
			}],
			// 8 deprecated list
			['GET', '/api/v1/persons', ({ query }) => {
				if (query.get('page') === null || query.get('size') === null) return fail(400, 'page and size are required');
				const pa = pageArgs(query);
				if (pa.error) return fail(400, pa.error);
				const q = query.get('query');
				const e = lengthError(q ?? undefined, 'query') ?? lengthError(query.get('orderBy') ?? undefined, 'orderBy');
				if (e) return fail(400, e);
				let list = [...s.persons.keys()].map((id) => this.person(id)).filter((p): p is Person => !!p);
				const category = query.get('category');
				if (category) list = list.filter((p) => p.category === category);
				const attribute = query.get('attribute');
				if (q && attribute) list = list.filter((p) => matchFilter(p, { attribute, query: q, operator: query.get('operator') ?? 'IS_EXACTLY' }));
				return paged(sortBy(list, query.get('orderBy') ?? undefined, query.get('direction') ?? undefined).map(personView), pa.page, pa.size, true);
			}],
			// 9 create v1
			['POST', '/api/v1/persons', ({ body }) => {
				const b = (body ?? {}) as Json;
				const err = rules.idError(b.id) ?? (rules.PERSON_TYPES.includes(String(b.type)) ? undefined : 'type is required') ?? (b.attributes === undefined ? undefined : rules.attributesError(b.attributes));
				if (err) return fail(400, err, true);
				if (this.person(String(b.id))) return fail(422, `Person with id ${b.id} already exists`, true);
				const p: Person = {
					id: String(b.id), type: String(b.type), attributes: (b.attributes as Json) ?? {}, status: 'NEW', category: 'CUSTOMER', createdTime: now(),
					snoozeConfiguration: null, scenarioSnoozeConfigurations: [], statuses: [], finalRisk: 'LOW', finalRiskScore: 10, finalRiskCreatedTime: now(), risks: [],
				};
				s.persons.set(p.id, p);
				this.monitor('OFFLINE', p, undefined, false);
				return ok({ id: p.id, type: p.type, attributes: p.attributes });
			}],
			// 10 get
			['GET', '/api/v1/persons/:personId', ({ params }) => {
				const p = this.person(params.personId);
				return p ? ok(personView(p)) : fail(404, `Person ${params.personId} not found`);
			}],
			// 11 patch v1
			['PATCH', '/api/v1/persons/:personId', ({ params, body }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				const b = (body ?? {}) as Json;
				if (rules.idError(b.id)) return fail(400, 'id is required');
				if (b.status !== undefined && !rules.PERSON_STATUSES.includes(String(b.status))) return fail(400, 'status must be a person status');
				if (b.category !== undefined && !['COUNTERPARTY', 'CUSTOMER'].includes(String(b.category))) return fail(400, 'category must be COUNTERPARTY or CUSTOMER');
				if (b.attributes !== undefined) {
					const err = rules.attributesError(b.attributes);
					if (err) return fail(400, err);
					p.attributes = rules.mergeAttributes(p.attributes, b.attributes as Json);
				}
				if (b.type) p.type = String(b.type);
				if (b.category) p.category = String(b.category);
				if (b.snoozeConfiguration !== undefined) p.snoozeConfiguration = b.snoozeConfiguration as Json;
				if (Array.isArray(b.scenarioSnoozeConfigurations)) p.scenarioSnoozeConfigurations = b.scenarioSnoozeConfigurations as Json[];
				if (b.status && b.status !== p.status) {
					const previous = p.status;
					const last = p.statuses[p.statuses.length - 1];
					if (last) last.endTime = now();
					p.status = String(b.status);
					p.statuses.push({ id: s.nextId('status'), assigner: { id: 1, email: 'api@client', name: 'API client' }, status: p.status, startTime: now(), endTime: null, createdTime: now() });
					this.hooks.emit('PERSON_STATUS_UPDATED', { personId: p.id, status: p.status, previousStatus: previous });
				}
				return ok(personView(p));
			}],
			// 12 status history
			['GET', '/api/v1/persons/:personId/statuses', ({ params }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				const sanction = [...s.screeningAlerts.values()].filter((a) => a.personId === p.id).pop();
				return ok({ statuses: p.statuses, snoozeHistory: [], latestSanctionCheck: sanction ? { sanctionAlertId: sanction.id, createdTime: sanction.createdTime } : null });
			}],
			// 13 person transactions
			['GET', '/api/v1/persons/:personId/transactions', ({ params, query }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				const pa = pageArgs(query);
				if (pa.error) return fail(400, pa.error);
				const e = lengthError(query.get('query') ?? undefined, 'query') ?? lengthError(query.get('orderBy') ?? undefined, 'orderBy');
				if (e) return fail(400, e);
				let list = (s.transactionsByPerson.get(p.id) ?? []).map((id) => s.transactions.get(id) as Transaction);
				const q = query.get('query');
				if (q) list = list.filter((t) => JSON.stringify(t.attributes).includes(q) || t.id.includes(q));
				const orderBy = query.get('orderBy');
				if (orderBy) {
					const dir = query.get('direction') === 'DESC' ? -1 : 1;
					list = [...list].sort((a, b) => String(a.attributes[orderBy] ?? '').localeCompare(String(b.attributes[orderBy] ?? '')) * dir);
				}
				return paged(list.map(txView), pa.page, pa.size, true);
			}],
			// 14 create transaction
			['POST', '/api/v1/persons/:personId/transactions', ({ params, body }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`, true);
				const b = (body ?? {}) as Json;
				const attrs = b.attributes as Json;
				const err = rules.idError(b.id) ?? rules.attributesError(attrs ?? {}) ?? rules.amountError(attrs?.amount) ?? (attrs?.timestamp !== undefined ? rules.timestampError(attrs.timestamp) : undefined);
				if (err) return fail(400, err, true);
				if (s.transactions.has(String(b.id))) return fail(422, `Transaction with id ${b.id} already exists`, true);
				const tx: Transaction = { id: String(b.id), personId: p.id, attributes: attrs, createdTime: now() };
				s.addTransaction(tx);
				this.monitor('OFFLINE', p, tx, false);
				this.rescore(p);
				return ok({ id: tx.id, personId: tx.personId, attributes: tx.attributes });
			}],
			// 15 get transaction
			['GET', '/api/v1/persons/:personId/transactions/:transactionId', ({ params }) => {
				const t = s.transactions.get(params.transactionId);
				if (!this.person(params.personId) || !t || t.personId !== params.personId) return fail(404, `Transaction ${params.transactionId} not found`);
				return ok({ id: t.id, personId: t.personId, attributes: t.attributes });
			}],
			// 16 update transaction
			['PATCH', '/api/v1/persons/:personId/transactions/:transactionId', ({ params, body }) => {
				const t = s.transactions.get(params.transactionId);
				if (!this.person(params.personId) || !t || t.personId !== params.personId) return fail(404, `Transaction ${params.transactionId} not found`);
				const b = (body ?? {}) as Json;
				if (rules.idError(b.id)) return fail(400, 'id is required');
				const err = rules.attributesError(b.attributes ?? {});
				if (err) return fail(400, err);
				for (const [k, v] of Object.entries((b.attributes ?? {}) as Json)) {
					if (k === 'status' || !(k in t.attributes)) t.attributes[k] = v;
				}
				return ok(txView(t));
			}],
			// 17 note
			['POST', '/api/v1/persons/:personId/notes', ({ params, body }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				const b = (body ?? {}) as Json;
				if (typeof b.content !== 'string' || !b.content.trim()) return fail(400, 'content must not be empty');
				if (b.createdTime !== undefined && rules.timestampError(b.createdTime, 'createdTime')) return fail(400, 'createdTime must be ISO-8601');
				if (b.id !== undefined && s.notes.some((n) => n.id === Number(b.id))) return fail(422, `Note ${b.id} already exists`);
				const note = { id: b.id !== undefined ? Number(b.id) : s.nextId('note') + 100000, personId: p.id, content: b.content, createdTime: (b.createdTime as string) ?? now() };
				s.notes.push(note);
				return ok({ id: note.id, content: note.content, createdTime: note.createdTime });
			}],
			// 20 person monitoring
			['POST', '/api/v1/persons/:personId/monitoring-checks', ({ params, query }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				return ok({ results: this.monitor('ONLINE', p, undefined, query.get('all-results') === 'true') });
			}],
			// 21 transaction monitoring
			['POST', '/api/v1/transactions/:transactionId/monitoring-checks', ({ params }) => {
				const t = s.transactions.get(params.transactionId);
				const p = t && this.person(t.personId);
				if (!t || !p) return fail(404, `Transaction ${params.transactionId} not found`);
				return ok({ results: this.monitor('ONLINE', p, t, false) });
			}],
			// 22 monitoring alert
			['GET', '/api/v1/alerts/:alertId', ({ params }) => {
				const a = s.alerts.get(Number(params.alertId));
				if (!/^\d+$/.test(params.alertId) || Number(params.alertId) < 1) return fail(400, 'alertId must be an integer >= 1');
				if (!a) return fail(404, `Alert ${params.alertId} not found`);
				const p = s.persons.get(a.personId);
				const t = a.transactionId ? s.transactions.get(a.transactionId) : undefined;
				return ok({
					id: a.id, priority: a.priority, status: a.status, statusId: s.config.alertStatuses.indexOf(a.status) + 1,
					person: p ? personView(p) : null, score: { results: a.results }, assignee: null, createdTime: a.createdTime,
					assignments: [], statuses: a.statuses, notes: a.notes, transaction: t ? txView(t) : null, entityType: a.entityType,
				});
			}],
			// 23 screen transaction
			['POST', '/api/v1/transactions/:id/screening-checks', ({ params }) => {
				const t = s.transactions.get(params.id);
				if (!t) return fail(404, `Transaction ${params.id} not found`);
				return this.screen(this.person(t.personId), t);
			}],
			// 24 screen person
			['POST', '/api/v1/persons/:id/screening-checks', ({ params }) => {
				const p = this.person(params.id);
				if (!p) return fail(404, `Person ${params.id} not found`);
				return this.screen(p, undefined);
			}],
			// 25 screening search
			['POST', '/api/v2/screening-searches', ({ body }) => {
				const b = (body ?? {}) as Json;
				if (typeof b.name !== 'string' || b.name.trim().length < 3) return fail(400, 'name must have at least 3 characters');
				if (!['PERSON', 'ENTITY', 'ALL'].includes(String(b.recordEntityType))) return fail(400, 'recordEntityType must be PERSON, ENTITY or ALL');
				if (!Array.isArray(b.configurations)) return fail(400, 'configurations is required');
				const configs = b.configurations as Json[];
				const groups = configs.flatMap((c) => (Array.isArray(c.selectorGroupCodes) ? (c.selectorGroupCodes as string[]) : []));
				const minScore = Math.max(0, ...configs.map((c) => Number(c.score ?? 0)).filter((n) => Number.isFinite(n)));
				const threshold = minScore > 0 ? minScore : s.config.fuzzyThreshold;
				const out: Json[] = [];
				for (const rec of s.screeningList) {
					if (b.recordEntityType !== 'ALL' && rec.type !== b.recordEntityType) continue;
					if (groups.length && !rec.groups.some((g) => groups.includes(g))) continue;
					const score = Math.max(...[rec.name, ...rec.aliases].map((n) => rules.nameScore(b.name as string, n)));
					if (score < threshold) continue;
					out.push({
						id: rec.id, type: rec.type, recordDate: '2025-01-01', screeningType: rec.checkType, matchData: JSON.stringify({ name: rec.name }),
						highlight: `<em>${rec.name}</em>`, score, sanctionList: rec.listName, matchProvider: 'SYNTHETIC_PROVIDER',
						identities: [{ value: rec.name, type: 'NAME' }, ...rec.aliases.map((a) => ({ value: a, type: 'ALIAS' }))],
						countryRelations: rec.countries.map((c) => ({ countryCode: c, relationType: 'COUNTRY' })),
						representedInLists: [{ code: rec.listCode, name: rec.listName }], descriptions: [], identificationDetails: rec.dob ? { dob: rec.dob } : {},
					});
				}
				return ok(out.sort((x, y) => Number(y.score) - Number(x.score)));
			}],
			// 26 list groups
			['GET', '/api/v1/screening-list-groups', () => ok(s.listGroups)],
			// 27 hits
			['GET', '/api/v1/screening-alerts/:screeningAlertId/hits', ({ params, query }) => {
				if (!/^\d+$/.test(params.screeningAlertId) || Number(params.screeningAlertId) < 1) return fail(400, 'screeningAlertId must be an integer >= 1');
				const a = s.screeningAlerts.get(Number(params.screeningAlertId));
				if (!a) return fail(404, `Screening alert ${params.screeningAlertId} not found`);
				const pa = pageArgs(query);
				if (pa.error) return fail(400, pa.error);
				return paged(a.hits, pa.page, pa.size);
			}],
			// 28 risk
			['GET', '/api/v1/persons/:personId/risks', ({ params }) => {
				const p = this.person(params.personId);
				if (!p) return fail(404, `Person ${params.personId} not found`);
				return ok({ finalRisk: p.finalRisk, risks: p.risks, activeOverrideLevel: null, activeOverrideReason: null, finalRiskScore: p.finalRiskScore, finalRiskCreatedTime: p.finalRiskCreatedTime });
			}],
			// 29 alert status
			['PUT', '/api/v1/alerts/status', ({ body }) => this.updateStatus((body ?? {}) as Json)],
			// 30 manual alerts
			['POST', '/api/v1/manual-alerts', ({ body }) => {
				const b = (body ?? {}) as Json;
				if (typeof b.personId !== 'string' || !b.personId) return fail(400, 'personId is required');
				if (!rules.RATIONALES.includes(String(b.rationale))) return fail(400, 'rationale must be a manual alert rationale');
				if (b.rationaleComment !== undefined && String(b.rationaleComment).length > 1000) return fail(400, 'rationaleComment may have at most 1000 characters');
				if (!this.person(b.personId)) return fail(404, `Person ${b.personId} not found`);
				if (b.transactionId && !s.transactions.has(String(b.transactionId))) return fail(404, `Transaction ${b.transactionId} not found`);
				const a = { id: s.nextId('manual'), personId: b.personId, transactionId: b.transactionId as string | undefined, rationale: String(b.rationale), rationaleComment: b.rationaleComment as string | undefined, status: 'NEW', createdBy: 'api-client', createdTime: now(), updatedTime: now(), notes: [] as Json[] };
				s.manualAlerts.set(a.id, a);
				this.hooks.emit('MANUAL_ALERT_CREATED', { alertId: a.id, personId: a.personId, transactionId: a.transactionId ?? null, rationale: a.rationale });
				return ok(manualView(a));
			}],
			['PUT', '/api/v1/manual-alerts/:alertId', ({ params, body }) => {
				if (!/^\d+$/.test(params.alertId) || Number(params.alertId) < 1) return fail(400, 'alertId must be an integer >= 1');
				const a = s.manualAlerts.get(Number(params.alertId));
				if (!a) return fail(404, `Manual alert ${params.alertId} not found`);
				const b = (body ?? {}) as Json;
				if (!rules.RATIONALES.includes(String(b.rationale))) return fail(400, 'rationale must be a manual alert rationale');
				if (b.rationaleComment !== undefined && String(b.rationaleComment).length > 1000) return fail(400, 'rationaleComment may have at most 1000 characters');
				if (b.note !== undefined && (typeof b.note !== 'string' || !b.note.trim())) return fail(400, 'note must not be empty');
				if (b.status !== undefined && !s.config.alertStatuses.includes(String(b.status))) return fail(404, `Status ${b.status} not found`);
				a.rationale = String(b.rationale);
				if (b.rationaleComment !== undefined) a.rationaleComment = String(b.rationaleComment);
				if (b.status !== undefined && b.status !== a.status) {
					const previous = a.status;
					a.status = String(b.status);
					if (b.note) a.notes.push({ content: b.note, createdTime: now() });
					this.hooks.emit('MANUAL_ALERT_STATUS_UPDATED', { alertId: a.id, personId: a.personId, status: a.status, previousStatus: previous });
				}
				a.updatedTime = now();
				return ok(manualView(a));
			}],
			// 31 unresolved (deprecated)
			['GET', '/api/v1/persons/:id/unresolved-alerts', ({ params }) => {
				if (!this.person(params.id)) return fail(404, `Person ${params.id} not found`);
				return ok({ hasUnresolvedAlerts: this.unresolved((a) => a.personId === params.id) });
			}],
			['GET', '/api/v1/transactions/:id/unresolved-alerts', ({ params }) => {
				if (!s.transactions.has(params.id)) return fail(404, `Transaction ${params.id} not found`);
				return ok({ hasUnresolvedAlerts: this.unresolved((a) => a.transactionId === params.id) });
			}],
		];
	}

	private unresolved(match: (a: { personId: string | null; transactionId?: string | null; status: string }) => boolean): boolean {
		const open = (status: string) => !status.startsWith('CLOSED') && status !== 'FILTERED';
		return [...this.state.alerts.values(), ...this.state.screeningAlerts.values(), ...this.state.manualAlerts.values()].some(
			(a) => match(a as never) && open(a.status),
		);
	}

	private updateStatus(b: Json): Reply {
		const s = this.state;
		if (!rules.ALERT_TYPES.includes(String(b.alertType))) return fail(400, 'alertType must be MONITORING, SCREENING, BRIDGE or MANUAL');
		if (typeof b.alertId !== 'number' || !Number.isInteger(b.alertId) || b.alertId < 0) return fail(400, 'alertId must be an integer >= 0');
		if (typeof b.status !== 'string' || !b.status.trim()) return fail(400, 'status must not be empty');
		if (b.note !== undefined && (typeof b.note !== 'string' || !b.note.trim())) return fail(400, 'note must not be empty');
		if (!s.config.alertStatuses.includes(b.status)) return fail(404, `Status ${b.status} not found`);
		const id = b.alertId;
		const entry = { id: s.nextId('status'), assigner: { id: 1, email: 'api@client', name: 'API client' }, status: b.status, createdTime: now(), startTime: now(), endTime: null };
		if (b.alertType === 'MONITORING' || b.alertType === 'BRIDGE') {
			const a = s.alerts.get(id);
			if (!a) return fail(404, `Alert ${id} not found`);
			const previous = a.status;
			a.status = b.status;
			a.statuses.push({ ...entry, statusId: s.config.alertStatuses.indexOf(b.status) + 1 });
			if (b.note) a.notes.push({ id: s.nextId('note'), content: b.note, createdTime: now(), alertId: a.id });
			this.hooks.emit('ALERT_STATUS_UPDATED', { alertId: a.id, personId: a.personId, transactionId: a.transactionId, status: a.status, previousStatus: previous });
			const p = s.persons.get(a.personId);
			if (p) {
				this.rescore(p);
				this.decisions(p.id, a.transactionId);
			}
		} else if (b.alertType === 'SCREENING') {
			const a = s.screeningAlerts.get(id);
			if (!a) return fail(404, `Screening alert ${id} not found`);
			const previous = a.status;
			a.status = b.status;
			a.statuses.push(entry);
			this.hooks.emit('SCREENING_ALERT_STATUS_UPDATED', { alertId: a.id, personId: a.personId, transactionId: a.transactionId, status: a.status, previousStatus: previous });
			const p = a.personId ? s.persons.get(a.personId) : undefined;
			if (p) {
				this.rescore(p);
				this.decisions(p.id, a.transactionId);
			}
		} else {
			const a = s.manualAlerts.get(id);
			if (!a) return fail(404, `Manual alert ${id} not found`);
			const previous = a.status;
			a.status = b.status;
			if (b.note) a.notes.push({ content: b.note, createdTime: now() });
			this.hooks.emit('MANUAL_ALERT_STATUS_UPDATED', { alertId: a.id, personId: a.personId, status: a.status, previousStatus: previous });
		}
		return ok(undefined);
	}

	/** Decision rules: PERSON_CLEARED / TRANSACTION_CLEARED when every alert of the entity is closed. */
	private decisions(personId: string, transactionId: string | null): void {
		const closed = (st: string) => st.startsWith('CLOSED') || st === 'FILTERED';
		const all = [...this.state.alerts.values(), ...this.state.screeningAlerts.values()];
		if (all.filter((a) => a.personId === personId).every((a) => closed(a.status))) this.hooks.emit('PERSON_CLEARED', { personId });
		if (transactionId && all.filter((a) => a.transactionId === transactionId).every((a) => closed(a.status))) {
			this.hooks.emit('TRANSACTION_CLEARED', { personId, transactionId });
		}
	}
}

function manualView(a: { id: number; personId: string; transactionId?: string; rationale: string; rationaleComment?: string; status: string; createdBy: string; createdTime: string; updatedTime: string }): Json {
	const { id, personId, transactionId, rationale, rationaleComment, status, createdBy, createdTime, updatedTime } = a;
	return { id, personId, transactionId: transactionId ?? null, rationale, rationaleComment: rationaleComment ?? null, status, createdBy, createdTime, updatedTime };
}

function valueOf(p: Person, attribute: string): unknown {
	if (attribute in p) return (p as unknown as Json)[attribute];
	return p.attributes[attribute];
}

function matchFilter(p: Person, f: Json): boolean {
	const v = valueOf(p, String(f.attribute ?? ''));
	const q = String(f.query ?? '');
	const text = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
	const lower = text.toLowerCase();
	switch (f.operator) {
		case 'IS_EXACTLY': return text === q;
		case 'CONTAINS': return lower.includes(q.toLowerCase());
		case 'STARTS_WITH': return lower.startsWith(q.toLowerCase());
		case 'ENDS_WITH': return lower.endsWith(q.toLowerCase());
		case 'CONTAINS_WORD': return lower.split(/\W+/).includes(q.toLowerCase());
		case 'GT': return Number(text) > Number(q);
		case 'GTE': return Number(text) >= Number(q);
		case 'LT': return Number(text) < Number(q);
		case 'LTE': return Number(text) <= Number(q);
		case 'EXISTS': return v !== undefined && v !== null && text !== '';
		case 'NOT_EXISTS': return v === undefined || v === null || text === '';
		default: return false;
	}
}

function sortBy(list: Person[], orderBy?: string, direction?: string): Person[] {
	if (!orderBy) return list;
	const dir = direction === 'DESC' ? -1 : 1;
	return [...list].sort((a, b) => String(valueOf(a, orderBy) ?? '').localeCompare(String(valueOf(b, orderBy) ?? '')) * dir);
}
