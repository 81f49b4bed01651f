import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
} from 'n8n-workflow';

import { invalid, RESERVED_KEYS, validId } from '../validation';
import { urlRule, VALUE_MODES } from './locators';

/**
 * `={{ $json.field }}` or `={{ $json["field name"] }}`: what n8n's editor writes when an input field is dragged
 * onto a parameter, by far the most common expression on per-item IDs and amounts.
 */
const INPUT_FIELD =
	/^=\{\{\s*\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\])\s*\}\}$/;

interface Source {
	parameters: INodeParameters;
	items: INodeExecutionData[];
	/** Per parameter path, read once per run: its raw value and whether that holds no expression at any depth. */
	paths: Map<string, { raw: unknown; isStatic: boolean }>;
}
const sources = new WeakMap<IExecuteFunctions, Source>();

function sourceOf(ctx: IExecuteFunctions): Source {
	let source = sources.get(ctx);
	if (!source) {
		// getNode() returns a deep copy: read the raw parameters once per execution.
		source = { parameters: ctx.getNode().parameters, items: ctx.getInputData(), paths: new Map() };
		sources.set(ctx, source);
	}
	return source;
}

/** What lodash's `get(parameters, path)` (n8n's own read) finds for a dotted path; undefined where it finds nothing. */
function rawAt(parameters: INodeParameters, path: string): unknown {
	let current: unknown = parameters;
	for (const key of path.split('.')) {
		if (current === null || current === undefined || RESERVED_KEYS.has(key)) return undefined;
		current = (current as IDataObject)[key];
	}
	return current;
}

/** No string starting with "=" (n8n's mark of an expression) at any depth. */
function holdsNoExpression(value: unknown): boolean {
	if (typeof value === 'string') return !value.startsWith('=');
	if (Array.isArray(value)) return value.every(holdsNoExpression);
	if (value !== null && typeof value === 'object')
		return Object.values(value).every(holdsNoExpression);
	return true;
}

/** A copy of a JSON-like parameter value, as n8n's evaluation returns a new object or list for each call. */
function copyOf(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(copyOf);
	if (value !== null && typeof value === 'object') {
		const copy: IDataObject = {};
		for (const [key, entry] of Object.entries(value))
			copy[key] = copyOf(entry) as IDataObject[keyof IDataObject];
		return copy;
	}
	return value;
}

/**
 * A parameter's value for one item, exactly as `getNodeParameter(name, itemIndex, fallback)` gives it, without
 * n8n's per-call work where the answer is known (each call costs n8n a parameter-schema lookup, a validation
 * pass and, for an expression, a call into its expression sandbox: together about 6 % of n8n's CPU time when
 * creating transactions):
 * - a value with no expression at any depth (what the user typed or picked) is the value itself; an object or a
 *   list is copied, as n8n copies it. n8n's validation after the read only acts on properties that declare
 *   `validateType`, which no property of this package does (a unit test keeps it so);
 * - a value that is exactly a reference to one input field (`{{ $json.id }}`), whose field holds text, a finite
 *   number or a boolean, is read from the item: n8n would return that same value.
 * Anything else (other expressions, missing parameters, non-scalar fields, bracket paths) is left to n8n.
 */
export function itemParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: unknown,
): unknown {
	const source = sourceOf(ctx);
	const viaN8n = () =>
		fallback === undefined
			? ctx.getNodeParameter(name, itemIndex)
			: ctx.getNodeParameter(name, itemIndex, fallback);
	if (name.includes('[')) return viaN8n();
	let path = source.paths.get(name);
	if (!path) {
		const value = rawAt(source.parameters, name);
		path = { raw: value, isStatic: holdsNoExpression(value) };
		source.paths.set(name, path);
	}
	const { raw, isStatic } = path;
	if (raw === undefined) return fallback === undefined ? viaN8n() : fallback;
	if (isStatic) return typeof raw === 'object' ? copyOf(raw) : raw;

	const match = typeof raw === 'string' ? INPUT_FIELD.exec(raw) : null;
	if (match) {
		const field = match[1] ?? match[2] ?? match[3];
		const json: IDataObject | undefined = source.items[itemIndex]?.json;
		if (json && !RESERVED_KEYS.has(field) && Object.prototype.hasOwnProperty.call(json, field)) {
			const value = json[field];
			if (
				typeof value === 'string' ||
				typeof value === 'boolean' ||
				(typeof value === 'number' && Number.isFinite(value))
			) {
				return value;
			}
		}
	}
	return viaN8n();
}

/** A resource locator's value as n8n stores it: `{ __rl: true, mode, value }`. */
function isLocator(value: unknown): value is { mode: string; value: unknown } {
	return value !== null && typeof value === 'object' && 'mode' in value && 'value' in value;
}

/**
 * The ID an item's parameter holds, whether it is a plain string (node versions 1 and 1.1) or a resource locator
 * (from 1.2): what `getNodeParameter(name, itemIndex, undefined, { extractValue: true })` answers for both shapes
 * (n8n returns a plain value as it is, a locator's value, and for a By URL locator the ID its mode's `extractValue`
 * regex reads from the link). Plain values and the modes without extraction (From List, By ID) take
 * `itemParameter`'s fast path; a link that names no ID fails naming the item and the field (`label`).
 */
export function itemLocatorValue(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): unknown {
	const raw = rawAt(sourceOf(ctx).parameters, name);
	if (!isLocator(raw)) return itemParameter(ctx, name, itemIndex);
	if (VALUE_MODES.includes(raw.mode)) return itemParameter(ctx, `${name}.value`, itemIndex);
	try {
		return ctx.getNodeParameter(name, itemIndex, undefined, { extractValue: true });
	} catch {
		// An expression that fails fails here again, with n8n's own error.
		const given = ctx.getNodeParameter(name, itemIndex) as { value?: unknown } | undefined;
		throw invalid(ctx, itemIndex, label, given?.value, urlRule(name));
	}
}

/**
 * The ID an item's parameter `name` holds (plain string or resource locator), validated (`validId`: IDs are sent
 * exactly as given); an error names the field by its `label`.
 */
export function itemId(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string {
	return validId(ctx, itemIndex, label, itemLocatorValue(ctx, name, itemIndex, label));
}
