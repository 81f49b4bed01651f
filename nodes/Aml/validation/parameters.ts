import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { isShown } from '../../shared/n8n/displayOptions';
import { invalid } from './fieldErrors';

/** Validates one item (throws the error naming item, field, value and rule), before the item is prepared. */
export type ItemValidator = (itemIndex: number) => void;

/**
 * How parameters are read: `getNodeParameter`'s arguments and answer. The router passes `itemParameter`, which asks
 * n8n once per run for a parameter holding no expression and once per item for one holding an expression.
 */
export type ParameterReader = (
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: unknown,
) => unknown;

/**
 * Validation that applies to every operation's own top-level parameters, for every item: a choice (options,
 * multiOptions) set by an expression must be one of the listed values, and a number must respect its
 * minValue/maxValue (and be whole when `numberPrecision` is 0). n8n enforces neither for expression values,
 * so without this a wrong value would reach the service (or be silently clamped).
 */
export function parameterValidator(
	ctx: IExecuteFunctions,
	properties: INodeProperties[],
	readParameter: ParameterReader,
): ItemValidator {
	const candidates = properties.filter((property) => {
		const isChoice = property.type === 'options' || property.type === 'multiOptions';
		if (isChoice)
			return Boolean(property.options?.length) && !property.typeOptions?.loadOptionsMethod;
		return property.type === 'number';
	});
	const node = ctx.getNode();
	const raw = node.parameters;
	const isExpression = (name: string) =>
		typeof raw[name] === 'string' && (raw[name] as string).startsWith('=');
	// A parameter whose value and visibility are fixed (no expression) is validated once, for every item alike.
	const fixed = new Map<string, string | undefined>();
	const read: Read = (name, itemIndex) => {
		try {
			return readParameter(ctx, name, itemIndex, undefined);
		} catch {
			return undefined;
		}
	};
	return (itemIndex: number) => {
		for (const property of candidates) {
			const constant =
				!isExpression(property.name) &&
				Object.keys(property.displayOptions?.show ?? {}).every((key) => !isExpression(key));
			if (constant && fixed.has(property.name) && fixed.get(property.name) === undefined) continue;
			if (!isShown(property, node, (name) => read(name, itemIndex))) {
				if (constant) fixed.set(property.name, undefined);
				continue;
			}
			const value = read(property.name, itemIndex);
			let broken: string | undefined;
			if (value !== undefined)
				broken =
					property.type === 'number' ? numberRule(property, value) : choiceRule(property, value);
			if (constant) fixed.set(property.name, broken);
			if (broken) throw invalid(ctx, itemIndex, property.displayName, value, broken);
		}
	};
}

/** A parameter's value for one item, or undefined where it cannot be read. */
type Read = (name: string, itemIndex: number) => unknown;

function choiceRule(property: INodeProperties, value: unknown): string | undefined {
	const allowed = (property.options ?? [])
		.map((o) => ('value' in o ? o.value : undefined))
		.filter((v) => v !== undefined);
	const values = property.type === 'multiOptions' && Array.isArray(value) ? value : [value];
	if (values.every((v) => allowed.includes(v as never))) return undefined;
	return `must be one of ${allowed.filter((v) => v !== '').join(', ')}`;
}

/**
 * A number option (inside an Options collection, which `parameterValidator` does not reach) as a number: numeric text
 * from an expression (n8n Variables are always text) is read as its number; anything else outside the property's
 * rule is refused before any request, naming the item and the field.
 */
export function numberOption(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: Pick<INodeProperties, 'displayName' | 'typeOptions'>,
	value: unknown,
): number {
	const broken = numberRule(property, value);
	if (broken) throw invalid(ctx, itemIndex, property.displayName, value, broken);
	return typeof value === 'string' ? Number(value) : (value as number);
}

function numberRule(
	property: Pick<INodeProperties, 'typeOptions'>,
	raw: unknown,
): string | undefined {
	const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
	const { minValue, maxValue, numberPrecision } = (property.typeOptions ?? {}) as {
		minValue?: number;
		maxValue?: number;
		numberPrecision?: number;
	};
	const whole = numberPrecision === 0;
	const kind = whole ? 'a whole number' : 'a number';
	const range =
		minValue !== undefined && maxValue !== undefined
			? ` from ${minValue} to ${maxValue}`
			: minValue !== undefined
				? ` of at least ${minValue}`
				: maxValue !== undefined
					? ` of at most ${maxValue}`
					: '';
	if (typeof value !== 'number' || !Number.isFinite(value) || (whole && !Number.isInteger(value)))
		return `must be ${kind}${range}`;
	if ((minValue !== undefined && value < minValue) || (maxValue !== undefined && value > maxValue))
		return `must be ${kind}${range}`;
	return undefined;
}
