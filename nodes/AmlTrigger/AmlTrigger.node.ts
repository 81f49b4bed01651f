// Longer than ~250 lines: the trigger's description (events, verification per version, options) and its three
// methods; verification, filters, deduplication and request parsing are in their own files beside it.
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeCredentialTestResult,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { MAIN_CONNECTION } from '../shared/n8n/connections';
import { recordedBefore } from '../shared/n8n/deduplication';
import {
	DEFAULT_DEDUP_WINDOW_MINUTES,
	deliveryKey,
	KEY_FIELD,
	MAX_REMEMBERED_DELIVERIES,
	recentDeliveries,
	triggerId,
} from './dedup';
import { EVENT_ACTIONS } from './events';
import { staleness } from './freshness';
import { rejection, splitList } from './filters';
import {
	MAX_EVENT_DEPTH,
	nestedDeeperThan,
	payloadOf,
	rawBodyOf,
	redactedHeaders,
	reply,
} from './request';
import {
	REFUSAL_FIELD,
	refusalIn,
	refusalItem,
	refusalLog,
	refusalLogLine,
	refusalOf,
	refusalText,
	verificationFailure,
} from './refusal';
import {
	missingSetting,
	secretHeaderNames,
	verifyDelivery,
	type Headers,
	type VerificationSettings,
} from './verify';

