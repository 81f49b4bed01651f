import { routedCheckOperation } from './routedCheck';

export const { description, execute, decides } = routedCheckOperation({
	operation: 'runMonitoringCheck',
	pathSegment: 'monitoring-checks',
	key: 'results',
	notice:
		'Any result blocks, and so does a check that could not be completed or whose answer was lost (it is not sent twice).',
});
