import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as rules from './rules';

function show(value: unknown): string {
	if (value === undefined) return 'nothing';
	const text =
		typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
	return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Bad input: names the item, the field, the value and the rule; thrown before any request. */
export function invalid(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	rule: string,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${itemIndex}: "${field}" ${rule} (value: ${show(value)})`,
		{
			itemIndex,
			description: `Nothing was sent to the AML service for item ${itemIndex}. Fix "${field}" in the node parameters or in the input item and run again.`,
		},
	);
}

type Rule = (value: unknown) => string | undefined;

/** The value, typed, when it keeps the rule; else throws `invalid(...)` naming the broken rule. */
export function valid<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	rule: Rule,
): T {
	const broken = rule(value);
	if (broken) throw invalid(ctx, itemIndex, field, value, broken);
	return value as T;
}

/** An ID as the service stores it: never trimmed or changed; a whole number (from a spreadsheet) becomes its text. */
export const validId = (ctx: IExecuteFunctions, i: number, field: string, value: unknown): string =>
	rules.idText(valid<string | number>(ctx, i, field, value, rules.idRule));

export function validAttributes(
	ctx: IExecuteFunctions,
	i: number,
	field: string,
	value: unknown,
): Record<string, unknown> {
	const broken = rules.attributesRule(value);
	if (broken) {
		const where = broken.path ? `${field}.${broken.path}` : field;
		throw invalid(ctx, i, where, value, broken.rule);
	}
	return value as Record<string, unknown>;
}
