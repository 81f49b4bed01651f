// The AML Trigger's panel (its fields and the canvas subtitle) and the one reader of its settings, kept apart from
// its methods as n8n's own nodes keep their descriptions.
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { DEFAULT_DEDUP_WINDOW_MINUTES } from './dedup';
import { EVENT_ACTIONS } from './events';
import { splitList, type EventFilter } from './filters';

const ALL_EVENTS = {
	name: 'All Events',
	value: '*',
	description: 'Every event, also every decision rule',
};

/** The canvas shows the names of the chosen events, as the Events field does. */
const EVENT_NAMES: Record<string, string> = Object.fromEntries(
	[ALL_EVENTS, ...EVENT_ACTIONS].map(({ value, name }) => [value, name]),
);
export const SUBTITLE = `={{ ($parameter["events"] || []).map(e => (${JSON.stringify(EVENT_NAMES)})[e] || e).join(", ") }}`;

const verification: INodeProperties = {
	displayName: 'Verification',
	name: 'authentication',
	type: 'options',
	options: [
		{
			name: 'AML Webhook API',
			value: 'amlWebhookApi',
			description:
				'Check a secret header, HTTP basic auth or an HMAC-SHA256 signature with the AML Webhook API credential',
		},
		{
			name: 'None',
			value: 'none',
			description: 'Accept every delivery (only on a trusted network)',
		},
	],
	default: 'amlWebhookApi',
	description:
		'How a delivery proves it comes from the AML service. A delivery that fails is answered 401 and starts nothing.',
};

const events: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	options: [ALL_EVENTS, ...EVENT_ACTIONS],
	default: ['ALERT_CREATED'],
	description:
		'Events that start the workflow. Other deliveries are answered 200 (so the service does not retry them) and start nothing. All Events includes every custom list record change. Empty: only the decision rules under Options.',
};

const options: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Decision Rule Names',
			name: 'decisionRules',
			type: 'string',
			default: '',
			placeholder: 'e.g. PERSON_CLEARED, TRANSACTION_CLEARED',
			description:
				'A decision rule, set up in the AML web UI, runs on all alerts of a person or transaction whenever one of them changes; when it succeeds (for example all alerts closed) the service sends a webhook named after the rule. Names of the rules that start the workflow, separated by commas. Not needed with All Events.',
		},
		{
			displayName: 'Deduplication Window (Minutes)',
			name: 'dedupWindow',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: DEFAULT_DEDUP_WINDOW_MINUTES,
			description:
				"The service retries until it gets a 2xx and may deliver an event twice; a delivery whose body equals an accepted one is a copy. While the first one's execution has not recorded it, a copy is answered 503 with Retry-After 5 (the service sends it again). Within this many minutes after, a copy is answered 200 and starts nothing in the same n8n process. Any other copy starts an execution that ends at this node with no output, for as long as n8n's deduplication store keeps the event (the newest 10,000 of this trigger, with no time limit). 0 turns all of this off: every copy runs the workflow.",
		},
		{
			displayName: 'Entity Type',
			name: 'entityType',
			type: 'options',
			options: [
				{ name: 'Any', value: '' },
				{ name: 'Person', value: 'PERSON' },
				{ name: 'Transaction', value: 'TRANSACTION' },
			],
			default: '',
			description:
				'Only events about a person, or about a transaction (metadata.entityType, otherwise whether the event names a transaction). Events about neither, such as custom list records, are not filtered.',
		},
		{
			displayName: 'Include Headers',
			name: 'includeHeaders',
			type: 'boolean',
			default: false,
			description:
				'Whether to add the request headers to the output, as "headers". The verification header and Authorization are shown as [redacted].',
		},
		{
			displayName: 'Risk Levels',
			name: 'riskLevels',
			type: 'string',
			default: '',
			placeholder: 'e.g. HIGH, UNACCEPTABLE',
			description:
				'Only Final Risk Updated events whose new risk level is one of these, separated by commas (for example LOW, LOW_TO_MEDIUM, MEDIUM, MEDIUM_TO_HIGH, HIGH, UNACCEPTABLE). Other events are not filtered; one without a risk level (metadata.finalRisk) starts the workflow, with "unappliedFilters" naming this filter.',
		},
		{
			displayName: 'Scenario Type',
			name: 'scenarioType',
			type: 'options',
			options: [
				{ name: 'Any', value: '' },
				{ name: 'Offline', value: 'OFFLINE' },
				{ name: 'Online', value: 'ONLINE' },
				{ name: 'Periodic', value: 'PERIODIC' },
			],
			default: '',
			description:
				'Only alerts of this scenario type (metadata.scenarioType, any case). Events without a scenario type are not filtered (an Alert Created without one says so in "unappliedFilters").',
		},
	],
};

/** The panel: setup notice, verification, events, options. */
export const properties: INodeProperties[] = [
	{
		displayName:
			'Paste this node\'s <b>Production URL</b> (under "Webhook URLs") into the AML web UI\'s webhook settings and publish the workflow. To try it, paste the <b>Test URL</b> and click <b>Execute step</b>. A refused delivery is shown here.',
		name: 'setupNotice',
		type: 'notice',
		default: '',
	},
	verification,
	{
		displayName:
			'<b>No verification</b>: anyone who learns this URL can start the workflow with a forged event (a fake alert, a fake "cleared" decision). Choose AML Webhook API unless the URL is reachable only from the AML service.',
		name: 'noVerificationNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { authentication: ['none'] } },
	},
	events,
	options,
];

/** The trigger's settings, read in one place for `webhook()` and `execute()`. */
export interface TriggerSettings {
	/** Whether deliveries are verified with the AML Webhook API credential. */
	verify: boolean;
	filter: EventFilter;
	/** The Deduplication Window; 0 turns deduplication off. */
	windowMinutes: number;
	includeHeaders: boolean;
}

/** Reads the settings through the context's `getNodeParameter` (`(name, fallback)`, item 0 in `execute()`). */
export function triggerSettings(
	read: (name: string, fallback: unknown) => unknown,
): TriggerSettings {
	const options = (read('options', {}) ?? {}) as IDataObject;
	return {
		verify: read('authentication', 'amlWebhookApi') === 'amlWebhookApi',
		filter: {
			events: (read('events', []) ?? []) as string[],
			decisionRules: splitList(options.decisionRules),
			entityType: options.entityType as string | undefined,
			scenarioType: options.scenarioType as string | undefined,
			riskLevels: splitList(options.riskLevels),
		},
		windowMinutes: Number(options.dedupWindow ?? DEFAULT_DEDUP_WINDOW_MINUTES),
		includeHeaders: Boolean(options.includeHeaders),
	};
}
