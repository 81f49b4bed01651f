import type { Ctx } from './context';
import { closed } from './risk';

/**
 * Decision rules: whenever an alert of a person or transaction is created or changes status, the configured rules
 * (config.decisionRules) run on all alerts (monitoring, screening, manual) of that person or transaction; each rule
 * that succeeds sends a webhook whose action is the rule's name, metadata `{rule, personId, transactionId, alertIds}`.
 */
export class Decisions {
	constructor(private ctx: () => Ctx) {}

	private alertsOf(
		match: (a: { personId: string | null; transactionId?: string | null }) => boolean,
	): Array<{ id: number; status: string }> {
		const { store } = this.ctx();
		const out: Array<{ id: number; status: string }> = [];
		for (const a of store.alerts.values()) if (match(a)) out.push(a);
		for (const a of store.screeningAlerts.values()) if (match(a)) out.push(a);
		for (const a of store.manualAlerts.values()) if (match(a)) out.push(a);
		return out;
	}

	run(personId: string | null, transactionId: string | null): void {
		const { store, hooks } = this.ctx();
		for (const rule of store.config.decisionRules) {
			const id = rule.entity === 'PERSON' ? personId : transactionId;
			if (!id) continue;
			const alerts = this.alertsOf((a) =>
				rule.entity === 'PERSON' ? a.personId === id : a.transactionId === id,
			);
			if (!alerts.length) continue;
			const confirmed = alerts.some((a) => a.status === 'CLOSED AS TRUE POSITIVE');
			const holds =
				rule.condition === 'allAlertsClosed'
					? alerts.every((a) => closed(a.status))
					: rule.condition === 'allAlertsClosedNoneConfirmed'
						? alerts.every((a) => closed(a.status)) && !confirmed
						: confirmed;
			if (holds) {
				hooks.emit(rule.name, {
					rule: rule.name,
					entityType: rule.entity,
					personId,
					transactionId: rule.entity === 'TRANSACTION' ? transactionId : null,
					alertIds: alerts.map((a) => a.id),
				});
			}
		}
	}

	unresolved(
		match: (a: { personId: string | null; transactionId?: string | null }) => boolean,
	): boolean {
		return this.alertsOf(match).some((a) => !closed(a.status));
	}
}
