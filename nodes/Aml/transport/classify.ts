import type { IDataObject } from 'n8n-workflow';

import type { Classified } from '../../shared/n8n/errors';

/**
 * The package's readings of a classified failure (nodes/shared/n8n/errors.ts reads n8n's error shapes): whether the token
 * endpoint is busy (wait and ask again) or refuses the credential (stop asking), and which of the package's own item
 * errors a check turns into a fail-closed decision.
 */
export { classify, NETWORK_CODES, NEVER_SENT, type Classified } from '../../shared/n8n/errors';

/** The token endpoint is throttling, failing or unreachable: a fetch or renewal may wait and ask again. */
export function isTokenEndpointBusy(outcome: Classified): boolean {
	if (outcome.kind === 'network') return outcome.fromTokenEndpoint;
	return (
		outcome.kind === 'http' &&
		outcome.fromTokenEndpoint &&
		(outcome.status === 429 || outcome.status >= 500)
	);
}

/**
 * The token endpoint refused the credential itself (invalid_client, a wrong secret, a revoked client, a bad scope):
 * asking again in the same run cannot help.
 */
export function isTokenRefusal(outcome: Classified): boolean {
	return (
		outcome.kind === 'http' &&
		outcome.fromTokenEndpoint &&
		outcome.status >= 400 &&
		outcome.status < 500 &&
		outcome.status !== 429 &&
		outcome.status !== 408
	);
}

/** Token endpoint bodies may echo request data: keep only the OAuth2 error fields. */
export function tokenBody(body: unknown): unknown {
	if (body && typeof body === 'object') {
		const { error, error_description } = body as IDataObject;
		return { error, error_description };
	}
	return typeof body === 'string' ? body.slice(0, 200) : undefined;
}