const verification: INodeProperties = {
	displayName: 'Verification',
	name: 'authentication',
	type: 'options',
	options: [
		{
			name: 'AML Webhook Credential',
			value: 'amlWebhookApi',
			description:
				'Check a secret header, HTTP basic auth or an HMAC-SHA256 signature, as the AML account sends it',
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

export class AmlTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'AML Trigger',
		name: 'amlTrigger',
		icon: { light: 'file:../../icons/aml.svg', dark: 'file:../../icons/aml.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ ($parameter["events"] || []).includes("*") ? "All events" : ($parameter["events"] || []).join(", ") }}',
		description:
			'Starts the workflow when the AML service sends a webhook: alerts, screening alerts, risk, person status, custom list records, decision rules',
		defaults: { name: 'AML Trigger' },
		inputs: [],
		outputs: [MAIN_CONNECTION],
		credentials: [
			{
				name: 'amlWebhookApi',
				required: true,
				testedBy: 'amlWebhookApiTest',
				displayOptions: { show: { authentication: ['amlWebhookApi'] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Answered as soon as the delivery is checked and the execution is queued: far inside the service's 9 s read timeout.
				responseMode: 'onReceived',
				// An empty 200 for a started execution (without this n8n answers the literal text "firstEntryJson").
				responseData: 'noData',
				path: 'aml',
			},
		],
		properties: [
			{
				displayName:
					'The AML service has no API to register webhooks. Copy this node\'s <b>Production URL</b> (under "Webhook URLs" above) into the AML web UI\'s webhook settings (needs the administrator role) and publish this workflow. While building, paste the <b>Test URL</b> there instead and click "Listen for test event"; switch back to the Production URL when done.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			verification,
			{
				displayName:
					'Set the AML Webhook API credential to what your AML account sends with each webhook: by default a secret header (<b>X-AML-Secret</b>, or the name you give it in the AML web UI\'s webhook settings); or an <b>Authorization: Basic</b> header; or a signature header such as <b>X-AML-Signature</b>. A delivery that does not match is answered 401: while "Listen for test event" runs it is shown here with the names of the headers that arrived and the method that would match them; in production each refusal is written to n8n\'s log.',
				name: 'verificationNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { authentication: ['amlWebhookApi'] } },
			},
			{
				displayName:
					'<b>No verification</b>: anyone who learns this URL can start the workflow with a forged event (a fake alert, a fake "cleared" decision). Choose the AML Webhook credential unless the URL is reachable only from the AML service.',
				name: 'noVerificationNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { authentication: ['none'] } },
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: [
					{ name: 'All Events', value: '*', description: 'Every event, also every decision rule' },
					...EVENT_ACTIONS,
				],
				default: ['*'],
				description:
					'Events that start the workflow. Other deliveries are answered 200 (so the service does not retry them) and start nothing.',
			},
			{
				displayName: 'Decision Rule Names',
				name: 'decisionRules',
				type: 'string',
				default: '',
				placeholder: 'e.g. PERSON_CLEARED, TRANSACTION_CLEARED',
				description:
					'Decision rules configured in the AML UI whose webhooks start the workflow, separated by commas. PERSON and TRANSACTION webhooks send the name of the rule that succeeded as the event. Not needed when Events has All Events.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Deduplication Window (Minutes)',
						name: 'dedupWindow',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: DEFAULT_DEDUP_WINDOW_MINUTES,
						description:
							'The service retries until it gets a 2xx and may deliver an event twice. A delivery whose body equals one accepted within this many minutes is answered 200 and does not run the workflow again (while the execution of the first has not recorded it yet, the copy is answered 503 with Retry-After 5, so the service sends it again). 0 turns this off.',
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
							'Only Final Risk Updated events whose new risk level is one of these, separated by commas (for example LOW, LOW_TO_MEDIUM, MEDIUM, MEDIUM_TO_HIGH, HIGH, UNACCEPTABLE). Other events are not filtered.',
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
							'Only alerts of this scenario type (metadata.scenarioType, any case). Events without a scenario type are not filtered.',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			/** The service offers nothing to call with these secrets: the test checks that the settings are complete. */
			async amlWebhookApiTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const missing = missingSetting((credential.data ?? {}) as Partial<VerificationSettings>);
				return missing
					? { status: 'Error', message: missing }
					: { status: 'OK', message: 'Verification settings are complete' };
			},
		},
	};

	/**
	 * The service has no API to register or remove webhooks: the user pastes the URL into its UI. These methods
	 * are honest no-ops. checkExists answers true ("nothing to register"), so n8n never calls create and
	 * publishes the workflow at once; delete has nothing to remove.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();
		const headers = this.getHeaderData() as Headers;
		const rawBody = await rawBodyOf(req);
		const trigger = triggerId(this.getWorkflow().id, this.getNode().name);

		// A refused delivery is answered `status` and starts nothing. While "Listen for test event" runs it is shown
		// in the editor (the test execution fails at this node, saying why); at run time it leaves a line in n8n's log.
		const refuse = (status: number, message: string, reason: string): IWebhookResponseData => {
			const refusal = refusalOf(status, reason, headers);
			const answered = reply(res, status, message);
			if (this.getMode() === 'manual')
				return { ...answered, workflowData: [[{ json: refusalItem(refusal) }]] };
			const { log, unlogged } = refusalLog.take(trigger, Date.now());
			if (log)
				this.logger.warn(
					refusalLogLine(this.getNode().name, this.getWorkflow().id, refusal, unlogged),
				);
			return answered;
		};

		// 1. Verification, on the raw bytes, before anything else is looked at.
		let settings: VerificationSettings | undefined;
		if (this.getNodeParameter('authentication', 'amlWebhookApi') === 'amlWebhookApi') {
			const failed = 'Webhook verification failed';
			try {
				settings = await this.getCredentials<VerificationSettings>('amlWebhookApi');
			} catch {
				// Settings that cannot be read (an expression that fails) verify nothing.
				return refuse(401, failed, 'the AML Webhook API credential could not be read');
			}
			if (!verifyDelivery(settings, headers, rawBody)) {
				if (settings.method === 'basicAuth')
					res.setHeader('WWW-Authenticate', 'Basic realm="AML webhook"');
				return refuse(401, failed, verificationFailure(settings, headers, rawBody));
			}
		}

		// 2. The payload {action, createdTime, metadata}, from the bytes that were verified.
		const payload = payloadOf(rawBody);
		if (!payload) {
			const notEvent = 'Not an AML event: expected a JSON object with a text "action"';
			return refuse(400, notEvent, notEvent);
		}
		if (nestedDeeperThan(payload, MAX_EVENT_DEPTH)) {
			const deep = `Not an AML event: nested deeper than ${MAX_EVENT_DEPTH} levels`;
			return refuse(400, deep, deep);
		}
		// A verified delivery dated outside the service's retry span is a replayed capture: refused, nothing started.
		const stale = settings && staleness(payload.createdTime, Date.now());
		if (stale) return refuse(400, stale, stale);
		const action = String(payload.action);
		const metadata = (
			payload.metadata && typeof payload.metadata === 'object' ? payload.metadata : {}
		) as IDataObject;

		// 3. Event selection and filters: answered 200 so that the service does not retry them.
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const skipped = rejection(
			{
				events: this.getNodeParameter('events', []) as string[],
				decisionRules: splitList(this.getNodeParameter('decisionRules', '')),
				entityType: options.entityType as string | undefined,
				scenarioType: options.scenarioType as string | undefined,
				riskLevels: splitList(options.riskLevels),
			},
			action,
			metadata,
		);
		if (skipped) return { webhookResponse: { received: true, started: false, reason: skipped } };

		// 4. Redelivery of an accepted event. Not in test mode: a test URL serves one delivery and is removed.
		const windowMinutes = Number(options.dedupWindow ?? DEFAULT_DEDUP_WINDOW_MINUTES);
		let key: string | undefined;
		if (windowMinutes > 0 && this.getMode() !== 'manual' && rawBody !== undefined) {
			key = deliveryKey(rawBody);
			const now = Date.now();
			const here = recentDeliveries.state(trigger, key, now, windowMinutes);
			if (here === 'recorded') {
				return {
					webhookResponse: { received: true, started: false, reason: 'duplicate delivery' },
				};
			}
			if (here === 'pending') {
				// The same event was just accepted and its execution has not recorded it yet: ask for a retry
				// rather than start it twice, or drop it if that execution never started.
				res.setHeader('Retry-After', '5');
				return reply(res, 503, 'The same delivery is being processed; retry later');
			}
			recentDeliveries.markPending(trigger, key, now);
		}

		const json: IDataObject = {
			...payload,
			action,
			createdTime: payload.createdTime ?? null,
			metadata,
		};
		if (options.includeHeaders)
			json.headers = redactedHeaders(headers, secretHeaderNames(settings));
		// The key field is the trigger's own: a body that carries one cannot choose the key or pass it on.
		delete json[KEY_FIELD];
		delete json[REFUSAL_FIELD];
		if (key) json[KEY_FIELD] = key;
		return { workflowData: [[{ json }]] };
	}

	/**
	 * n8n runs this as the first step of the execution a delivery started (in a worker, in queue mode). It records
	 * the delivery's key in n8n's deduplication store (its database, shared by every process; `maxEntries` newest
	 * keys) where this n8n offers it, and an execution whose key is already there outputs nothing: a redelivery after
	 * an n8n restart, or a copy another webhook process accepted, ends here instead of running the workflow twice.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const refusal =
			this.getMode() === 'manual' && items.length ? refusalIn(items[0].json) : undefined;
		if (refusal) {
			const { message, description } = refusalText(refusal);
			throw new NodeOperationError(this.getNode(), message, { description });
		}
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		const windowMinutes = Number(options.dedupWindow ?? DEFAULT_DEDUP_WINDOW_MINUTES);
		const now = Date.now();
		const keyOf = (item: INodeExecutionData) =>
			typeof item.json[KEY_FIELD] === 'string' ? (item.json[KEY_FIELD] as string) : undefined;
		const deduplicate = windowMinutes > 0 && this.getMode() !== 'manual';
		const keys = deduplicate ? items.map(keyOf).filter((k): k is string => k !== undefined) : [];
		// Claimed in this process first, in one synchronous step (no await between the read and the mark): an execution
		// of the same delivery that already ran here (a copy accepted again after PENDING_MS while the first execution
		// waited to start on a loaded n8n) stops this one, whatever n8n's store answers for executions running together.
		const ranHere = new Set<string>();
		const trigger = triggerId(this.getWorkflow().id, this.getNode().name);
		for (const key of keys) {
			if (recentDeliveries.state(trigger, key, now, windowMinutes) === 'recorded') ranHere.add(key);
			recentDeliveries.markRecorded(trigger, key, now);
		}
		const seen = await recordedBefore(this, keys, MAX_REMEMBERED_DELIVERIES);
		const out: INodeExecutionData[] = [];
		for (const item of items) {
			const key = keyOf(item);
			const json = { ...item.json };
			delete json[KEY_FIELD];
			if (key && deduplicate && (seen.has(key) || ranHere.has(key))) continue;
			out.push({ ...item, json });
		}
		return [out];
	}
}
