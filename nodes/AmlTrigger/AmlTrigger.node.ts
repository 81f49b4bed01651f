import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	INodeCredentialTestResult,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { EVENT_ACTIONS } from './events';
import { deliveryKey, missingSetting, seenBefore, verifyDelivery, type VerificationSettings } from './verify';

export class AmlTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'AML Trigger',
		name: 'amlTrigger',
		icon: { light: 'file:aml.svg', dark: 'file:aml.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		description: 'Starts the workflow when the AML service sends a webhook (alerts, risk, statuses, custom lists, decision rules)',
		defaults: { name: 'AML Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
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
				responseMode: 'onReceived',
				path: 'aml',
			},
		],
		properties: [
			{
				displayName:
					'The service has no API to register webhooks: copy this node\'s <b>Production URL</b> (above) into the AML UI under webhook settings (administrator role) and publish this workflow. Use the Test URL only while building.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Verification',
				name: 'authentication',
				type: 'options',
				options: [
					{ name: 'AML Webhook Credential', value: 'amlWebhookApi', description: 'Secret header, basic auth or HMAC signature' },
					{ name: 'None', value: 'none', description: 'Accept every delivery (only on trusted networks)' },
				],
				default: 'none',
				description: 'How deliveries are checked; a delivery that fails gets 401 and starts nothing',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: [{ name: '*', value: '*', description: 'Every event' }, ...EVENT_ACTIONS.map((e) => ({ ...e }))],
				default: ['*'],
				required: true,
				description: 'Events that start the workflow; other deliveries are answered 200 and start nothing',
			},
			{
				displayName: 'Decision Rule Names',
				name: 'decisionRules',
				type: 'string',
				default: '',
				placeholder: 'PERSON_CLEARED, TRANSACTION_CLEARED',
				description:
					'Comma-separated names of decision rules (PERSON and TRANSACTION webhooks send the rule name as action). Ignored when Events has *.',
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
						default: 60,
						description:
							'A delivery whose body equals one accepted within this window starts nothing (the service retries until it gets a 2xx). 0 turns it off.',
					},
					{
						displayName: 'Entity Type',
						name: 'entityType',
						type: 'string',
						default: '',
						placeholder: 'TRANSACTION',
						description: 'Only events whose metadata.entityType equals this (e.g. PERSON, TRANSACTION)',
					},
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description: 'Whether to add the request headers (without verification secrets) to the output',
					},
					{
						displayName: 'Risk Level',
						name: 'riskLevel',
						type: 'string',
						default: '',
						placeholder: 'HIGH',
						description: 'Only FINAL_RISK_UPDATED events with this final risk level (other events pass)',
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
						description: 'Only events whose metadata.scenarioType matches (any case)',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			/** The service offers nothing to call with these secrets: the test checks that they are complete. */
			async amlWebhookApiTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const missing = missingSetting(credential.data as unknown as VerificationSettings);
				return missing ? { status: 'Error', message: missing } : { status: 'OK', message: 'Verification settings are complete' };
			},
		},
	};

	webhookMethods = {
		default: {
			// The service has no API to register webhooks: the URL is pasted into its UI. These are honest
			// no-ops so that n8n can publish the workflow.
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
		const headers = this.getHeaderData() as Record<string, unknown>;
		const rawBody: Buffer = Buffer.isBuffer((req as { rawBody?: Buffer }).rawBody)
			? (req as unknown as { rawBody: Buffer }).rawBody
			: Buffer.from(JSON.stringify(this.getBodyData() ?? {}));

		const authentication = this.getNodeParameter('authentication', 'none') as string;
		let secretHeaders: string[] = [];
		if (authentication === 'amlWebhookApi') {
			const credentials = (await this.getCredentials('amlWebhookApi')) as unknown as VerificationSettings;
			secretHeaders = ['authorization', String(credentials.headerName ?? ''), String(credentials.hmacHeaderName ?? '')]
				.filter(Boolean)
				.map((h) => h.toLowerCase());
			if (!verifyDelivery(credentials, headers, rawBody)) {
				const res = this.getResponseObject();
				res.status(401).json({ message: 'Webhook verification failed' });
				return { noWebhookResponse: true };
			}
		}

		const body = this.getBodyData() as IDataObject;
		const action = String(body?.action ?? '');
		const metadata = (body?.metadata ?? {}) as IDataObject;

		const events = this.getNodeParameter('events', []) as string[];
		const rules = String(this.getNodeParameter('decisionRules', '') ?? '')
			.split(',')
			.map((r) => r.trim())
			.filter(Boolean);
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const ignored = (reason: string): IWebhookResponseData => ({ webhookResponse: { received: true, started: false, reason } });

		if (!events.includes('*') && !events.includes(action) && !rules.includes(action)) return ignored('event not selected');
		if (options.entityType && String(metadata.entityType ?? '').toUpperCase() !== String(options.entityType).toUpperCase()) {
			return ignored('entity type filtered out');
		}
		if (options.scenarioType && String(metadata.scenarioType ?? '').toUpperCase() !== String(options.scenarioType).toUpperCase()) {
			return ignored('scenario type filtered out');
		}
		if (
			options.riskLevel &&
			action === 'FINAL_RISK_UPDATED' &&
			String(metadata.finalRisk ?? metadata.riskLevel ?? '').toUpperCase() !== String(options.riskLevel).toUpperCase()
		) {
			return ignored('risk level filtered out');
		}

		const windowMinutes = (options.dedupWindow as number | undefined) ?? 60;
		if (windowMinutes > 0) {
			// Workflow static data is n8n's own per-workflow store, saved in its database with the execution.
			const store = this.getWorkflowStaticData('node') as { deliveries?: Record<string, number> };
			store.deliveries = store.deliveries ?? {};
			if (seenBefore(store.deliveries, deliveryKey(rawBody), Date.now(), windowMinutes * 60_000)) {
				return ignored('duplicate delivery');
			}
		}

		const json: IDataObject = { action, createdTime: body?.createdTime ?? null, metadata };
		if (options.includeHeaders) {
			json.headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !secretHeaders.includes(name.toLowerCase()))) as IDataObject;
		}
		return { workflowData: [this.helpers.returnJsonArray([json])] };
	}
}
