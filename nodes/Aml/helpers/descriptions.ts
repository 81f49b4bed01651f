import type { INodeProperties } from 'n8n-workflow';

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
			'Milliseconds to wait for one answer of the service before the attempt counts as failed',
	},
];

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
		placeholder: 'e.g. Add Option',
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

/** The notice heading an operation that the AML service has deprecated. */
export const deprecationNotice = (replacement: string): INodeProperties => ({
	displayName: `Deprecated by the AML service. ${replacement}`,
	name: 'deprecatedNotice',
	type: 'notice',
	default: '',
});
