import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { mappedFields } from '../../shared/n8n/resourceMapper';
import { validAttributes, invalid } from '../validation';
import { itemParameter } from './itemParameter';

export interface KnownAttribute {
	name: string;
	displayName: string;
	description: string;
	placeholder?: string;
}

export interface AttributeFieldOptions {
	/** Attribute names of the spec offered as named fields. */
	known: KnownAttribute[];
	/** Input-item fields never taken as attributes in "Use Input Item Fields" mode (e.g. id, type). */
	reservedInputFields: string[];
	/** Extra hint shown under the mode selector. */
	hint?: string;
	/**
	 * A resource mapper named MAPPED_ATTRIBUTES listing the entity's fields (custom-list records): offered first, as
	 * Map List Fields. The mode a new node starts with is `defaultMode` (also what a saved workflow without the
	 * parameter means), not the mapper.
	 */
	mapper?: INodeProperties;
	defaultMode?: 'fields' | 'input';
}

/** Fields a source adds for its own bookkeeping (Google Sheets' row counter): left out by default in Use Input Item Fields. */
export const SOURCE_BOOKKEEPING_FIELDS = ['row_number'];

/** The resource mapper parameter read in Map List Fields mode (`attributesMode: 'mapper'`). */
export const MAPPED_ATTRIBUTES = 'listFields';

/**
 * The attribute editor shared by persons, transactions and custom-list records: named fields for the
 * spec's typical attributes plus custom key/value pairs, a JSON mode, or the input item's own fields; for records
 * also the list's own fields through n8n's resource mapper (`mapper`).
 */
export function attributeProperties(options: AttributeFieldOptions): INodeProperties[] {
	const properties: INodeProperties[] = [
		{
			displayName: 'Attributes Input',
			name: 'attributesMode',
			type: 'options',
			noDataExpression: true,
			options: [
				...(options.mapper
					? [
							{
								name: 'Map List Fields',
								value: 'mapper',
								description:
									"The list's own fields, loaded from the service: set each one, or map the input item's fields by name",
							},
						]
					: []),
				{
					name: 'Define Below',
					value: 'fields',
					description: 'Named fields and custom key/value pairs',
				},
				{ name: 'JSON', value: 'json', description: 'One JSON object with all attributes' },
				{
					name: 'Use Input Item Fields',
					value: 'input',
					description:
						'Every field of the incoming item becomes an attribute (except the ones listed to leave out)',
				},
			],
			default: 'fields',
			hint:
				options.hint ??
				'Values: text, arrays or objects (numbers sent as text), at most 2 levels deep; empty or null values are not sent',
		},
		...(options.mapper
			? [{ ...options.mapper, displayOptions: { show: { attributesMode: ['mapper'] } } }]
			: []),
		{
			displayName: 'Attributes',
			name: 'attributeFields',
			type: 'collection',
			placeholder: 'Add Attribute',
			default: {},
			displayOptions: { show: { attributesMode: ['fields'] } },
			options: options.known.map((attribute) => ({
				displayName: attribute.displayName,
				name: attribute.name,
				type: 'string',
				default: '',
				placeholder: attribute.placeholder,
				description: attribute.description,
			})),
		},
		{
			displayName: 'Custom Attributes',
			name: 'customAttributes',
			type: 'fixedCollection',
			placeholder: 'Add Custom Attribute',
			typeOptions: { multipleValues: true },
			default: {},
			displayOptions: { show: { attributesMode: ['fields'] } },
			options: [
				{
					displayName: 'Attribute',
					name: 'attribute',
					values: [
						{
							displayName: 'Key',
							name: 'key',
							type: 'string',
							default: '',
							placeholder: 'e.g. customer_segment',
							description: 'Attribute name in snake_case or camelCase; must not contain "."',
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							placeholder: 'e.g. retail',
							description: 'Text. A value starting with [ or { is read as a JSON array or object.',
						},
					],
				},
			],
		},
		{
			displayName: 'Attributes (JSON)',
			name: 'attributesJson',
			type: 'json',
			default: '{}',
			displayOptions: { show: { attributesMode: ['json'] } },
			description: 'All attributes as one JSON object',
		},
		{
			displayName: 'Fields to Leave Out',
			name: 'excludeInputFields',
			type: 'string',
			default: [...options.reservedInputFields, ...SOURCE_BOOKKEEPING_FIELDS].join(', '),
			requiresDataPath: 'multiple',
			displayOptions: { show: { attributesMode: ['input'] } },
			description:
				"Comma-separated names of input fields that are not attributes (drag them from the input panel). row_number is Google Sheets' row counter.",
		},
	];
	return options.defaultMode === undefined
		? properties
		: properties.map((property) =>
				property.name === 'attributesMode'
					? { ...property, default: options.defaultMode }
					: property,
			);
}

