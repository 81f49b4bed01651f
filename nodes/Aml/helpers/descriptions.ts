import type { IExecuteFunctions, INodeProperties, NodeParameterValue } from 'n8n-workflow';

import type { Deadline } from '../transport';
import { numberOption } from '../validation';
import { itemParameter } from './itemParameter';

/**
 * Descriptions every operation shares, built in one place (as n8n's Airtable v2 does in `common.descriptions.ts`):
 * an operation passes its own fields in.
 */

export const DEFAULT_PARALLEL_REQUESTS = 8;

/** Options every per-item operation offers, last in its Options collection. */
export const requestOptions: INodeProperties[] = [
	{
		displayName: 'Parallel Requests',
		name: 'parallelRequests',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 32 },
		default: DEFAULT_PARALLEL_REQUESTS,
		description:
			'How many items are sent to the service at the same time. Output order and item pairing are kept. Lower it if your contract has a low rate limit.',
	},
	{
		displayName: 'Timeout',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1000 },
		default: 30000,
		description:
			'Milliseconds to wait for one answer of the service before the attempt counts as failed (a first token fetch of the credential included)',
	},
];

/**
 * "Time Budget": how long one item may take in this node, all attempts and waits included (0: no budget). A payment
 * gate needs an answer in bounded time; see `deadline` in transport/request.ts.
 */
export function timeBudgetOption(defaultMs: number, purpose: string): INodeProperties {
	return {
		displayName: 'Time Budget',
		name: 'timeBudget',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: defaultMs,
		description: `Milliseconds one item may take in this node, retries and waits included; 0 for no limit. ${purpose}.`,
	};
}

/**
 * The item's Time Budget as a deadline counted from `startedAt`, the node's start (what the caller has waited), or
 * none for 0. Numeric text is read as its number; anything else is refused before any request.
 */
export function timeBudgetDeadline(
	ctx: IExecuteFunctions,
	itemIndex: number,
	defaultMs: number,
	startedAt: number,
): Deadline | undefined {
	const value = itemParameter(ctx, 'options.timeBudget', itemIndex, defaultMs);
	const ms = numberOption(ctx, itemIndex, timeBudgetOption(defaultMs, ''), value);
	return ms > 0 ? { at: startedAt + ms, ms } : undefined;
}

/** Another default and description of a request option, for an operation whose requests differ (file uploads). */
export type RequestOptionChanges = Partial<
	Record<'parallelRequests' | 'timeout', Pick<INodeProperties, 'default' | 'description'>>
>;

/**
 * The one Options collection of every operation: the operation's own options (`extra`), then the request options,
 * with the defaults and descriptions given in `changes`.
 */
export function optionsCollection(
	extra: INodeProperties[] = [],
	changes: RequestOptionChanges = {},
): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			...extra,
			...requestOptions.map((option) => {
				const change = changes[option.name as keyof RequestOptionChanges];
				return change ? { ...option, ...change } : option;
			}),
		],
	};
}

/** The notice heading an operation whose endpoint the AML service marks deprecated: what to know before using it. */
export const deprecationNotice = (note: string): INodeProperties => ({
	displayName: note,
	name: 'deprecatedNotice',
	type: 'notice',
	default: '',
});

type Shown = { resource?: NodeParameterValue[]; operation?: NodeParameterValue[] };
const shownFor = (property: INodeProperties): Shown =>
	(property.displayOptions?.show ?? {}) as Shown;

/** Whether `property` can be shown for this resource and operation (its other conditions are taken as met). */
function canShowFor(
	property: INodeProperties,
	resource: NodeParameterValue,
	operation: NodeParameterValue,
): boolean {
	const { resource: resources, operation: operations } = shownFor(property);
	return (
		(!resources || resources.includes(resource)) && (!operations || operations.includes(operation))
	);
}

/** What a copy is made of besides its operations: the property with `show.operation` left out. */
function withoutOperations(property: INodeProperties): string {
	const show = { ...property.displayOptions?.show };
	delete show.operation;
	return JSON.stringify({ ...property, displayOptions: { ...property.displayOptions, show } });
}

