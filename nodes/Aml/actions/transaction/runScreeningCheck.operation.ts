import { routedCheckOperation } from './routedCheck';

export const { description, execute, decides } = routedCheckOperation({
	operation: 'runScreeningCheck',
	pathSegment: 'screening-checks',
	key: 'matches',
	notice:
		'Any match blocks, and so does a check that could not be completed or whose answer was lost (it is not sent twice).',
});
