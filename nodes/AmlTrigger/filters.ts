import type { IDataObject } from 'n8n-workflow';

/** What the node is set to let through. */
export interface EventFilter {
	/** Selected actions; '*' selects every action (also decision rules). */
	events: string[];
	/** Decision rule names typed by the user (comma or newline separated in the node). */
	decisionRules: string[];
	/** PERSON or TRANSACTION; empty = any. */
	entityType?: string;
	/** ONLINE, OFFLINE or PERIODIC; empty = any. */
	scenarioType?: string;
	/** Final risk levels for FINAL_RISK_UPDATED; empty = any. */
	riskLevels?: string[];
}

/** Splits a comma or newline separated list, trimmed, without empty entries. */
export function splitList(value: unknown): string[] {
	if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter(Boolean);
	return String(value ?? '')
		.split(/[,\n]/)
		.map((v) => v.trim())
		.filter(Boolean);
}

const upper = (value: unknown): string =>
	typeof value === 'string' || typeof value === 'number' ? String(value).trim().toUpperCase() : '';

/**
 * The entity an event is about: `metadata.entityType` when the service sends it, otherwise TRANSACTION when it
 * names a transaction and PERSON when it names only a person; undefined for events about neither (custom lists).
 */
export function entityTypeOf(metadata: IDataObject): string | undefined {
	const explicit = upper(metadata.entityType);
	if (explicit) return explicit;
	if (
		metadata.transactionId !== undefined &&
		metadata.transactionId !== null &&
		metadata.transactionId !== ''
	)
		return 'TRANSACTION';
	if (metadata.personId !== undefined && metadata.personId !== null && metadata.personId !== '')
		return 'PERSON';
	return undefined;
}

/** The final risk level of a FINAL_RISK_UPDATED event (the field name is not fixed by the interface). */
export function riskLevelOf(metadata: IDataObject): string {
	return upper(
		metadata.finalRisk ?? metadata.finalRiskLevel ?? metadata.riskLevel ?? metadata.level,
	);
}

/**
 * Why an event does not start the workflow, or undefined when it does. Filters apply to the events that carry
 * the value: scenario type to events with `metadata.scenarioType` (alert created), risk level to
 * FINAL_RISK_UPDATED, entity type to events about a person or a transaction. Comparisons ignore case.
 */
export function rejection(
	filter: EventFilter,
	action: string,
	metadata: IDataObject,
): string | undefined {
	const wanted = upper(action);
	const selected =
		filter.events.includes('*') ||
		filter.events.some((e) => upper(e) === wanted) ||
		filter.decisionRules.some((r) => upper(r) === wanted || r === '*');
	if (!selected) return `event ${action} is not selected`;
	if (filter.entityType) {
		const entity = entityTypeOf(metadata);
		if (entity !== undefined && entity !== upper(filter.entityType))
			return `entity type ${entity} is filtered out`;
	}
	if (
		filter.scenarioType &&
		upper(metadata.scenarioType) &&
		upper(metadata.scenarioType) !== upper(filter.scenarioType)
	) {
		return `scenario type ${String(metadata.scenarioType)} is filtered out`;
	}
	if (filter.riskLevels?.length && wanted === 'FINAL_RISK_UPDATED') {
		const level = riskLevelOf(metadata);
		if (!filter.riskLevels.some((r) => upper(r) === level))
			return `risk level ${level || '(none)'} is filtered out`;
	}
	return undefined;
}