/**
 * The node's properties with the copies operations make of a shared field (the same Person ID, Options, Attributes,
 * …, one per operation) merged into one property shown for all their operations. Every operation's fields keep their
 * order: the properties are ordered again so that each operation's sequence is kept (a topological order of those
 * sequences, as close to the original as they allow); a merge that no order could satisfy is not made. n8n walks every
 * property of the node each time it builds a workflow (`getNodeParameters`, several times per execution), so fewer
 * properties cost less (figures in docs/performance.md). The panel and what n8n stores are unchanged
 * (test/unit/descriptions.test.ts compares every operation with n8n's own functions).
 */
export function mergeOperationCopies(properties: INodeProperties[]): INodeProperties[] {
	const n = properties.length;
	// every resource/operation the panel can show, and the properties each can show, in their order
	const views: Array<[NodeParameterValue, NodeParameterValue]> = [];
	const seen = new Set<string>();
	for (const p of properties)
		for (const resource of shownFor(p).resource ?? [])
			for (const operation of shownFor(p).operation ?? []) {
				const key = JSON.stringify([resource, operation]);
				if (seen.has(key)) continue;
				seen.add(key);
				views.push([resource, operation]);
			}
	const sequences = views.map(([r, o]) =>
		properties.flatMap((p, i) => (canShowFor(p, r, o) ? [i] : [])),
	);

	// union-find over properties: a merged group is one node of the order
	const root = Array.from({ length: n }, (_, i) => i);
	const find = (i: number): number => (root[i] === i ? i : (root[i] = find(root[i])));
	const acyclic = (): boolean => {
		const next = new Map<number, Set<number>>();
		for (const sequence of sequences)
			for (let k = 1; k < sequence.length; k++) {
				const [a, b] = [find(sequence[k - 1]), find(sequence[k])];
				if (a === b) return false;
				next.set(a, (next.get(a) ?? new Set()).add(b));
			}
		const state = new Map<number, 1 | 2>();
		const visit = (v: number): boolean => {
			if (state.get(v) === 2) return true;
			if (state.get(v) === 1) return false;
			state.set(v, 1);
			for (const w of next.get(v) ?? []) if (!visit(w)) return false;
			state.set(v, 2);
			return true;
		};
		return [...next.keys()].every(visit);
	};

	const groups = new Map<string, number[]>();
	properties.forEach((p, i) => {
		const { resource, operation } = shownFor(p);
		if (resource?.length !== 1 || !operation?.length || p.displayOptions?.hide) return;
		const key = withoutOperations(p);
		groups.set(key, [...(groups.get(key) ?? []), i]);
	});
	for (const members of groups.values()) {
		if (members.length < 2) continue;
		const before = [...root];
		for (const i of members.slice(1)) root[find(i)] = find(members[0]);
		if (!acyclic()) root.splice(0, n, ...before);
	}

	// the order: each step takes, of the nodes whose predecessors are placed, the one first in the original list
	const preds = new Map<number, Set<number>>();
	for (const sequence of sequences)
		for (let k = 1; k < sequence.length; k++)
			preds.set(
				find(sequence[k]),
				(preds.get(find(sequence[k])) ?? new Set()).add(find(sequence[k - 1])),
			);
	const nodes = [...new Set(properties.map((_, i) => find(i)))];
	const placed = new Set<number>();
	const result: INodeProperties[] = [];
	while (placed.size < nodes.length) {
		const ready = nodes.find(
			(v) => !placed.has(v) && [...(preds.get(v) ?? [])].every((u) => placed.has(u)),
		) as number;
		placed.add(ready);
		const members = properties.flatMap((_, i) => (find(i) === ready ? [i] : []));
		const first = properties[members[0]];
		result.push(
			members.length === 1
				? first
				: {
						...first,
						displayOptions: {
							...first.displayOptions,
							show: {
								...first.displayOptions?.show,
								operation: [
									...new Set(members.flatMap((i) => shownFor(properties[i]).operation ?? [])),
								],
							},
						},
					},
		);
	}
	return result;
}
