import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../../helpers/descriptions';
import { checkBudgetOption, routeOutputsProperty } from '../routedCheck';
import { storeProperties } from '../store';

export const DEFAULT_RELEASE_STATUSES = 'RELEASED';
export const DEFAULT_PERSON_STATUSES = 'SUSPENDED, TERMINATED, TERMINATED_AND_REPORTED';

const properties: INodeProperties[] = [
	{
		displayName:
			"Clear only when this run stored the payment (or was given it by a release), every enabled check answered nothing in time and no alert of the payment or its person is open after them. A held payment gets a manual alert in the analysts' queue. Always Output Data and Retry On Fail must stay off.",
		name: 'gateNotice',
		type: 'notice',
		default: '',
	},
	...storeProperties('skip', {
		error:
			'Fail the item as an error when its ID is already stored: never answered clear (with On Error set to continue, it carries decision "block")',
		skip: "Use the stored transaction when it has this payment's data: answered with the decision a Gate recorded for it (a clear after the open-alerts lookup); other data under the ID blocks",
	}).map((property) =>
		property.name === 'onExisting'
			? {
					...property,
					hint: 'Error: a payment sent again fails as an error (never clear); Skip answers it with its recorded decision',
				}
			: property,
	),
	{
		displayName: 'Run Monitoring Check',
		name: 'runMonitoring',
		type: 'boolean',
		default: true,
		description: "Whether to run the service's real-time monitoring scenarios on the transaction",
	},
	{
		displayName: 'Run Screening Check',
		name: 'runScreening',
		type: 'boolean',
		default: true,
		description: 'Whether to screen the transaction against the screening lists',
	},
	routeOutputsProperty,
	optionsCollection([
		checkBudgetOption,
		{
			displayName: 'Check Payments Stored Before the Gate',
			name: 'checkStoredBefore',
			type: 'boolean',
			default: false,
			description:
				'Whether to check at once a payment found stored with no Gate record (an import, Transaction → Create). Off: it blocks until a Release Status is set. On: an alert of it confirmed and closed before cannot be seen, so a payment a check flagged before may clear.',
		},
		{
			displayName: 'Hold for Person Statuses',
			name: 'personStatuses',
			type: 'string',
			default: DEFAULT_PERSON_STATUSES,
			description:
				'Person statuses that hold every payment of the person (comma-separated, any case); empty: the status is not read',
		},
		{
			displayName: 'Hold While the Person Has Open Alerts',
			name: 'holdPersonAlerts',
			type: 'boolean',
			default: false,
			description:
				"Whether an open alert of the person holds the payment. The service counts every alert of the person, its payments' included: one flagged payment then holds all of the customer's payments until it is reviewed.",
		},
		{
			displayName: 'Record Decision on Transaction',
			name: 'recordDecision',
			type: 'boolean',
			default: true,
			description:
				"Whether to write the run's claim and decision to the transaction (attributes n8n_gate_claim and n8n_gate_decision), so that the payment sent again gets the same answer from any execution. Off: a payment found stored blocks.",
		},
		{
			displayName: 'Release Statuses',
			name: 'releaseStatuses',
			type: 'string',
			default: DEFAULT_RELEASE_STATUSES,
			placeholder: 'e.g. RELEASED, APPROVED',
			description:
				"Transaction statuses that release a payment the Gate blocked (comma-separated, any case), set after the block (closing the Gate's alert with example 08, the web app, or Transaction → Update). Sent again, it clears once no alert is open; a block whose checks did not all answer is checked again first.",
			hint: 'A block stands for every resend until one of these is set on the transaction after it',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transaction'], operation: ['gate'] } },
	properties,
);
