import { unresolvedAlertsOperation } from '../unresolvedAlerts';
import { transactionIdProperty } from './shared';

export const { description, execute, readOnly, decides } = unresolvedAlertsOperation({
	resource: 'transaction',
	idProperties: [transactionIdProperty],
	idLabel: 'Transaction ID',
	collectionPath: '/v1/transactions',
	outputKey: 'transactionId',
});
