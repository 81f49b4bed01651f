import { routedCheckOperation } from './routedCheck';

export const { description, execute } = routedCheckOperation({
	operation: 'runMonitoringCheck',
	pathSegment: 'monitoring-checks',
	key: 'results',
	notice: 'Any result blocks, and so does a check that could not be completed.',
});
