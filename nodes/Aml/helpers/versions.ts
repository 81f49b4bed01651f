import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { itemParameter } from './itemParameter';
import type { Locator } from './locators';

/**
 * Parameters whose default changed with AML node version 1.1. n8n does not store a parameter that equals its
 * default, so a changed default changes saved workflows: each such parameter exists twice, shown by version, and a
 * saved version 1 node keeps its old default.
 */
export function byVersion(
	property: INodeProperties,
	defaults: { v1: INodeProperties['default']; v11: INodeProperties['default'] },
): INodeProperties[] {
	return [
		{
			...property,
			default: defaults.v11,
			displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
		},
		{ ...property, default: defaults.v1, displayOptions: { show: { '@version': [1] } } },
	];
}

/** Simplify: on by default from version 1.1 where the full answer is large (an agent or a person reads it). */
export function simplifyByVersion(property: INodeProperties): INodeProperties[] {
	return byVersion(property, { v1: false, v11: true });
}

/** Reads Simplify of an item with the default of the node's version. */
export function readSimplify(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return itemParameter(ctx, 'simplify', itemIndex, ctx.getNode().typeVersion >= 1.1) === true;
}

/** The first AML node version whose ID parameters are resource locators. */
export const LOCATOR_VERSION = 1.2;

/**
 * An ID parameter as a resource locator from version 1.2 (`modes`, helpers/locators.ts), and as the plain string it
 * was in versions 1 and 1.1: same name, so a saved node keeps its value, its default and its behaviour. Read either
 * with `itemLocatorValue` (helpers/itemParameter.ts).
 */
export function locatorByVersion(property: INodeProperties, locator: Locator): INodeProperties[] {
	const { modes } = locator;
	const shownFrom = (versions: NonNullable<IDisplayOptions['show']>['@version']) => ({
		...property.displayOptions,
		show: { ...property.displayOptions?.show, '@version': versions },
	});
	// Each mode has its own placeholder.
	const rest: INodeProperties = { ...property };
	delete rest.placeholder;
	return [
		{
			...rest,
			type: 'resourceLocator',
			default: { mode: modes[0].name, value: '' },
			modes,
			displayOptions: shownFrom([{ _cnd: { gte: LOCATOR_VERSION } }]),
		},
		{ ...property, displayOptions: shownFrom([1, 1.1]) },
	];
}