/**
 * JSON text → value, or the parser's complaint. (n8n's `jsonParse` with `fallbackValue: undefined` throws instead of
 * falling back, so a bad text would fail with the parser's words, naming neither item nor field.)
 */
export function parseJson(text: string): { value?: unknown; error?: string } {
	try {
		return { value: JSON.parse(text) as unknown };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

function parseMaybeJson(value: string): unknown {
	const trimmed = value.trim();
	if (
		(trimmed.startsWith('[') && trimmed.endsWith(']')) ||
		(trimmed.startsWith('{') && trimmed.endsWith('}'))
	) {
		try {
			return JSON.parse(trimmed);
		} catch {
			return value;
		}
	}
	return value;
}

/** Reads the attributes of one item in whichever mode the user chose and checks the spec's rules. */
export function readAttributes(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field = 'attributes',
): IDataObject {
	const mode = itemParameter(ctx, 'attributesMode', itemIndex, 'fields') as string;
	let attributes: unknown;
	if (mode === 'json') {
		const raw = itemParameter(ctx, 'attributesJson', itemIndex, '{}') as unknown;
		if (typeof raw === 'string') {
			const parsed = parseJson(raw.trim() === '' ? '{}' : raw);
			if (parsed.error !== undefined)
				throw invalid(
					ctx,
					itemIndex,
					`${field} (JSON)`,
					raw,
					`is not valid JSON (${parsed.error})`,
				);
			attributes = parsed.value;
		} else {
			attributes = raw;
		}
	} else if (mode === 'mapper') {
		attributes = mappedAttributes(ctx, itemIndex);
	} else if (mode === 'input') {
		const exclude = String(itemParameter(ctx, 'excludeInputFields', itemIndex, '') ?? '')
			.split(',')
			.map((name) => name.trim())
			.filter(Boolean);
		const json = ctx.getInputData()[itemIndex]?.json ?? {};
		attributes = Object.fromEntries(Object.entries(json).filter(([key]) => !exclude.includes(key)));
	} else {
		const named = (itemParameter(ctx, 'attributeFields', itemIndex, {}) ?? {}) as IDataObject;
		const custom = (itemParameter(ctx, 'customAttributes.attribute', itemIndex, []) ??
			[]) as Array<{ key: string; value: string }>;
		// Collected as entries: an assignment `result[key]` with the key "__proto__" would set the prototype and drop the
		// attribute without a word; as an own key it reaches the attribute rules, which refuse it by name.
		const entries = new Map<string, unknown>();
		for (const [key, value] of Object.entries(named)) {
			if (value !== '' && value !== undefined && value !== null) {
				// Objects and lists (from an expression) stay as they are, as in Custom Attributes; the attribute rules check them.
				entries.set(
					key,
					typeof value === 'string'
						? parseMaybeJson(value)
						: typeof value === 'object'
							? value
							: String(value),
				);
			}
		}
		for (const { key, value } of custom) {
			entries.set(key, typeof value === 'string' ? parseMaybeJson(value) : value);
		}
		attributes = Object.fromEntries(entries);
	}
	return validAttributes(
		ctx,
		itemIndex,
		field,
		scalarsAsText(withoutEmpty(attributes)),
	) as IDataObject;
}

/** An empty value: null, undefined, or text that is empty or only whitespace. */
export function isEmptyValue(value: unknown): boolean {
	return (
		value === null || value === undefined || (typeof value === 'string' && value.trim() === '')
	);
}

/**
 * One rule for every input mode: a top-level attribute whose value is empty (null, empty text: an empty cell of a
 * sheet or a NULL column of a database) is not sent. A write that replaces all attributes then leaves it absent; an
 * update leaves the stored value as it is.
 */
function withoutEmpty(attributes: unknown): unknown {
	if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes))
		return attributes;
	const entries = Object.entries(attributes).filter(([, value]) => !isEmptyValue(value));
	return entries.length === Object.keys(attributes).length
		? attributes
		: Object.fromEntries(entries);
}

