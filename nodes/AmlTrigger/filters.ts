import type { IDataObject } from 'n8n-workflow';

import { alertTypeOf } from './events';

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
 * FINAL_RISK_UPDATED events with a risk level, entity type to events about a person or a transaction; an event
 * without the field passes (marked: `unappliedFilters`). Comparisons ignore case.
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
		if (level && !filter.riskLevels.some((r) => upper(r) === level))
			return `risk level ${level} is filtered out`;
	}
	return undefined;
}

/**
 * The filters set that could not be applied to an event it lets through, because the event lacks the filter's field
 * (the interface does not fix every payload's shape): such an event starts the workflow, marked, instead of being
 * dropped without a trace. Risk Levels on FINAL_RISK_UPDATED, Scenario Type on ALERT_CREATED, Entity Type on events
 * other than custom list events.
 */
export function unappliedFilters(
	filter: EventFilter,
	action: string,
	metadata: IDataObject,
): string[] {
	const wanted = upper(action);
	const unapplied: string[] = [];
	if (filter.entityType && !wanted.startsWith('CUSTOM_LIST_') && !entityTypeOf(metadata))
		unapplied.push('Entity Type: the event names no person or transaction (metadata.entityType)');
	if (filter.scenarioType && wanted === 'ALERT_CREATED' && !upper(metadata.scenarioType))
		unapplied.push('Scenario Type: the event has no metadata.scenarioType');
	if (filter.riskLevels?.length && wanted === 'FINAL_RISK_UPDATED' && !riskLevelOf(metadata))
		unapplied.push('Risk Levels: the event has no risk level (metadata.finalRisk)');
	return unapplied;
}

/**
 * What the trigger adds to an event it lets through: `alertType` (MONITORING, SCREENING, MANUAL, or null for an
 * event about no alert), `sample: false` (only the pinned sample events say true, so a workflow can stop them before
 * any send; a delivery cannot claim to be one), and `unappliedFilters` when a filter could not be applied to it.
 */
export function eventFields(
	filter: EventFilter,
	action: string,
	metadata: IDataObject,
): IDataObject {
	const fields: IDataObject = { alertType: alertTypeOf(action), sample: false };
	const unapplied = unappliedFilters(filter, action, metadata);
	if (unapplied.length > 0) fields.unappliedFilters = unapplied;
	return fields;
}
