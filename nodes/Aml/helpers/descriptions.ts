import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

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
		displayName: 'Timeout (Milliseconds)',
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
		displayName: 'Time Budget (Milliseconds)',
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
	const ms = numberOption(
		ctx,
		itemIndex,
		{ displayName: 'Time Budget', typeOptions: { minValue: 0 } },
		value,
	);
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
