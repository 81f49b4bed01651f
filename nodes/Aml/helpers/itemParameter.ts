import type { IExecuteFunctions } from 'n8n-workflow';

import { holdsExpression, locatorGivenValue } from '../../shared/n8n/parameters';
import { invalid, validId } from '../validation';
import { urlRule } from './locators';

/**
 * A parameter's value for one item: n8n's own `getNodeParameter(name, itemIndex, fallback)`; the node never evaluates
 * a parameter itself. A parameter with no expression anywhere in it (`holdsExpression`) has the same value for every
 * item: n8n reads it for the first item that asks, and the other items of the run get that answer (a copy, so no item
 * changes another's).
 */
export function itemParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: unknown,
): unknown {
	return sameForEveryItem(ctx, name, fallback, 'value', () =>
		fallback === undefined
			? ctx.getNodeParameter(name, itemIndex)
			: ctx.getNodeParameter(name, itemIndex, fallback),
	);
}

/** Answers of parameters that cannot vary between items, per run (one context per run of the node). */
const runAnswers = new WeakMap<object, Map<string, { value: unknown } | typeof VARIES>>();
const VARIES = Symbol('varies');

/**
 * `read()`'s answer, or the answer it gave for an earlier item of the run when the parameter `name` (and `fallback`,
 * where it is unset) holds no expression. Only plain data is kept; a read that throws is not (every item fails alike).
 */
function sameForEveryItem(
	ctx: IExecuteFunctions,
	name: string,
	fallback: unknown,
	how: string,
	read: () => unknown,
): unknown {
	if (typeof ctx.getNode !== 'function') return read();
	let answers = runAnswers.get(ctx);
	if (!answers) runAnswers.set(ctx, (answers = new Map()));
	const key = `${how}\u0000${name}\u0000${fallback === undefined ? '' : JSON.stringify(fallback)}`;
	const known = answers.get(key);
	if (known === VARIES) return read();
	if (known) return copy(known.value);
	const value = read();
	const raw = parameterAt(ctx.getNode().parameters, name);
	answers.set(
		key,
		!holdsExpression(raw === undefined ? fallback : raw) && isPlainData(value)
			? { value: copy(value) }
			: VARIES,
	);
	return value;
}

/** The stored value at a dotted path (`options.timeBudget`), as n8n's `get` reads it; undefined where absent. */
function parameterAt(parameters: unknown, path: string): unknown {
	let value = parameters;
	for (const part of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[part];
	}
	return value;
}

function isPlainData(value: unknown): boolean {
	if (value === null || typeof value !== 'object')
		return typeof value !== 'function' && typeof value !== 'symbol' && typeof value !== 'bigint';
	if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return false;
	return Object.values(value as Record<string, unknown>).every(isPlainData);
}

function copy(value: unknown): unknown {
	if (value === null || typeof value !== 'object') return value;
	if (Array.isArray(value)) return value.map(copy);
	// fromEntries: a key "__proto__" stays an own key, as in the answer.
	return Object.fromEntries(
		Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, copy(v)]),
	);
}

/**
 * The ID an item's parameter holds, whether it is a resource locator or a plain string (a workflow written through
 * n8n's API, by an AI builder or by hand): n8n's `getNodeParameter(name, itemIndex, undefined, { extractValue: true })`
 * answers a locator's value (for a By URL locator, the ID its mode's `extractValue` regex reads from the link) and a
 * plain value as it is. A link that names no ID fails naming the item and the field (`label`).
 */
export function itemLocatorValue(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): unknown {
	try {
		return sameForEveryItem(ctx, name, undefined, 'extractValue', () =>
			ctx.getNodeParameter(name, itemIndex, undefined, { extractValue: true }),
		);
	} catch {
		// An expression that fails fails here again, with n8n's own error.
		const given = locatorGivenValue(ctx.getNodeParameter(name, itemIndex));
		throw invalid(ctx, itemIndex, label, given, urlRule(name));
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
