import type { Ctx } from './context';
import { RISK_LEVELS, now, type Json, type Person } from './store';
import { nameScore } from './fuzzy';

/**
 * Risk scoring: each configured risk rule that applies to a person is a factor with a level; the final risk is the
 * highest level of the applying factors (LOW when none applies). A change of the final level sends FINAL_RISK_UPDATED.
 */
export class Risk {
	constructor(private ctx: () => Ctx) {}

	factors(p: Person): Json[] {
		const { store } = this.ctx();
		const out: Json[] = [];
		for (const r of store.riskRules) {
			let details: string | undefined;
			const rule = r.rule;
			if (rule.kind === 'countryIn') {
				const c = String(p.attributes.country ?? '');
				if (rule.countries.includes(c)) details = `country ${c} is in ${rule.countries.join(', ')}`;
			} else if (rule.kind === 'typeIn') {
				if (rule.types.includes(p.type)) details = `person type ${p.type}`;
			} else if (rule.kind === 'openAlerts') {
				let n = 0;
				for (const a of store.alerts.values()) if (a.personId === p.id && !closed(a.status)) n++;
				if (n >= rule.min) details = `${n} open monitoring alert(s)`;
			} else if (rule.kind === 'screeningTruePositive') {
				for (const a of store.screeningAlerts.values()) {
					if (a.personId === p.id && a.status === 'CLOSED AS TRUE POSITIVE') {
						details = `screening alert ${a.id} confirmed as true positive`;
						break;
					}
				}
			} else if (rule.kind === 'transactionVolumeOver') {
				const sum = this.volume(p.id);
				if (sum > rule.amount) details = `transaction volume ${sum.toFixed(2)} > ${rule.amount}`;
			} else if (rule.kind === 'customListMatch') {
				const list = store.customLists.get(rule.customListId);
				const name = personName(p);
				if (list && name) {
					for (const rec of list.records.values()) {
						if (
							!rec.archived &&
							typeof rec.attributes.name === 'string' &&
							nameScore(name, rec.attributes.name) >= store.config.fuzzyThreshold
						) {
							details = `name matches record ${rec.id} of custom list ${list.name}`;
							break;
						}
					}
				}
			}
			if (details)
				out.push({
					id: r.id,
					level: r.level,
					factor: r.factor,
					details,
					weight: r.weight,
					createdTime: now(),
				});
		}
		return out;
	}

	/**
	 * Sum of the amounts of a person's transactions. A person is rescored on every transaction added, so summing all
	 * of them each time made adding N transactions to one person cost O(N²) (the benchmark's 10,000 creates were
	 * bound by it). The list only grows (`addTransaction` pushes; deleting the person drops the list) and an amount
	 * never changes once stored (updates add new keys or change `status`), so the sum is carried forward per list.
	 */
	private volume(personId: string): number {
		const { store } = this.ctx();
		const ids = store.transactionsByPerson.get(personId);
		if (!ids) return 0;
		let known = this.volumes.get(ids);
		if (!known || known.count > ids.length) known = { count: 0, sum: 0 };
		for (let i = known.count; i < ids.length; i++)
			known.sum += Number(store.transactions.get(ids[i])?.attributes.amount ?? 0) || 0;
		known.count = ids.length;
		this.volumes.set(ids, known);
		return known.sum;
	}

	private volumes = new WeakMap<string[], { count: number; sum: number }>();

	/** Rescores one person; emits FINAL_RISK_UPDATED when the level changes. */
	rescore(p: Person): void {
		const risks = this.factors(p);
		const level = risks.reduce((m, r) => Math.max(m, RISK_LEVELS.indexOf(String(r.level))), 0);
		const finalRisk = RISK_LEVELS[level];
		const previous = p.finalRisk;
		p.risks = risks;
		p.finalRiskScore = Math.min(100, level * 20 + 10 + risks.length);
		if (finalRisk !== previous) {
			p.finalRisk = finalRisk;
			p.finalRiskCreatedTime = now();
			this.ctx().hooks.emit('FINAL_RISK_UPDATED', {
				personId: p.id,
				finalRisk,
				previousRisk: previous,
				finalRiskScore: p.finalRiskScore,
			});
		}
	}

	/** All persons (a custom list or risk rule used by a risk rule changed). */
	rescoreAll(): void {
		for (const p of this.ctx().store.persons.values()) this.rescore(p);
	}

	private pending?: NodeJS.Timeout;

	/** Background rescoring of all persons (coalesced: many list changes, one run). */
	scheduleRescoreAll(): void {
		if (this.pending) return;
		this.pending = setTimeout(() => {
			this.pending = undefined;
			this.rescoreAll();
		}, 50);
		this.pending.unref();
	}

	close(): void {
		if (this.pending) clearTimeout(this.pending);
		this.pending = undefined;
	}

	usesCustomList(customListId: string): boolean {
		return this.ctx().store.riskRules.some(
			(r) => r.rule.kind === 'customListMatch' && r.rule.customListId === customListId,
		);
	}
}

export function closed(status: string): boolean {
	return status.startsWith('CLOSED') || status === 'FILTERED';
}

export function personName(p: Person): string {
	const a = p.attributes;
	const full = [a.first_name, a.last_name].filter((x) => typeof x === 'string' && x).join(' ');
	return full || (typeof a.company_name === 'string' ? a.company_name : '');
}
