import type { IExecuteFunctions } from 'n8n-workflow';

import { locatorGivenValue } from '../../shared/n8n/parameters';
import { invalid, validId } from '../validation';
import { urlRule } from './locators';

/**
 * A parameter's value for one item: n8n's own `getNodeParameter(name, itemIndex, fallback)`. (Until 0.1.0 the node
 * read plain values and `{{ $json.field }}` expressions itself, which saved about 6 % of n8n's CPU when creating
 * transactions: below the 10 % that would justify re-implementing n8n, so n8n reads every parameter.)
 */
export function itemParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: unknown,
): unknown {
	return fallback === undefined
		? ctx.getNodeParameter(name, itemIndex)
		: ctx.getNodeParameter(name, itemIndex, fallback);
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
		return ctx.getNodeParameter(name, itemIndex, undefined, { extractValue: true });
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
