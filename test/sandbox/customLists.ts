import { fail, ok, type Reply, type Req } from './api';
import * as rules from './rules';
import type { Json, State } from './state';
import type { Webhooks } from './webhooks';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function customListRoutes(state: State, hooks: Webhooks): Array<[string, string, (r: Req) => Reply]> {
	const list = (id: string) => (UUID.test(id) ? state.customLists.get(id) : undefined);
	const badList = (id: string) => (UUID.test(id) ? fail(404, `Custom list ${id} not found`) : fail(400, 'customListId must be a uuid'));
	const base = '/api/v1/custom-lists/:customListId';
	return [
		[`GET`, `${base}/records`, ({ params, query }) => {
			const l = list(params.customListId);
			if (!l) return badList(params.customListId);
			const page = Number(query.get('page') ?? 0);
			const size = Number(query.get('size') ?? 20);
			const err = rules.pageError(page, size);
			if (err) return fail(400, err);
			const active = [...l.records.values()].filter((r) => !r.archived);
			return ok({ number: page, size, total: active.length, content: active.slice(page * size, page * size + size).map(({ id, attributes }) => ({ id, attributes })) });
		}],
		[`POST`, `${base}/records`, ({ params, body }) => {
			const l = list(params.customListId);
			if (!l) return badList(params.customListId);
			const b = (body ?? {}) as Json;
			const err = (typeof b.id === 'string' && b.id.length ? undefined : 'id is required') ?? rules.attributesError(b.attributes ?? {});
			if (err) return fail(400, err);
			const existing = l.records.get(String(b.id));
			if (existing && !existing.archived) return fail(422, `Record ${b.id} already exists`);
			const record = { id: String(b.id), attributes: (b.attributes as Json) ?? {}, archived: false };
			l.records.set(record.id, record);
			hooks.emit('CUSTOM_LIST_RECORD_CREATED', { customListId: l.id, recordId: record.id });
			return ok({ id: record.id, attributes: record.attributes });
		}],
		[`GET`, `${base}/records/:id`, ({ params }) => {
			const l = list(params.customListId);
			if (!l) return badList(params.customListId);
			const r = l.records.get(params.id);
			if (!r || r.archived) return fail(404, `Record ${params.id} not found`);
			return ok({ id: r.id, attributes: r.attributes });
		}],
		[`PUT`, `${base}/records/:id`, ({ params, body }) => {
			const l = list(params.customListId);
			if (!l) return badList(params.customListId);
			const r = l.records.get(params.id);
			if (!r) return fail(404, `Record ${params.id} not found`);
			if (r.archived) return fail(409, `Record ${params.id} is archived`);
			const b = (body ?? {}) as Json;
			const err = rules.attributesError(b.attributes ?? {});
			if (err) return fail(400, err);
			r.attributes = (b.attributes as Json) ?? {};
			hooks.emit('CUSTOM_LIST_RECORD_UPDATED', { customListId: l.id, recordId: r.id });
			return ok({ id: r.id, attributes: r.attributes });
		}],
		[`DELETE`, `${base}/records/:id`, ({ params }) => {
			const l = list(params.customListId);
			if (!l) return badList(params.customListId);
			const r = l.records.get(params.id);
			if (!r) return fail(404, `Record ${params.id} not found`);
			if (r.archived) return fail(409, `Record ${params.id} is already archived`);
			r.archived = true;
			hooks.emit('CUSTOM_LIST_RECORD_ARCHIVED', { customListId: l.id, recordId: r.id });
			return ok(undefined);
		}],
		[`GET`, `${base}/screening-fields`, ({ params }) => {
			const l = list(params.customListId);
			if (!l) return badList(params.customListId);
			return ok(l.fields);
		}],
	];
}
