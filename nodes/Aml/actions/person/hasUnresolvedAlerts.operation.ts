import { unresolvedAlertsOperation } from '../unresolvedAlerts';
import { personIdProperties } from './shared';

export const { description, execute, readOnly, decides } = unresolvedAlertsOperation({
	resource: 'person',
	idProperties: personIdProperties,
	idLabel: 'Person ID',
	collectionPath: '/v1/persons',
	outputKey: 'personId',
});
