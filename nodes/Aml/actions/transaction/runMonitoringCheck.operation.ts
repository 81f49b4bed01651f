import { routedCheckOperation } from './routedCheck';

export const { description, execute } = routedCheckOperation({
	operation: 'runMonitoringCheck',
	pathSegment: 'monitoring-checks',
	key: 'results',
	notice:
		'Runs the real-time (online) monitoring scenarios on a stored transaction. Any result means block; so does a check that fails (server error, rate limit after retries, timeout, dropped connection), since safety could not be verified.',
});