/**
 * Map List Fields: the fields set in the mapper (empty ones left out; a value written as a JSON array or object is
 * that array or object), or with Map Automatically the input item's fields named like the list's fields.
 */
function mappedAttributes(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const mapped = mappedFields(itemParameter(ctx, MAPPED_ATTRIBUTES, itemIndex));
	const label = 'List Fields';
	if (mapped.automatic && mapped.fields.length === 0)
		throw invalid(
			ctx,
			itemIndex,
			label,
			'Map Automatically',
			"has no fields of the list loaded: open the node with a fixed Custom List ID so the editor loads the list's fields, or use Use Input Item Fields",
		);
	const entries = new Map<string, unknown>();
	if (mapped.automatic) {
		const json = ctx.getInputData()[itemIndex]?.json ?? {};
		for (const field of mapped.fields)
			// Present with an empty value still counts as mapped (an empty cell); readAttributes leaves the value out.
			if (Object.prototype.hasOwnProperty.call(json, field)) entries.set(field, json[field]);
	} else {
		for (const [key, value] of Object.entries(mapped.values))
			if (!isEmptyValue(value))
				entries.set(key, typeof value === 'string' ? parseMaybeJson(value) : value);
	}
	if (entries.size === 0)
		throw invalid(
			ctx,
			itemIndex,
			label,
			mapped.automatic ? Object.keys(ctx.getInputData()[itemIndex]?.json ?? {}) : {},
			mapped.automatic
				? `maps no field: the item has no field named like a field of the list (${mapped.fields.join(', ')})`
				: 'maps no field: set at least one field of the list',
		);
	return Object.fromEntries(entries) as IDataObject;
}

/** The service carries top-level values as text: numbers and booleans are sent as their text. */
function scalarsAsText(attributes: unknown): unknown {
	if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes))
		return attributes;
	return Object.fromEntries(
		Object.entries(attributes).map(([key, value]) => [
			key,
			(typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean'
				? String(value)
				: value,
		]),
	);
}

/** The attribute keys Transaction → Gate writes as its record on a stored transaction (gate/record.ts). */
export const GATE_RECORD_KEYS = ['n8n_gate_claim', 'n8n_gate_decision', 'n8n_gate_stalled'];

/**
 * Whether an attribute key or CSV column names a key of the Gate's record (one of GATE_RECORD_KEYS, or one of them
 * with a number after it: a later generation's), in any case and in snake_case or camelCase: no write
 * path of this package stores one, so that only a Gate writes its record.
 */
export function isGateRecordKey(name: string): boolean {
	const bare = name.trim().toLowerCase().replace(/[_-]/g, '');
	return GATE_RECORD_KEYS.some((key) => {
		const record = key.replace(/_/g, '');
		return bare.startsWith(record) && /^\d*$/.test(bare.slice(record.length));
	});
}

/** Refuses, before any request, transaction attributes that carry a key of the Gate's record, naming it. */
export function withoutGateRecordKeys(
	ctx: IExecuteFunctions,
	itemIndex: number,
	attributes: IDataObject,
	field = 'attributes',
): IDataObject {
	const key = Object.keys(attributes).find(isGateRecordKey);
	if (key !== undefined)
		throw invalid(
			ctx,
			itemIndex,
			`${field}.${key}`,
			attributes[key],
			'is a key of the record Transaction → Gate writes on the transaction: no other write may set it (leave it out of the attributes)',
		);
	return attributes;
}
