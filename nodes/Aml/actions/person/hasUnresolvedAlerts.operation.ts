import { unresolvedAlertsOperation } from '../unresolvedAlerts';
import { personIdProperties } from './shared';

export const { description, execute } = unresolvedAlertsOperation({
	resource: 'person',
	idProperties: personIdProperties,
	idLabel: 'Person ID',
	collectionPath: '/v1/persons',
	outputKey: 'personId',
});
