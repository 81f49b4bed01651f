// The trigger's description and three methods; its panel's fields are in description.ts, verification, filters,
// deduplication and request parsing in their own files beside it.
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeCredentialTestResult,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { recordedBefore } from '../shared/n8n/deduplication';
import { MAIN_CONNECTION } from '../shared/n8n/connections';
import { webhookCredentials } from '../shared/n8n/webhookCredentials';
import { properties, SUBTITLE } from './description';
import {
	DEFAULT_DEDUP_WINDOW_MINUTES,
	deliveryKey,
	KEY_FIELD,
	MAX_REMEMBERED_DELIVERIES,
	recentDeliveries,
	triggerId,
} from './dedup';
import { staleness } from './freshness';
import { eventFields, rejection, splitList } from './filters';
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

export class AmlTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'AML Trigger',
		name: 'amlTrigger',
		icon: { light: 'file:../../icons/aml.svg', dark: 'file:../../icons/aml.dark.svg' },
		group: ['trigger'],
		// Not 1: for a start node of version 1, n8n evaluates a body option of its own Webhook node's first version as an
		// expression on every delivery (parseRequestBody), which costs an expression isolate per delivery where n8n
		// acquires them lazily. The trigger's one version is 1.1 for that reason alone.
		version: 1.1,
		subtitle: SUBTITLE,
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
		properties,
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

		// A refused delivery is answered `status` and starts nothing. While the editor listens for a test event it is shown
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
				settings = await webhookCredentials<VerificationSettings>(this, 'amlWebhookApi');
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
		const filter = {
			events: this.getNodeParameter('events', []) as string[],
			decisionRules: splitList(options.decisionRules),
			entityType: options.entityType as string | undefined,
			scenarioType: options.scenarioType as string | undefined,
			riskLevels: splitList(options.riskLevels),
		};
		const skipped = rejection(filter, action, metadata);
		if (skipped) return { webhookResponse: { received: true, started: false, reason: skipped } };

		// 4. Redelivery of an accepted event. Not in test mode: a test URL serves one delivery and is removed.
		const windowMinutes = Number(options.dedupWindow ?? DEFAULT_DEDUP_WINDOW_MINUTES);
		const key = rawBody === undefined ? undefined : deliveryKey(rawBody);
		if (key && windowMinutes > 0 && this.getMode() !== 'manual') {
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
			...eventFields(filter, action, metadata),
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
	 * n8n runs this as the first step of the execution a delivery started (in a worker, in queue mode), with the items
	 * `webhook()` returned. It records the delivery's key in n8n's deduplication store (its database, shared by every
	 * process; the newest `maxEntries` keys) where this n8n offers it, and an execution whose key is already there
	 * outputs nothing: a redelivery after an n8n restart, or a copy another webhook process accepted after this one's
	 * execution recorded it, ends here instead of running the workflow twice.
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
		if (windowMinutes <= 0 || this.getMode() === 'manual') return [items];
		const now = Date.now();
		const keyOf = (item: INodeExecutionData) =>
			typeof item.json[KEY_FIELD] === 'string' ? (item.json[KEY_FIELD] as string) : undefined;
		const keys = items.map(keyOf).filter((k): k is string => k !== undefined);
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
		const fresh = (item: INodeExecutionData) => {
			const key = keyOf(item);
			return !key || !(seen.has(key) || ranHere.has(key));
		};
		return [items.filter(fresh)];
	}
}
