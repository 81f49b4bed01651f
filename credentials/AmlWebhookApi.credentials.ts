import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * How the AML Trigger checks incoming deliveries. The service publishes no signature scheme, so the
 * method is chosen to match what the account is configured to send.
 */
export class AmlWebhookApi implements ICredentialType {
	name = 'amlWebhookApi';

	displayName = 'AML Webhook API';

	icon: Icon = { light: 'file:../icons/aml.svg', dark: 'file:../icons/aml.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-aml/n8n-nodes-aml#webhooks';

	properties: INodeProperties[] = [
		{
			displayName: 'Method',
			name: 'method',
			type: 'options',
			options: [
				{ name: 'Basic Auth', value: 'basicAuth', description: 'HTTP basic authentication' },
				{ name: 'HMAC-SHA256 Signature', value: 'hmac', description: 'Hex HMAC-SHA256 of the raw body in a header' },
				{ name: 'Secret Header', value: 'header', description: 'A header that carries a shared secret' },
			],
			default: 'hmac',
		},
		{
			displayName: 'Header Name',
			name: 'headerName',
			type: 'string',
			default: 'X-AML-Secret',
			displayOptions: { show: { method: ['header'] } },
		},
		{
			displayName: 'Header Secret',
			name: 'headerSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { method: ['header'] } },
		},
		{
			displayName: 'User',
			name: 'user',
			type: 'string',
			default: '',
			displayOptions: { show: { method: ['basicAuth'] } },
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { method: ['basicAuth'] } },
		},
		{
			displayName: 'Signature Header',
			name: 'hmacHeaderName',
			type: 'string',
			default: 'X-AML-Signature',
			displayOptions: { show: { method: ['hmac'] } },
			description: 'Header with the hex HMAC-SHA256 of the raw body (an optional "sha256=" prefix is accepted)',
		},
		{
			displayName: 'Signing Secret',
			name: 'hmacSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { method: ['hmac'] } },
		},
	];
}
