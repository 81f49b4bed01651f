import type { INodeProperties } from 'n8n-workflow';

/**
 * Seam with n8n: the resource mapper (`type: 'resourceMapper'`), n8n's own panel for mapping fields a service names
 * (as its Postgres and Google Sheets nodes map columns), and the shape of the value it stores.
 *
 * Relies on: the parameter's value being `{ mappingMode, value, matchingColumns, schema }`: `mappingMode`
 * 'defineBelow' (each field set in the panel, `value` an object keyed by field id, its expressions resolved by
 * `getNodeParameter(name, i)`, no type checks when the whole parameter is read) or 'autoMapInputData' (Map
 * Automatically: `value` null, the input item's fields taken by name); `schema` the fields the editor loaded
 * (`{ id, displayName, … }`, `removed: true` for a field the user took out). The default the editor starts from is
 * `{ mappingMode, value: null }`.
 * Measured on: every tested n8n (test/n8nVersions.json; test/contract/resourceMapper.test.ts, n8n-core's
 * ExecuteContext).
 * Breaks when n8n changes: a record's attributes read from the mapper are missing or wrong; the node then fails the
 * item naming the field (no attribute mapped), nothing is sent.
 */

/** The mapper's two modes as n8n stores them. */
const DEFINE_BELOW = 'defineBelow';
const AUTO_MAP = 'autoMapInputData';

export interface FieldMapperOptions {
	displayName: string;
	name: string;
	/** The `resourceMapping` method of the node that lists the fields. */
	method: string;
	/** Parameters whose change reloads the fields (e.g. the list's locator value). */
	dependsOn: string[];
	/** Whether a new node starts with Map Automatically (else each field is set below). */
	autoMapByDefault: boolean;
	/** What one field is called in the panel. */
	fieldWords: { singular: string; plural: string };
	description?: string;
	displayOptions?: INodeProperties['displayOptions'];
}

/** A resource mapper parameter: every field the method lists, set below or mapped from the input by name. */
export function fieldMapperProperty(options: FieldMapperOptions): INodeProperties {
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: options.autoMapByDefault ? AUTO_MAP : DEFINE_BELOW, value: null },
		description: options.description,
		displayOptions: options.displayOptions,
		typeOptions: {
			loadOptionsDependsOn: options.dependsOn,
			resourceMapper: {
				resourceMapperMethod: options.method,
				mode: 'add',
				fieldWords: options.fieldWords,
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: true,
			},
		},
	};
}

export interface MappedFields {
	/** Map Automatically: the input item's fields named like `fields` are taken. */
	automatic: boolean;
	/** Define Below: each field's value as set (expressions resolved); empty in automatic mode. */
	values: Record<string, unknown>;
	/** The ids of the fields the editor loaded and the user kept. */
	fields: string[];
}

/** Reads a resource mapper's value as `getNodeParameter(name, i)` answers it. */
export function mappedFields(raw: unknown): MappedFields {
	const value = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
	const schema = Array.isArray(value.schema) ? (value.schema as unknown[]) : [];
	const kept = schema.filter(
		(field): field is { id: unknown; removed?: unknown } =>
			field !== null &&
			typeof field === 'object' &&
			(field as { removed?: unknown }).removed !== true,
	);
	const removed = new Set(
		schema
			.filter((field) => (field as { removed?: unknown } | null)?.removed === true)
			.map((field) => String((field as { id: unknown }).id)),
	);
	const set =
		value.value !== null && typeof value.value === 'object' && !Array.isArray(value.value)
			? (value.value as Record<string, unknown>)
			: {};
	return {
		automatic: value.mappingMode === AUTO_MAP,
		values: Object.fromEntries(Object.entries(set).filter(([key]) => !removed.has(key))),
		fields: kept.map((field) => String(field.id)),
	};
}
