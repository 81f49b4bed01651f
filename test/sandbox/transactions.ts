import type { Ctx } from './context';
import { fail, ok, paged, type RouteDef } from './http';
import { now, type Json, type Transaction } from './store';
import { txView } from './views';
import * as v from './validation';

/** Operations 13-16, 21 and the transaction unresolved-alerts check (31). */
export function transactionRoutes(ctx: () => Ctx): RouteDef[] {
	const store = () => ctx().store;
	const find = (personId: string, transactionId: string): Transaction | undefined => {
		const t = store().transactions.get(transactionId);
		return t && t.personId === personId && store().personVisible(personId) ? t : undefined;
	};
	return [
		// 13 person transactions (paged, 10,000-result cap)
		[
			'GET',
			'/api/v1/persons/:personId/transactions',
			({ params, query }) => {
				const pa = v.pageArgs(query);
				if (pa.error) return fail(400, pa.error);
				const e =
					v.lengthError(query.get('query') ?? undefined, 'query') ??
					v.lengthError(query.get('orderBy') ?? undefined, 'orderBy');
				if (e) return fail(400, e);
				const direction = query.get('direction');
				if (direction !== null && !v.DIRECTIONS.includes(direction))
					return fail(400, 'direction must be ASC or DESC');
				const p = store().personVisible(params.personId);
				if (!p) return fail(404, `Person with id ${params.personId} not found`);
				let list = (store().transactionsByPerson.get(p.id) ?? [])
					.map((id) => store().transactions.get(id))
					.filter((t): t is Transaction => !!t);
				const q = query.get('query');
				if (q)
					list = list.filter((t) => t.id.includes(q) || JSON.stringify(t.attributes).includes(q));
				const orderBy = query.get('orderBy');
				if (orderBy) {
					const dir = direction === 'DESC' ? -1 : 1;
					const key = (t: Transaction) =>
						String(
							orderBy in t && orderBy !== 'attributes'
								? (t as unknown as Json)[orderBy]
								: (t.attributes[orderBy] ?? ''),
						);
					list = [...list].sort(
						(a, b) => key(a).localeCompare(key(b), undefined, { numeric: true }) * dir,
					);
				}
				return paged(list, pa.page, pa.size, true, txView);
			},
		],
		// 14 create transaction: answers {id, personId, attributes}; 4xx as text/plain
		[
			'POST',
			'/api/v1/persons/:personId/transactions',
			({ params, body }) => {
				const b = (body ?? {}) as Json;
				const attrs = b.attributes as Json;
				const err =
					v.idError(b.id) ??
					(attrs === undefined ? 'attributes is required' : v.attributesError(attrs)) ??
					v.amountError(attrs.amount) ??
					(attrs.timestamp !== undefined ? v.timestampError(attrs.timestamp) : undefined);
				if (err) return fail(400, err, true);
				const p = store().personVisible(params.personId);
				if (!p) return fail(404, `Person with id ${params.personId} not found`, true);
				if (store().transactions.has(String(b.id)))
					return fail(422, `Transaction with id ${b.id} already exists`, true);
				const tx: Transaction = {
					id: String(b.id),
					personId: p.id,
					attributes: attrs,
					createdTime: now(),
				};
				store().addTransaction(tx);
				if (store().config.alertsOnStore) ctx().monitoring.run('OFFLINE', p, tx, false);
				ctx().risk.rescore(p);
				return ok({ id: tx.id, personId: tx.personId, attributes: tx.attributes });
			},
		],
		// 15 fetch transaction
		[
			'GET',
			'/api/v1/persons/:personId/transactions/:transactionId',
			({ params }) => {
				const t = find(params.personId, params.transactionId);
				if (!t)
					return fail(
						404,
						`Transaction with id ${params.transactionId} of person ${params.personId} not found`,
					);
				return ok({ id: t.id, personId: t.personId, attributes: t.attributes });
			},
		],
		// 16 update transaction: only completely new keys and `status`; other keys are ignored
		[
			'PATCH',
			'/api/v1/persons/:personId/transactions/:transactionId',
			({ params, body }) => {
				const b = (body ?? {}) as Json;
				const err =
					v.idError(b.id) ??
					(b.attributes === undefined ? undefined : v.attributesError(b.attributes));
				if (err) return fail(400, err);
				const t = find(params.personId, params.transactionId);
				if (!t)
					return fail(
						404,
						`Transaction with id ${params.transactionId} of person ${params.personId} not found`,
					);
				for (const [k, value] of Object.entries((b.attributes ?? {}) as Json)) {
					if (k === 'status' || !(k in t.attributes)) t.attributes[k] = value;
				}
				return ok(txView(t));
			},
		],
		// 21 transaction monitoring checks (ONLINE)
		[
			'POST',
			'/api/v1/transactions/:transactionId/monitoring-checks',
			({ params }) => {
				const t = store().transactions.get(params.transactionId);
				const p = t && store().personVisible(t.personId);
				if (!t || !p) return fail(404, `Transaction with id ${params.transactionId} not found`);
				return ok({ results: ctx().monitoring.run('ONLINE', p, t, false) });
			},
		],
		// 31 unresolved alerts of a transaction (deprecated)
		[
			'GET',
			'/api/v1/transactions/:id/unresolved-alerts',
			({ params }) => {
				if (!store().transactions.has(params.id))
					return fail(404, `Transaction with id ${params.id} not found`);
				return ok({
					hasUnresolvedAlerts: ctx().decisions.unresolved((a) => a.transactionId === params.id),
				});
			},
		],
	];
}
