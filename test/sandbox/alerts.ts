import type { Ctx } from './context';
import { fail, ok, type RouteDef } from './http';
import { now, type Json } from './store';
import { manualView, personView, txView } from './views';
import * as v from './validation';

const API_USER = { id: 1, email: 'api-client@sandbox.local', name: 'API client' };

/** Operations 22 (monitoring alert), 29 (alert status) and 30 (manual alerts). */
export function alertRoutes(ctx: () => Ctx): RouteDef[] {
	const store = () => ctx().store;

	const updateStatus = (b: Json) => {
		const s = store();
		if (!v.ALERT_TYPES.includes(String(b.alertType)))
			return fail(400, `alertType is required and must be one of ${v.ALERT_TYPES.join(', ')}`);
		if (typeof b.alertId !== 'number' || !Number.isInteger(b.alertId) || b.alertId < 0)
			return fail(400, 'alertId is required and must be an integer >= 0');
		if (typeof b.status !== 'string' || !b.status.trim())
			return fail(400, 'status is required and must not be empty');
		if (b.note !== undefined && (typeof b.note !== 'string' || !b.note.trim()))
			return fail(400, 'note must not be empty');
		if (!s.config.alertStatuses.includes(b.status))
			return fail(404, `Alert status ${b.status} not found`);
		const id = b.alertId;
		const status = b.status;
		const t = now();
		const entry = {
			id: s.nextId('status'),
			assigner: API_USER,
			status,
			statusId: s.config.alertStatuses.indexOf(status) + 1,
			createdTime: t,
			startTime: t,
			endTime: null,
		};
		const note = b.note
			? {
					id: s.nextId('note'),
					content: b.note,
					user: API_USER,
					createdTime: t,
					alertId: id,
					sanctionAlertId: null,
					bridgeAlertId: null,
					statusChangeId: entry.id,
				}
			: undefined;
		let personId: string | null = null;
		let transactionId: string | null = null;
		if (b.alertType === 'MONITORING' || b.alertType === 'BRIDGE') {
			const a = s.alerts.get(id);
			if (!a) return fail(404, `Alert ${id} not found`);
			const previous = a.status;
			const last = a.statuses[a.statuses.length - 1];
			if (last) last.endTime = t;
			a.status = status;
			a.statuses.push(entry);
			if (note) a.notes.push(note);
			({ personId, transactionId } = a);
			ctx().hooks.emit('ALERT_STATUS_UPDATED', {
				alertId: a.id,
				alertType: b.alertType,
				personId,
				transactionId,
				status,
				previousStatus: previous,
			});
		} else if (b.alertType === 'SCREENING') {
			const a = s.screeningAlerts.get(id);
			if (!a) return fail(404, `Screening alert ${id} not found`);
			const previous = a.status;
			const last = a.statuses[a.statuses.length - 1];
			if (last) last.endTime = t;
			a.status = status;
			a.statuses.push(note ? { ...entry, note: note.content } : entry);
			({ personId, transactionId } = a);
			ctx().hooks.emit('SCREENING_ALERT_STATUS_UPDATED', {
				alertId: a.id,
				personId,
				transactionId,
				status,
				previousStatus: previous,
			});
		} else {
			const a = s.manualAlerts.get(id);
			if (!a) return fail(404, `Manual alert ${id} not found`);
			const previous = a.status;
			a.status = status;
			a.updatedTime = t;
			if (note) a.notes.push(note);
			personId = a.personId;
			transactionId = a.transactionId ?? null;
			ctx().hooks.emit('MANUAL_ALERT_STATUS_UPDATED', {
				alertId: a.id,
				personId,
				transactionId,
				status,
				previousStatus: previous,
			});
		}
		const p = personId ? s.persons.get(personId) : undefined;
		if (p) ctx().risk.rescore(p);
		ctx().decisions.run(personId, transactionId);
		return ok(undefined);
	};

	const manualBodyError = (b: Json) =>
		!v.RATIONALES.includes(String(b.rationale))
			? `rationale is required and must be one of ${v.RATIONALES.join(', ')}`
			: b.rationaleComment !== undefined &&
				  b.rationaleComment !== null &&
				  (typeof b.rationaleComment !== 'string' || b.rationaleComment.length > 1000)
				? 'rationaleComment must be a string of at most 1000 characters'
				: undefined;

	return [
		// 22 monitoring alert
		[
			'GET',
			'/api/v1/alerts/:alertId',
			({ params }) => {
				const e = v.intIdError(params.alertId, 'alertId');
				if (e) return fail(400, e);
				const s = store();
				const a = s.alerts.get(Number(params.alertId));
				if (!a) return fail(404, `Alert ${params.alertId} not found`);
				const p = s.persons.get(a.personId);
				const t = a.transactionId ? s.transactions.get(a.transactionId) : undefined;
				return ok({
					id: a.id,
					priority: a.priority,
					status: a.status,
					statusId: s.config.alertStatuses.indexOf(a.status) + 1,
					person: p ? personView(p) : null,
					score: { results: a.results },
					assignee: null,
					createdTime: a.createdTime,
					assignments: [],
					statuses: a.statuses,
					notes: a.notes,
					transaction: t ? txView(t) : null,
					entityType: a.entityType,
				});
			},
		],
		// 29 update alert status (unknown status code → 404)
		['PUT', '/api/v1/alerts/status', ({ body }) => updateStatus((body ?? {}) as Json)],
		// 30 manual alerts
		[
			'POST',
			'/api/v1/manual-alerts',
			({ body }) => {
				const b = (body ?? {}) as Json;
				if (typeof b.personId !== 'string' || !b.personId)
					return fail(400, 'personId is required and must not be empty');
				if (
					b.transactionId !== undefined &&
					b.transactionId !== null &&
					(typeof b.transactionId !== 'string' || !b.transactionId)
				)
					return fail(400, 'transactionId must be a non-empty string');
				const err = manualBodyError(b);
				if (err) return fail(400, err);
				const s = store();
				if (!s.personVisible(b.personId))
					return fail(404, `Person with id ${b.personId} not found`);
				if (b.transactionId && s.transactions.get(String(b.transactionId))?.personId !== b.personId)
					return fail(
						404,
						`Transaction with id ${b.transactionId} of person ${b.personId} not found`,
					);
				const t = now();
				const a = {
					id: s.nextId('manual'),
					personId: b.personId,
					transactionId: (b.transactionId as string) ?? undefined,
					rationale: String(b.rationale),
					rationaleComment: (b.rationaleComment as string) ?? undefined,
					status: s.config.alertStatuses[0] ?? 'NEW',
					createdBy: API_USER.email,
					createdTime: t,
					updatedTime: t,
					notes: [] as Json[],
				};
				s.manualAlerts.set(a.id, a);
				ctx().hooks.emit('MANUAL_ALERT_CREATED', {
					alertId: a.id,
					personId: a.personId,
					transactionId: a.transactionId ?? null,
					rationale: a.rationale,
					status: a.status,
				});
				return ok(manualView(a));
			},
		],
		[
			'PUT',
			'/api/v1/manual-alerts/:alertId',
			({ params, body }) => {
				const e = v.intIdError(params.alertId, 'alertId');
				if (e) return fail(400, e);
				const b = (body ?? {}) as Json;
				const err =
					manualBodyError(b) ??
					(b.status !== undefined && (typeof b.status !== 'string' || !b.status.trim())
						? 'status must not be empty'
						: undefined) ??
					(b.note !== undefined && (typeof b.note !== 'string' || !b.note.trim())
						? 'note must not be empty'
						: undefined);
				if (err) return fail(400, err);
				const s = store();
				const a = s.manualAlerts.get(Number(params.alertId));
				if (!a) return fail(404, `Manual alert ${params.alertId} not found`);
				if (b.status !== undefined && !s.config.alertStatuses.includes(String(b.status)))
					return fail(404, `Alert status ${b.status} not found`);
				a.rationale = String(b.rationale);
				if (b.rationaleComment !== undefined)
					a.rationaleComment = (b.rationaleComment as string) ?? undefined;
				a.updatedTime = now();
				if (b.status !== undefined && b.status !== a.status) {
					const previous = a.status;
					a.status = String(b.status);
					if (b.note)
						a.notes.push({
							id: s.nextId('note'),
							content: b.note,
							user: API_USER,
							createdTime: a.updatedTime,
						});
					ctx().hooks.emit('MANUAL_ALERT_STATUS_UPDATED', {
						alertId: a.id,
						personId: a.personId,
						transactionId: a.transactionId ?? null,
						status: a.status,
						previousStatus: previous,
					});
					ctx().decisions.run(a.personId, a.transactionId ?? null);
				}
				return ok(manualView(a));
			},
		],
	];
}
