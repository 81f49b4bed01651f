import { N8N_VERSION, n8nCoreContains, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/oauthToken.ts against this n8n: n8n keeps an OAuth2 credential's token under
 * `oauthTokenData.access_token` (every supported version), and 2.41.1 also its expiry as `n8n_expires_at` (1.123.81 and
 * 2.0.3 keep none: there the upload's renewal before sending does nothing and the 401 path renews). A change here
 * fails this test before it changes what the node reports.
 */
const seam = withN8n(
	() =>
		require('../../nodes/shared/n8n/oauthToken') as typeof import('../../nodes/shared/n8n/oauthToken'),
);
const MEASURED_EXPIRY: Record<string, boolean> = {
	'1.123.81': false,
	'2.0.3': false,
	'2.41.1': true,
};

describe(`token data on n8n ${N8N_VERSION}`, () => {
	test('n8n-core stores the token under oauthTokenData', () => {
		expect(n8nCoreContains('oauthTokenData')).toBe(true);
	});

	test('n8n stores the expiry as n8n_expires_at where measured', () => {
		const stores = n8nCoreContains('n8n_expires_at') || n8nCoreContains('n8n_expires_at', 'n8n');
		expect(stores).toBe(MEASURED_EXPIRY[N8N_VERSION] ?? stores);
	});

	test("n8n-core offers refreshOAuth2Token to nodes (the seam's renewToken calls it)", () => {
		expect(n8nCoreContains('refreshOAuth2Token')).toBe(true);
	});

	test('the seam reads a stored token and its expiry, and nothing from a credential without one', () => {
		expect(seam.tokenStored({ oauthTokenData: { access_token: 'a', token_type: 'Bearer' } })).toBe(
			true,
		);
		expect(seam.tokenStored({ oauthTokenData: { access_token: '' } })).toBe(false);
		expect(seam.tokenStored({})).toBe(false);
		expect(
			seam.tokenExpiresAt({ oauthTokenData: { access_token: 'a', n8n_expires_at: 1767225600000 } }),
		).toBe(1767225600000);
		expect(seam.tokenExpiresAt({ oauthTokenData: { access_token: 'a' } })).toBeUndefined();
	});
});
