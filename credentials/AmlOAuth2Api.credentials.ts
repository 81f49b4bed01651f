import type { ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * The credential test's address: the API Base URL and API Path Prefix as the node joins them. n8n sends the test
 * request itself (also when a credential is saved), and fetches a token with the client secret before it does, so the
 * node's refusal (nodes/Aml/transport/secureUrl.ts) is repeated here, where it runs before n8n fetches anything: an
 * API Base URL or Token URL over plain http to another machine (unless "Allow Plain HTTP (Insecure)" is on), a URL
 * that starts with neither https:// nor http://, or a field longer than 2,048 characters. A refusal fails the
 * expression with an expression-extension error (the only kind n8n passes on from an expression) whose message
 * carries the reason. Loopback is localhost, *.localhost, [::1] and 127.x written in digits; every other host, however
 * written, counts as another machine. No regular expression and no loop over more than 2,048 characters.
 */
const TEST_BASE_URL = `={{ (($c) => {
	const MAX = 2048;
	const text = (value) => (value === undefined || value === null ? '' : String(value));
	const tooLong = (field) => "The credential's " + field + ' is longer than ' + MAX + ' characters: enter an address like https://app.example.com. Nothing was sent';
	const problem = (value, field) => {
		const url = text(value);
		if (url.length > MAX) return tooLong(field);
		const lower = url.trim().toLowerCase();
		if (lower.startsWith('https://')) return '';
		if (!lower.startsWith('http://')) return "The credential's " + field + ' must start with https://. Nothing was sent';
		const authority = lower.slice(7).split('/')[0].split('?')[0].split('#')[0].split(String.fromCharCode(92))[0];
		const host = authority.slice(authority.lastIndexOf('@') + 1);
		const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
		const loopback = name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || (name.startsWith('127.') && name.split('').every((ch) => '0123456789.'.includes(ch)));
		if ($c.allowInsecureHttp === true || loopback) return '';
		return "The credential's " + field + ' (http://' + host + ') uses plain http: the client secret and the access token would travel unencrypted. Use https://, or turn on "Allow Plain HTTP (Insecure)" in the credential if this is a test service on a trusted network. Nothing was sent';
	};
	const prefixRaw = $c.apiPathPrefix === undefined || $c.apiPathPrefix === null ? '/api' : text($c.apiPathPrefix).trim();
	const refused = problem($c.baseUrl, 'API Base URL') || problem($c.accessTokenUrl, 'Token URL') || (prefixRaw.length > MAX ? tooLong('API Path Prefix') : '');
	if (refused) return (0).toDateTime(refused);
	const trim = (value, start) => {
		let from = 0;
		let to = value.length;
		while (start && from < to && value[from] === '/') from++;
		while (to > from && value[to - 1] === '/') to--;
		return value.slice(from, to);
	};
	const prefix = prefixRaw === '' || prefixRaw === '/' ? '' : '/' + trim(prefixRaw, true);
	return trim(text($c.baseUrl), false) + prefix;
})($credentials) }}`;

/**
 * OAuth2 client-credentials access to the AML service. A sandbox and a production account are two
 * credentials of this type. n8n itself fetches the token and stores it with the credential (shared by
 * every item, execution and queue-mode worker); when the service answers 401 the node has n8n renew it
 * (nodes/Aml/transport/token.ts), once at a time per credential in an n8n process.
 */
export class AmlOAuth2Api implements ICredentialType {
	name = 'amlOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'AML OAuth2 API';

	icon: Icon = { light: 'file:../icons/aml.svg', dark: 'file:../icons/aml.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-aml/n8n-nodes-aml#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://app.example.com',
			description:
				'Address of the AML service without a path. Sandbox and production accounts have different hosts: create one credential for each.',
		},
		{
			displayName: 'API Path Prefix',
			name: 'apiPathPrefix',
			type: 'string',
			default: '/api',
			description:
				'Path in front of every API route (for example /api in /api/v1/persons). Change it only if your account serves the API under another path.',
		},
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'clientCredentials',
		},
		{
			displayName: 'Token URL',
			name: 'accessTokenUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://app.example.com/oauth/token',
			description:
				'Token endpoint of the account: usually the API base URL followed by /oauth/token. A sandbox has its own token URL.',
		},
		{
			displayName: 'Authorization URL',
			name: 'authUrl',
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: 'aml',
			description: 'OAuth2 scope to request. The AML API uses the scope aml.',
		},
		{
			displayName: 'Gate Signing Keys',
			name: 'gateSigningSecrets',
			type: 'string',
			typeOptions: { password: true, rows: 3 },
			default: '',
			placeholder: 'e.g. key-2026=<a long random text>',
			description:
				"Keys that sign Transaction → Gate's record on each payment, one a line as id=secret (at least 16 characters): the first signs, every one is accepted, so add a new key first and keep old ones while payments they signed can be sent again. Required by Transaction → Gate (unless its Record Decision on Transaction is off); no other operation uses them. A new client secret changes nothing here.",
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'hidden',
			default: 'header',
		},
		// Declared here (n8n adds the same two fields to every OAuth2 credential, defaulting to All): with None as the
		// default, n8n's HTTP Request node cannot send this credential's token anywhere, even for a user who may only use
		// the credential (None holds on every supported n8n; n8n 1.123's HTTP Request node checks Specific Domains on
		// redirects only). The AML node itself is not affected.
		// No default here is an expression: n8n evaluates a credential's expressions each time it reads it (twice per node
		// run; the cost is in docs/performance.md).
		{
			displayName: 'Allowed HTTP Request Domains',
			name: 'allowedHttpRequestDomains',
			type: 'options',
			options: [
				{
					name: 'All',
					value: 'all',
					description:
						'The HTTP Request node may send this credential to any host (anyone who can use it can read its token)',
				},
				{
					name: 'Specific Domains',
					value: 'domains',
					description:
						'Only to the domains listed (checked by n8n 2.x; n8n 1.123 checks it on redirects only)',
				},
				{
					name: 'None',
					value: 'none',
					description: 'The HTTP Request node may not use this credential at all',
				},
			],
			default: 'none',
			description:
				"Where n8n's HTTP Request node may send this credential's access token. The AML nodes always use the API Base URL only.",
		},
		{
			displayName: 'Allowed Domains',
			name: 'allowedDomains',
			type: 'string',
			default: '',
			placeholder: 'e.g. app.example.com',
			description:
				'Comma-separated hosts (a leading *. allows subdomains) the HTTP Request node may send the token to, such as the API Base URL host',
			displayOptions: { show: { allowedHttpRequestDomains: ['domains'] } },
		},
		{
			displayName: 'Allow Plain HTTP (Insecure)',
			name: 'allowInsecureHttp',
			type: 'boolean',
			default: false,
			description:
				'Whether the node may send the client secret and the access token over http:// to another machine. Off: an http:// API Base URL or Token URL is refused before anything is sent, unless it points at this machine (localhost, 127.0.0.1, ::1).',
		},
		{
			displayName:
				'<b>Plain HTTP allowed</b>: the client secret and every access token can be read by anyone on the network path. Use this only for a test service on a network you trust.',
			name: 'allowInsecureHttpNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { allowInsecureHttp: [true] } },
		},
	];

	test: ICredentialTestRequest = {
		request: {
			baseURL: TEST_BASE_URL,
			url: '/v1/screening-list-groups',
			method: 'GET',
			// As in the node: a redirect is not followed, so the token never leaves the base URL.
			disableFollowRedirect: true,
		},
	};
}
