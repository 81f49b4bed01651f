import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemParameter } from './itemParameter';
import { runsAsTool } from '../../shared/n8n/tools';

/**
 * Output in tool use: an operation whose records have more than 10 fields lets the tool's builder choose what an AI
 * agent gets of each record (Simplified, Raw, or Selected Fields, the record's ID always kept). The parameters are shown
 * only on the node's tool variant (n8n's `@tool` display condition); the node itself keeps its Simplify switch.
 */
export interface ToolOutput {
	/** The record's ID field: kept in Selected Fields whatever is chosen. */
	id: string;
	/** The fields offered in Selected Fields: a top-level field, or an attribute as `attributes.<key>`. */
	fields: string[];
	/** The Simplified record made from the service's record. */
	simplify: (record: IDataObject) => IDataObject;
	/** The list field of an item that holds the records (Screening → Search, One Item per Search); else the item. */
	list?: string;
}

const SIMPLE = 'simple';
const RAW = 'raw';
const SELECTED = 'fields';

/** The Output and Fields parameters of an operation's tool variant. */
export function toolOutputProperties(spec: ToolOutput): INodeProperties[] {
	return [
		{
			displayName: 'Output',
			name: 'toolOutput',
			type: 'options',
			default: SIMPLE,
			description: 'What the agent gets of each record',
			options: [
				{
					name: 'Simplified',
					value: SIMPLE,
					description: 'The key fields of each record',
				},
				{ name: 'Raw', value: RAW, description: 'Every field the AML service returns' },
				{
					name: 'Selected Fields',
					value: SELECTED,
					description: `Only the fields chosen below, and always the ID (${spec.id})`,
				},
			],
			displayOptions: { show: { '@tool': [true] } },
		},
		{
			displayName: 'Fields',
			name: 'toolFields',
			type: 'multiOptions',
			default: [],
			description: `The fields the agent gets; the ID (${spec.id}) is always included`,
			options: spec.fields.map((field) => ({ name: fieldName(field), value: field })),
			displayOptions: { show: { '@tool': [true], toolOutput: [SELECTED] } },
		},
	];
}

/** `attributes.first_name` → `Attribute: first_name`; `createdTime` → `Created Time`. */
function fieldName(field: string): string {
	if (field.startsWith('attributes.')) return `Attribute: ${field.slice('attributes.'.length)}`;
	const words = field.replace(/([a-z])([A-Z])/g, '$1 $2');
	return words.charAt(0).toUpperCase() + words.slice(1);
}

/** How each input item's records are shaped: the item's Output and Fields, checked before any request. */
export function toolOutputShapers(
	ctx: IExecuteFunctions,
	itemCount: number,
	spec: ToolOutput,
): Array<(record: IDataObject) => IDataObject> {
	return Array.from({ length: itemCount }, (_v, itemIndex) => shaper(ctx, itemIndex, spec));
}

/** The successful items of the first output shaped as their input item chose; failed items unchanged. */
export function applyToolOutput(
	outputs: INodeExecutionData[][],
	spec: ToolOutput,
	shapers: Array<(record: IDataObject) => IDataObject>,
): INodeExecutionData[][] {
	const [first = [], ...rest] = outputs;
	const shaped = first.map((item) => {
		if (item.json.error !== undefined) return item;
		const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
		const itemIndex = typeof paired === 'number' ? paired : (paired?.item ?? 0);
		const shape = shapers[itemIndex] ?? shapers[0];
		if (!shape) return item;
		if (!spec.list) return { ...item, json: shape(item.json) };
		const records = item.json[spec.list];
		if (!Array.isArray(records)) return item;
		return { ...item, json: { ...item.json, [spec.list]: (records as IDataObject[]).map(shape) } };
	});
	return [shaped, ...rest];
}

/** How a record of item `itemIndex` is shaped: the item's Output and Fields, checked. */
function shaper(
	ctx: IExecuteFunctions,
	itemIndex: number,
	spec: ToolOutput,
): (record: IDataObject) => IDataObject {
	const output = itemParameter(ctx, 'toolOutput', itemIndex, SIMPLE);
	if (output === RAW) return (record) => record;
	if (output === SIMPLE) return spec.simplify;
	if (output !== SELECTED) {
		throw new NodeOperationError(
			ctx.getNode(),
			`"Output" must be Simplified, Raw or Selected Fields (is ${JSON.stringify(output)})`,
			{ itemIndex },
		);
	}
	const fields = itemParameter(ctx, 'toolFields', itemIndex, []);
	const unknown = Array.isArray(fields)
		? fields.filter((field) => !spec.fields.includes(field as string))
		: [fields];
	if (unknown.length) {
		throw new NodeOperationError(
			ctx.getNode(),
			`"Fields" may only hold the fields it offers (${spec.fields.join(', ')}); not ${unknown.map((f) => JSON.stringify(f)).join(', ')}`,
			{ itemIndex },
		);
	}
	const paths = [spec.id, ...(fields as string[]).filter((field) => field !== spec.id)];
	return (record) => {
		const picked: IDataObject = {};
		for (const path of paths) {
			const [field, key] = path.split('.');
			if (key === undefined) {
				if (record[field] !== undefined) picked[field] = record[field];
				continue;
			}
			const inner = record[field];
			if (!inner || typeof inner !== 'object' || Array.isArray(inner)) continue;
			const value = (inner as IDataObject)[key];
			if (value === undefined) continue;
			const into = (picked[field] ?? {}) as IDataObject;
			into[key] = value;
			picked[field] = into;
		}
		return picked;
	};
}

/** The Simplify switch of the node, shown only on the node itself: its tool variant shows Output instead. */
export const hiddenInToolUse = { hide: { '@tool': [true] } };

/** Whether item `itemIndex` asks for the Simplify switch's shape; never as a tool, where Output shapes the records. */
export function simplifyChosen(ctx: IExecuteFunctions, itemIndex: number, fallback: boolean) {
	return !runsAsTool(ctx) && itemParameter(ctx, 'simplify', itemIndex, fallback) === true;
}
