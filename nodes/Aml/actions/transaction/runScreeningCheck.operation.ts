import { routedCheckOperation } from './routedCheck';

export const { description, execute, decides } = routedCheckOperation({
	operation: 'runScreeningCheck',
	pathSegment: 'screening-checks',
	key: 'matches',
	notice:
		'Any match blocks, and so does a check not completed or whose answer was lost (not sent twice); an empty answer clears only when no alert of the transaction is open. To gate a payment use Transaction → Gate: it also holds the decision for every resend.',
});
