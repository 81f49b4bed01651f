import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { itemParameter } from './itemParameter';

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
