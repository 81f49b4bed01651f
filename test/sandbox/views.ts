import type { Json, ManualAlert, Person, Transaction } from './store';

/** The read shapes of the interface (internal fields left out). */
export function personView(p: Person): Json {
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

export function txView(t: Transaction): Json {
	return { id: t.id, personId: t.personId, attributes: t.attributes, createdTime: t.createdTime };
}

export function manualView(a: ManualAlert): Json {
	return {
		id: a.id,
		personId: a.personId,
		transactionId: a.transactionId ?? null,
		rationale: a.rationale,
		rationaleComment: a.rationaleComment ?? null,
		status: a.status,
		createdBy: a.createdBy,
		createdTime: a.createdTime,
		updatedTime: a.updatedTime,
	};
}
