import type { Ctx } from './context';
import { fail, ok, type RouteDef } from './http';
import type { CustomList, Json } from './store';
import * as v from './validation';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Active (not archived) records in insertion order, cached until the list changes (fast paging of 10,000 records). */
function active(list: CustomList): Array<{ id: string; attributes: Json }> {
	if (!list.active)
		list.active = [...list.records.values()]
			.filter((r) => !r.archived)
			.map((r) => ({ id: r.id, attributes: r.attributes }));
	return list.active;
}

/** Operations 18 (records: page, create, get, update, archive) and 19 (usable fields). */
export function customListRoutes(ctx: () => Ctx): RouteDef[] {
	const lookup = (id: string) => (UUID.test(id) ? ctx().store.customLists.get(id) : undefined);
	const missing = (id: string) =>
		UUID.test(id)
			? fail(404, `Custom list ${id} not found`)
			: fail(400, 'customListId must be a uuid');
	const changed = (list: CustomList, action: string, recordId: string) => {
		list.active = undefined;
		ctx().hooks.emit(action, { customListId: list.id, customListName: list.name, recordId });
		if (ctx().risk.usesCustomList(list.id)) ctx().risk.scheduleRescoreAll();
	};
	const bodyError = (b: Json) =>
		(typeof b.id === 'string' && b.id.length
			? undefined
			: 'id is required and must be a non-empty string') ??
		(b.attributes === undefined ? 'attributes is required' : v.attributesError(b.attributes));
	const base = '/api/v1/custom-lists/:customListId';
	return [
		[
			'GET',
			`${base}/records`,
			({ params, query }) => {
				const l = lookup(params.customListId);
				if (!l) return missing(params.customListId);
				const pa = v.pageArgs(query);
				if (pa.error) return fail(400, pa.error);
				const records = active(l);
				return ok({
					number: pa.page,
					size: pa.size,
					total: records.length,
					content: records.slice(pa.page * pa.size, pa.page * pa.size + pa.size),
				});
			},
		],
		[
			'POST',
			`${base}/records`,
			({ params, body }) => {
				const l = lookup(params.customListId);
				if (!l) return missing(params.customListId);
				const b = (body ?? {}) as Json;
				const err = bodyError(b);
				if (err) return fail(400, err);
				const existing = l.records.get(String(b.id));
				if (existing && !existing.archived)
					return fail(422, `Record with id ${b.id} already exists in custom list ${l.id}`);
				if (existing) l.records.delete(existing.id);
				const record = { id: String(b.id), attributes: b.attributes as Json, archived: false };
				l.records.set(record.id, record);
				changed(l, 'CUSTOM_LIST_RECORD_CREATED', record.id);
				return ok({ id: record.id, attributes: record.attributes });
			},
		],
		[
			'GET',
			`${base}/records/:id`,
			({ params }) => {
				const l = lookup(params.customListId);
				if (!l) return missing(params.customListId);
				const r = l.records.get(params.id);
				if (!r || r.archived)
					return fail(404, `Record with id ${params.id} not found in custom list ${l.id}`);
				return ok({ id: r.id, attributes: r.attributes });
			},
		],
		[
			'PUT',
			`${base}/records/:id`,
			({ params, body }) => {
				const l = lookup(params.customListId);
				if (!l) return missing(params.customListId);
				const b = (body ?? {}) as Json;
				const err = bodyError({ id: b.id ?? params.id, attributes: b.attributes });
				if (err) return fail(400, err);
				const r = l.records.get(params.id);
				if (!r) return fail(404, `Record with id ${params.id} not found in custom list ${l.id}`);
				if (r.archived)
					return fail(409, `Record with id ${params.id} is archived and cannot be updated`);
				r.attributes = b.attributes as Json;
				changed(l, 'CUSTOM_LIST_RECORD_UPDATED', r.id);
				return ok({ id: r.id, attributes: r.attributes });
			},
		],
		[
			'DELETE',
			`${base}/records/:id`,
			({ params }) => {
				const l = lookup(params.customListId);
				if (!l) return missing(params.customListId);
				const r = l.records.get(params.id);
				if (!r) return fail(404, `Record with id ${params.id} not found in custom list ${l.id}`);
				if (r.archived) return fail(409, `Record with id ${params.id} is already archived`);
				r.archived = true;
				changed(l, 'CUSTOM_LIST_RECORD_ARCHIVED', r.id);
				return ok(undefined);
			},
		],
		[
			'GET',
			`${base}/screening-fields`,
			({ params }) => {
				const l = lookup(params.customListId);
				if (!l) return missing(params.customListId);
				return ok(l.fields.map(({ id, name }) => ({ id, name })));
			},
		],
	];
}
