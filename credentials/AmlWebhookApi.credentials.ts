import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * How the AML Trigger checks that a delivery comes from the AML service. The service publishes no signature
 * scheme, so the method is chosen to match what the AML account is set up to send. Secrets live only here,
 * never in node parameters.
 */
export class AmlWebhookApi implements ICredentialType {
	name = 'amlWebhookApi';

	// "AML Webhook" with the API suffix n8n's lint requires (cred-class-field-display-name-missing-api).
	displayName = 'AML Webhook API';

	icon: Icon = { light: 'file:../icons/aml.svg', dark: 'file:../icons/aml.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-aml/n8n-nodes-aml#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Method',
			name: 'method',
			type: 'options',
			options: [
				{
					name: 'Basic Auth',
					value: 'basicAuth',
					description: 'The service sends a user name and password (HTTP basic authentication)',
				},
				{
					name: 'HMAC-SHA256 Signature',
					value: 'hmac',
					description:
						'The service signs the raw body with a shared secret and sends the hex digest in a header',
				},
				{
					name: 'Secret Header',
					value: 'header',
					description: 'The service sends a fixed secret value in a header',
				},
			],
			// A secret header is what an account's webhook settings can most likely be made to send; the service
			// publishes no signature scheme, so HMAC is the least likely.
			default: 'header',
			description:
				"What the AML account sends with each webhook, to prove it comes from the service: a header you set in the AML web UI's webhook settings (Secret Header), an Authorization: Basic header (Basic Auth), or a signature header (HMAC-SHA256)",
		},
		{
			displayName: 'Header Name',
			name: 'headerName',
			type: 'string',
			default: 'X-AML-Secret',
			required: true,
			displayOptions: { show: { method: ['header'] } },
			description: 'Name of the header that carries the secret (any case)',
		},
		{
			displayName: 'Header Value',
			name: 'headerSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { method: ['header'] } },
			description: 'The secret the header must carry, exactly',
		},
		{
			displayName: 'User',
			name: 'user',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { method: ['basicAuth'] } },
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { method: ['basicAuth'] } },
		},
		{
			displayName: 'Signature Header Name',
			name: 'hmacHeaderName',
			type: 'string',
			default: 'X-AML-Signature',
			required: true,
			displayOptions: { show: { method: ['hmac'] } },
			description:
				'Header with the hex HMAC-SHA256 of the raw request body; a "sha256=" prefix is accepted',
		},
		{
			displayName: 'Signing Secret',
			name: 'hmacSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { method: ['hmac'] } },
			description: 'The shared secret the service signs with',
		},
	];
}
