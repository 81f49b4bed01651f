import { randomUUID } from 'node:crypto';

import type { Ctx } from './context';
import { nameScore } from './fuzzy';
import { fail, ok, paged, type Reply, type RouteDef } from './http';
import { closed } from './risk';
import {
	now,
	type CustomList,
	type Json,
	type ListRecord,
	type Person,
	type ScreeningAlert,
	type Transaction,
} from './store';
import { intIdError, pageArgs } from './validation';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROVIDER = 'SYNTHETIC_PROVIDER';
const RECORD_DATE = 1735689600; // 2025-01-01T00:00:00Z

interface Input {
	field: string;
	value: string;
	kind: 'name' | 'account';
}

interface Found {
	key: string;
	input: Input;
	score: number;
	cleared: boolean;
	rec: ListRecord;
}

/** Values of the configured screening fields: `a+b` joins two attributes, `arr.key` reads `key` of each item of `arr`. */
function inputsOf(attrs: Json, fields: string[]): Input[] {
	const out: Input[] = [];
	for (const f of fields) {
		if (f.includes('+')) {
			const v = f
				.split('+')
				.map((k) => attrs[k])
				.filter((x) => typeof x === 'string' && x.trim())
				.join(' ');
			if (v) out.push({ field: f, value: v, kind: 'name' });
		} else if (f.includes('.')) {
			const [arr, key] = f.split('.');
			const items = attrs[arr];
			if (Array.isArray(items))
				for (const it of items as Json[])
					if (it && typeof it[key] === 'string')
						out.push({ field: f, value: it[key] as string, kind: 'name' });
		} else if (typeof attrs[f] === 'string' && (attrs[f] as string).trim()) {
			out.push({
				field: f,
				value: attrs[f] as string,
				kind: /account|iban/i.test(f) ? 'account' : 'name',
			});
		}
	}
	return out;
}

const compact = (s: string) => s.replace(/\s+/g, '').toUpperCase();

/** A custom-list record seen as a list record (for hits and matches). */
function customRecord(list: CustomList, r: { id: string; attributes: Json }): ListRecord {
	return {
		id: r.id,
		name: String(r.attributes.name ?? r.id),
		aliases: [],
		type: 'PERSON',
		checkType: 'SANCTION',
		listCode: `CUSTOM_${list.id}`,
		listName: list.name,
		countries: typeof r.attributes.country === 'string' ? [r.attributes.country] : [],
		groups: ['CUSTOM'],
	};
}

/**
 * Screening: configured fields of a person or transaction against the screening list and the custom lists (fuzzy
 * names, exact account numbers); goodlist custom lists clear hits. A check with hits creates a screening alert
 * (SCREENING_ALERT_CREATED), or adds new hits to the entity's open one (SCREENING_ALERT_UPDATED).
 */
export class Screening {
	constructor(private ctx: () => Ctx) {}

	private find(inputs: Input[]): Found[] {
		const { store } = this.ctx();
		const threshold = store.config.fuzzyThreshold;
		const goodNames: string[] = [];
		for (const l of store.customLists.values()) {
			if (!l.goodlist) continue;
			for (const r of l.records.values())
				if (!r.archived && typeof r.attributes.name === 'string') goodNames.push(r.attributes.name);
		}
		const found: Found[] = [];
		for (const input of inputs) {
			if (input.kind === 'name' && input.value.trim().length < 3) continue;
			const goodlisted =
				input.kind === 'name' && goodNames.some((g) => nameScore(g, input.value) >= 95);
			if (input.kind === 'name') {
				for (const rec of store.screeningList) {
					let score = 0;
					for (const n of [rec.name, ...rec.aliases])
						score = Math.max(score, nameScore(input.value, n));
					if (score >= threshold)
						found.push({
							key: `${rec.listCode}/${rec.id}/${input.value}`,
							input,
							score,
							cleared: goodlisted,
							rec,
						});
				}
			}
			for (const list of store.customLists.values()) {
				if (list.goodlist) continue;
				for (const r of list.records.values()) {
					if (r.archived) continue;
					let score = 0;
					for (const [k, v] of Object.entries(r.attributes)) {
						const values = Array.isArray(v) ? v : [v];
						for (const value of values) {
							if (typeof value !== 'string') continue;
							if (input.kind === 'name' && /name/i.test(k))
								score = Math.max(score, nameScore(input.value, value));
							if (
								input.kind === 'account' &&
								/account|iban/i.test(k) &&
								compact(value) === compact(input.value)
							)
								score = 100;
						}
					}
					if (score >= threshold)
						found.push({
							key: `${list.id}/${r.id}/${input.value}`,
							input,
							score,
							cleared: goodlisted,
							rec: customRecord(list, r),
						});
				}
			}
		}
		return found;
	}

