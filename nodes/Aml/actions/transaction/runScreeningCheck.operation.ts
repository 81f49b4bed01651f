import { routedCheckOperation } from './routedCheck';

export const { description, execute } = routedCheckOperation({
	operation: 'runScreeningCheck',
	pathSegment: 'screening-checks',
	key: 'matches',
	notice:
		'Screens the configured attributes of a stored transaction (e.g. sender and receiver names) against screening and custom lists. Any match means block; so does a check that fails (server error, rate limit after retries, timeout, dropped connection).',
});
