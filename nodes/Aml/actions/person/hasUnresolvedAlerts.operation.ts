import { unresolvedAlertsOperation } from '../unresolvedAlerts';
import { personIdProperty } from './shared';

export const { description, execute } = unresolvedAlertsOperation({
	resource: 'person',
	idProperty: personIdProperty,
	idLabel: 'Person ID',
	collectionPath: '/v1/persons',
	outputKey: 'personId',
});