	private hitOf(h: Found): Json {
		return {
			id: h.key,
			listName: h.rec.listName,
			listProvider: PROVIDER,
			listType: h.rec.checkType,
			score: h.score,
			cleared: h.cleared,
			inputData: h.input.value,
			attributes: {
				name: h.rec.name,
				aliases: h.rec.aliases.join('; '),
				associations: [],
				descriptions: { checkType: h.rec.checkType },
				identificationDetails: h.rec.dob ? { dateOfBirth: h.rec.dob } : {},
				mainList: h.rec.listCode,
				referenceGroupCodes: h.rec.groups,
				providers: [PROVIDER],
				notes: '',
				overview: JSON.stringify({ countries: h.rec.countries, dob: h.rec.dob ?? null }),
				recordDate: RECORD_DATE,
				roles:
					h.rec.checkType === 'PEP'
						? [
								{
									occupation: 'Public official',
									sinceDay: null,
									sinceMonth: null,
									sinceYear: 2010,
									title: 'Official',
									toDay: null,
									toMonth: null,
									toYear: null,
									type: 'PRIMARY_OCCUPATION',
								},
							]
						: [],
				type: h.rec.type,
			},
		};
	}

	private matchOf(alert: ScreeningAlert, h: Found): Json {
		return {
			alertId: alert.id,
			screeningFlowId: alert.screeningFlowId,
			inputData: h.input.value,
			matchData: JSON.stringify({
				id: h.rec.id,
				name: h.rec.name,
				aliases: h.rec.aliases,
				dob: h.rec.dob ?? null,
				countries: h.rec.countries,
			}),
			sanctionList: h.rec.listName,
			listCode: h.rec.listCode,
			score: h.score,
			checkType: h.rec.checkType,
			highlight: `<em>${h.rec.name}</em>`,
			referenceGroupCodes: h.rec.groups,
			providers: [PROVIDER],
		};
	}

	/** Screens a person (no tx) or a transaction; answers `{matches}` (empty: no alert, or every hit cleared). */
	screen(p: Person | undefined, tx: Transaction | undefined): Reply {
		const { store, hooks } = this.ctx();
		const fields = tx
			? store.config.screeningFields.transaction
			: store.config.screeningFields.person;
		const found = this.find(inputsOf((tx ?? p)!.attributes, fields));
		if (!found.length) return ok({ matches: [] });
		const personId = p?.id ?? tx?.personId ?? null;
		const transactionId = tx?.id ?? null;
		let alert = [...store.screeningAlerts.values()].find(
			(a) => a.personId === personId && a.transactionId === transactionId && !closed(a.status),
		);
		const t = now();
		let reported = found;
		if (alert) {
			const known = new Set(alert.hits.map((h) => h.id));
			const fresh = found.filter((h) => !known.has(h.key));
			if (store.config.checksReportCreatedAlertsOnly) reported = fresh;
			if (fresh.length) {
				alert.hits.push(...fresh.map((h) => this.hitOf(h)));
				alert.updatedTime = t;
				if (alert.status === 'FILTERED' && fresh.some((h) => !h.cleared)) alert.status = 'NEW';
				hooks.emit('SCREENING_ALERT_UPDATED', {
					alertId: alert.id,
					personId,
					transactionId,
					newHits: fresh.length,
					hitCount: alert.hits.length,
					status: alert.status,
				});
			}
		} else {
			const open = found.some((h) => !h.cleared);
			alert = {
				id: store.nextId('screening'),
				personId,
				transactionId,
				status: open ? 'NEW' : 'FILTERED',
				hits: found.map((h) => this.hitOf(h)),
				screeningFlowId: randomUUID(),
				createdTime: t,
				updatedTime: t,
				statuses: [
					{
						id: store.nextId('status'),
						assigner: null,
						status: open ? 'NEW' : 'FILTERED',
						createdTime: t,
						startTime: t,
						endTime: null,
					},
				],
			};
			store.screeningAlerts.set(alert.id, alert);
			hooks.emit('SCREENING_ALERT_CREATED', {
				alertId: alert.id,
				personId,
				transactionId,
				hitCount: alert.hits.length,
				status: alert.status,
			});
		}
		const a = alert;
		return ok({ matches: reported.filter((h) => !h.cleared).map((h) => this.matchOf(a, h)) });
	}

