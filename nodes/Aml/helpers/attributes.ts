import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

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
}

/**
 * The attribute editor shared by persons, transactions and custom-list records: named fields for the
 * spec's typical attributes plus custom key/value pairs, a JSON mode, or the input item's own fields.
 */
export function attributeProperties(options: AttributeFieldOptions): INodeProperties[] {
	return [
		{
			displayName: 'Attributes Input',
			name: 'attributesMode',
			type: 'options',
			noDataExpression: true,
			options: [
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
				'Values: text, arrays or objects (numbers are sent as text), at most 2 levels deep; no "." in keys',
		},
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
			default: options.reservedInputFields.join(', '),
			displayOptions: { show: { attributesMode: ['input'] } },
			description: 'Comma-separated input fields that are not attributes',
		},
	];
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
	return validAttributes(ctx, itemIndex, field, scalarsAsText(attributes)) as IDataObject;
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
