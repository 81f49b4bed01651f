import { routedCheckOperation } from './routedCheck';

export const { description, execute } = routedCheckOperation({
	operation: 'runScreeningCheck',
	pathSegment: 'screening-checks',
	key: 'matches',
	notice: 'Any match blocks, and so does a check that could not be completed.',
});