	private search(body: Json): Reply {
		const { store } = this.ctx();
		if (typeof body.name !== 'string' || body.name.trim().length < 3)
			return fail(400, 'name is required and must have at least 3 characters');
		if (!['PERSON', 'ENTITY', 'ALL'].includes(String(body.recordEntityType)))
			return fail(400, 'recordEntityType is required and must be PERSON, ENTITY or ALL');
		if (!Array.isArray(body.configurations))
			return fail(400, 'configurations is required and must be an array');
		const configs = (body.configurations as Json[]).length ? (body.configurations as Json[]) : [{}];
		for (const c of configs) {
			if (c === null || typeof c !== 'object')
				return fail(400, 'each configuration must be an object');
			if (c.listId !== undefined && c.listId !== null && !UUID.test(String(c.listId)))
				return fail(400, 'configurations[].listId must be a uuid');
			if (
				c.usableFieldId !== undefined &&
				c.usableFieldId !== null &&
				!UUID.test(String(c.usableFieldId))
			)
				return fail(400, 'configurations[].usableFieldId must be a uuid');
			if (
				c.score !== undefined &&
				c.score !== null &&
				(typeof c.score !== 'number' || c.score < 0 || c.score > 100)
			)
				return fail(400, 'configurations[].score must be a number 0..100');
			if (c.listId && !store.customLists.has(String(c.listId)))
				return fail(404, `Custom list ${c.listId} not found`);
		}
		const name = body.name;
		const out = new Map<string, Json>();
		const add = (rec: ListRecord, score: number) => {
			const prev = out.get(rec.listCode + rec.id);
			if (prev && Number(prev.score) >= score) return;
			out.set(rec.listCode + rec.id, {
				id: rec.id,
				type: rec.type,
				recordDate: '2025-01-01',
				screeningType: rec.checkType,
				matchData: JSON.stringify({
					id: rec.id,
					name: rec.name,
					aliases: rec.aliases,
					dob: rec.dob ?? null,
				}),
				highlight: `<em>${rec.name}</em>`,
				score,
				sanctionList: rec.listName,
				matchProvider: PROVIDER,
				identities: [
					{ value: rec.name, type: 'NAME' },
					...rec.aliases.map((a) => ({ value: a, type: 'ALIAS' })),
				],
				countryRelations: rec.countries.map((c) => ({ countryCode: c, relationType: 'COUNTRY' })),
				representedInLists: [{ code: rec.listCode, name: rec.listName }],
				descriptions: [rec.checkType],
				identificationDetails: rec.dob ? { dateOfBirth: rec.dob } : {},
			});
		};
		const typeOk = (t: string) => body.recordEntityType === 'ALL' || body.recordEntityType === t;
		for (const c of configs) {
			const exact = /EXACT/i.test(String(c.matchType ?? ''));
			const threshold = exact
				? 100
				: typeof c.score === 'number' && c.score > 0
					? c.score
					: store.config.fuzzyThreshold;
			if (c.listId) {
				const list = store.customLists.get(String(c.listId))!;
				const field = c.usableFieldId
					? list.fields.find((f) => f.id === c.usableFieldId)?.name
					: undefined;
				if (c.usableFieldId && !field)
					return fail(404, `Usable field ${c.usableFieldId} not found in list ${list.id}`);
				for (const r of list.records.values()) {
					if (r.archived) continue;
					const v = r.attributes[field ?? 'name'];
					if (typeof v !== 'string') continue;
					const score = exact
						? v.trim().toLowerCase() === name.trim().toLowerCase()
							? 100
							: 0
						: nameScore(name, v);
					if (score >= threshold && typeOk('PERSON')) add(customRecord(list, r), score);
				}
				continue;
			}
			const groups = Array.isArray(c.selectorGroupCodes) ? (c.selectorGroupCodes as string[]) : [];
			for (const rec of store.screeningList) {
				if (!typeOk(rec.type)) continue;
				if (groups.length && !rec.groups.some((g) => groups.includes(g))) continue;
				if (c.type && c.type !== 'SANCTION' && c.type !== rec.checkType) continue;
				let score = 0;
				for (const n of [rec.name, ...rec.aliases])
					score = Math.max(
						score,
						exact ? (n.toLowerCase() === name.trim().toLowerCase() ? 100 : 0) : nameScore(name, n),
					);
				if (score >= threshold) add(rec, score);
			}
		}
		return ok([...out.values()].sort((x, y) => Number(y.score) - Number(x.score)));
	}

	routes(): RouteDef[] {
		const ctx = this.ctx;
		return [
			// 23 screen transaction
			[
				'POST',
				'/api/v1/transactions/:id/screening-checks',
				({ params }) => {
					const { store } = ctx();
					const t = store.transactions.get(params.id);
					const p = t && store.personVisible(t.personId);
					if (!t || !p) return fail(404, `Transaction ${params.id} not found`);
					return this.screen(p, t);
				},
			],
			// 24 screen person
			[
				'POST',
				'/api/v1/persons/:id/screening-checks',
				({ params }) => {
					const p = ctx().store.personVisible(params.id);
					if (!p) return fail(404, `Person ${params.id} not found`);
					return this.screen(p, undefined);
				},
			],
			// 25 screening search (stores nothing)
			['POST', '/api/v2/screening-searches', ({ body }) => this.search((body ?? {}) as Json)],
			// 26 list groups
			['GET', '/api/v1/screening-list-groups', () => ok(ctx().store.listGroups)],
			// 27 hits of a screening alert
			[
				'GET',
				'/api/v1/screening-alerts/:screeningAlertId/hits',
				({ params, query }) => {
					const e = intIdError(params.screeningAlertId, 'screeningAlertId');
					if (e) return fail(400, e);
					const pa = pageArgs(query);
					if (pa.error) return fail(400, pa.error);
					const a = ctx().store.screeningAlerts.get(Number(params.screeningAlertId));
					if (!a) return fail(404, `Screening alert ${params.screeningAlertId} not found`);
					return paged(a.hits, pa.page, pa.size);
				},
			],
		];
	}
}
