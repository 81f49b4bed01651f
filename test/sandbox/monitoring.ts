import type { Ctx } from './context';
import {
	now,
	type Json,
	type MonitoringAlert,
	type Person,
	type Scenario,
	type Transaction,
} from './store';

/**
 * Monitoring: scenarios of a type (ONLINE on the checks endpoints; OFFLINE when a person is created/updated or a
 * transaction created) run against a person or transaction. One alert per triggered scenario whose score reaches
 * the threshold (config.monitoringScoreThreshold, default 50); ALERT_CREATED for each.
 */
export class Monitoring {
	constructor(private ctx: () => Ctx) {}

	private evaluate(s: Scenario, p: Person, tx?: Transaction): boolean {
		const r = s.rule;
		const store = this.ctx().store;
		if (r.kind === 'amountOver') return !!tx && Number(tx.attributes.amount) > r.threshold;
		if (r.kind === 'countryIn') {
			const countries = [
				p.attributes.country,
				tx?.attributes.country,
				tx?.attributes.receiver_country,
				tx?.attributes.sender_country,
			];
			return countries.some((c) => typeof c === 'string' && r.countries.includes(c));
		}
		if (r.kind === 'attributeEquals') return String((tx ?? p).attributes[r.key] ?? '') === r.value;
		if (r.kind === 'velocity' && tx) {
			const at = Date.parse(String(tx.attributes.timestamp ?? tx.createdTime));
			const since = at - r.windowMinutes * 60_000;
			let recent = 0;
			for (const id of store.transactionsByPerson.get(tx.personId) ?? []) {
				const other = store.transactions.get(id);
				const t = Date.parse(String(other?.attributes.timestamp ?? other?.createdTime ?? ''));
				if (t >= since && t <= at) recent++;
			}
			return recent > r.count;
		}
		return false;
	}

	private details(s: Scenario, p: Person, tx?: Transaction): string {
		const r = s.rule;
		if (r.kind === 'amountOver') return `amount ${tx?.attributes.amount} > ${r.threshold}`;
		if (r.kind === 'countryIn')
			return `country ${p.attributes.country ?? tx?.attributes.country ?? ''} in ${r.countries.join(',')}`;
		if (r.kind === 'velocity')
			return `more than ${r.count} transactions within ${r.windowMinutes} minutes`;
		return `${r.key} = ${r.value}`;
	}

	/** Runs scenarios of one type; returns result items (with alertId for created alerts). */
	run(
		type: 'ONLINE' | 'OFFLINE',
		p: Person,
		tx: Transaction | undefined,
		allResults: boolean,
	): Json[] {
		const { store, hooks } = this.ctx();
		const entity = tx ? 'TRANSACTION' : 'PERSON';
		const results: Json[] = [];
		const threshold = store.config.monitoringScoreThreshold;
		let created = 0;
		for (const s of store.scenarios) {
			if (s.type.toUpperCase() !== type || s.entity !== entity || !this.evaluate(s, p, tx))
				continue;
			const item: Json = {
				reason: s.name,
				details: this.details(s, p, tx),
				score: s.score,
				weight: s.weight,
				scenarioType: s.type,
				alertId: null,
				scenarioHandle: s.handle,
			};
			if (s.score < threshold) {
				if (allResults) results.push(item);
				continue;
			}
			if (
				store.config.checksReportCreatedAlertsOnly &&
				type === 'ONLINE' &&
				[...store.alerts.values()].some(
					(a) =>
						a.scenarioType === 'ONLINE' &&
						a.personId === p.id &&
						a.transactionId === (tx?.id ?? null) &&
						(a.results as Json[]).some((r) => r.scenarioHandle === s.handle),
				)
			)
				continue;
			const t = now();
			const alert: MonitoringAlert = {
				id: store.nextId('alert'),
				priority: s.score >= 90 ? 'HIGH' : s.score >= 70 ? 'MEDIUM' : 'LOW',
				status: 'NEW',
				personId: p.id,
				transactionId: tx?.id ?? null,
				entityType: entity,
				scenarioType: type,
				results: [item],
				createdTime: t,
				statuses: [
					{
						id: store.nextId('status'),
						assigner: null,
						status: 'NEW',
						statusId: 1,
						createdTime: t,
						startTime: t,
						endTime: null,
					},
				],
				notes: [],
			};
			item.alertId = alert.id;
			store.alerts.set(alert.id, alert);
			created++;
			hooks.emit('ALERT_CREATED', {
				alertId: alert.id,
				personId: p.id,
				transactionId: tx?.id ?? null,
				entityType: entity,
				scenarioType: type,
				hits: [{ reason: item.reason, details: item.details, scenarioHandle: s.handle }],
			});
			results.push(item);
		}
		if (created) {
			this.ctx().risk.rescore(p);
			this.ctx().decisions.run(p.id, tx?.id ?? null);
		}
		return results;
	}
}
