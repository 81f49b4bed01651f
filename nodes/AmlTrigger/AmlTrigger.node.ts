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
import { MAIN_CONNECTION } from '../shared/n8n/connections';
import { webhookCredentials } from '../shared/n8n/webhookCredentials';
import { properties, SUBTITLE, triggerSettings } from './description';
import { admitDelivery, deliveryKey, firstRuns, KEY_FIELD, triggerIdOf } from './dedup';
import { staleness } from './freshness';
import { eventFields, rejection } from './filters';
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
	SENSITIVE_OUTPUT_FIELDS,
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
		// Credential-equivalent output fields, redacted by n8n itself where it reads this list (n8n-workflow 2.41 has the
		// field; n8n 2.41.1 does not yet apply it, older n8n ignore it: test/contract/sensitiveOutput.test.ts). The
		// trigger redacts the same headers in its output on every n8n.
		sensitiveOutputFields: SENSITIVE_OUTPUT_FIELDS,
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
		const trigger = triggerIdOf(this);
		const { verify, filter, windowMinutes, includeHeaders } = triggerSettings((name, fallback) =>
			this.getNodeParameter(name, fallback),
		);

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
		if (verify) {
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
		const skipped = rejection(filter, action, metadata);
		if (skipped) return { webhookResponse: { received: true, started: false, reason: skipped } };

		// 4. Redelivery of an accepted event (dedup.ts).
		const key = rawBody === undefined ? undefined : deliveryKey(rawBody);
		const admission = admitDelivery(
			trigger,
			key,
			windowMinutes,
			this.getMode() === 'manual',
			Date.now(),
		);
		if (admission === 'duplicate')
			return { webhookResponse: { received: true, started: false, reason: 'duplicate delivery' } };
		if (admission === 'retry later') {
			// The same event was just accepted and its execution has not recorded it yet: ask for a retry rather than
			// start it twice, or drop it if that execution never started.
			res.setHeader('Retry-After', '5');
			return reply(res, 503, 'The same delivery is being processed; retry later');
		}

		const json: IDataObject = {
			...payload,
			action,
			createdTime: payload.createdTime ?? null,
			metadata,
			...eventFields(filter, action, metadata),
		};
		if (includeHeaders) json.headers = redactedHeaders(headers, secretHeaderNames(settings));
		// The key field is the trigger's own: a body that carries one cannot choose the key or pass it on.
		delete json[KEY_FIELD];
		delete json[REFUSAL_FIELD];
		if (key) json[KEY_FIELD] = key;
		return { workflowData: [[{ json }]] };
	}

	/**
	 * n8n runs this as the first step of the execution a delivery started (in a worker, in queue mode), with the items
	 * `webhook()` returned: an item whose delivery ran before outputs nothing (dedup.ts `firstRuns`: n8n's
	 * deduplication store, shared by every process, and this process's own record), so a redelivery after an n8n
	 * restart, after the Deduplication Window, or one another webhook process accepted after this one's execution
	 * recorded it, ends here instead of running the workflow twice.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const refusal =
			this.getMode() === 'manual' && items.length ? refusalIn(items[0].json) : undefined;
		if (refusal) {
			const { message, description } = refusalText(refusal);
			throw new NodeOperationError(this.getNode(), message, { description });
		}
		const { windowMinutes } = triggerSettings((name, fallback) =>
			this.getNodeParameter(name, 0, fallback),
		);
		return [await firstRuns(this, triggerIdOf(this), items, windowMinutes, Date.now())];
	}
}
