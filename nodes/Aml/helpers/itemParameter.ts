import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeParameters } from 'n8n-workflow';

/**
 * `={{ $json.field }}` or `={{ $json["field name"] }}`: what n8n's editor writes when an input field is dragged
 * onto a parameter, by far the most common expression on per-item IDs and amounts.
 */
const INPUT_FIELD = /^=\{\{\s*\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\])\s*\}\}$/;
const NOT_A_FIELD = new Set(['__proto__', 'constructor', 'prototype']);

interface Source {
	parameters: INodeParameters;
	items: INodeExecutionData[];
}
const sources = new WeakMap<IExecuteFunctions, Source>();

function sourceOf(ctx: IExecuteFunctions): Source {
	let source = sources.get(ctx);
	if (!source) {
		// getNode() returns a deep copy: read the raw parameters once per execution.
		source = { parameters: ctx.getNode().parameters, items: ctx.getInputData() };
		sources.set(ctx, source);
	}
	return source;
}

/**
 * A top-level parameter's value for one item, as `getNodeParameter` gives it. When the parameter is exactly a
 * reference to one input field and that field holds text, a finite number or a boolean, the value is read from
 * the item directly: n8n would return that same value, but evaluating the expression costs a call into its
 * expression sandbox per item (about a fifth of n8n's CPU time when creating transactions). Anything else
 * (other expressions, missing or non-scalar fields) is left to n8n.
 */
export function itemParameter(ctx: IExecuteFunctions, name: string, itemIndex: number, fallback?: unknown): unknown {
	const { parameters, items } = sourceOf(ctx);
	const raw = parameters[name];
	const match = typeof raw === 'string' ? INPUT_FIELD.exec(raw) : null;
	if (match) {
		const field = match[1] ?? match[2] ?? match[3];
		const json: IDataObject | undefined = items[itemIndex]?.json;
		if (json && !NOT_A_FIELD.has(field) && Object.prototype.hasOwnProperty.call(json, field)) {
			const value = json[field];
			if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
				return value;
			}
		}
	}
	return fallback === undefined ? ctx.getNodeParameter(name, itemIndex) : ctx.getNodeParameter(name, itemIndex, fallback);
}
