/**
 * Actions of the service's webhook trigger table (interface: Events), alphabetised by name. PERSON and
 * TRANSACTION triggers send a decision rule's name instead; the node takes those as typed names.
 */
export const EVENT_ACTIONS = [
	{ value: 'ALERT_CREATED', name: 'Alert Created', description: 'A monitoring alert was created' },
	{
		value: 'ALERT_STATUS_UPDATED',
		name: 'Alert Status Updated',
		description: 'A monitoring alert changed status',
	},
	{
		value: 'CUSTOM_LIST_RECORD_ARCHIVED',
		name: 'Custom List Record Archived',
		description: 'A custom list record was archived',
	},
	{
		value: 'CUSTOM_LIST_RECORD_CREATED',
		name: 'Custom List Record Created',
		description: 'A custom list record was created',
	},
	{
		value: 'CUSTOM_LIST_RECORD_UPDATED',
		name: 'Custom List Record Updated',
		description: 'A custom list record was updated',
	},
	{
		value: 'FINAL_RISK_UPDATED',
		name: 'Final Risk Updated',
		description: "A person's final risk level changed",
	},
	{
		value: 'MANUAL_ALERT_CREATED',
		name: 'Manual Alert Created',
		description: 'A manual alert was created',
	},
	{
		value: 'MANUAL_ALERT_STATUS_UPDATED',
		name: 'Manual Alert Status Updated',
		description: 'A manual alert changed status',
	},
	{
		value: 'PERSON_STATUS_UPDATED',
		name: 'Person Status Updated',
		description: "A person's status changed",
	},
	{
		value: 'SCREENING_ALERT_CREATED',
		name: 'Screening Alert Created',
		description: 'A screening alert was created',
	},
	{
		value: 'SCREENING_ALERT_STATUS_UPDATED',
		name: 'Screening Alert Status Updated',
		description: 'A screening alert changed status',
	},
	{
		value: 'SCREENING_ALERT_UPDATED',
		name: 'Screening Alert Updated',
		description: 'A screening alert was updated (for example new hits)',
	},
] as const;

/** The alert type the service's alert operations take, for each alert action (undefined for other events). */
const ALERT_TYPES: Record<string, 'MONITORING' | 'SCREENING' | 'MANUAL'> = {
	ALERT_CREATED: 'MONITORING',
	ALERT_STATUS_UPDATED: 'MONITORING',
	MANUAL_ALERT_CREATED: 'MANUAL',
	MANUAL_ALERT_STATUS_UPDATED: 'MANUAL',
	SCREENING_ALERT_CREATED: 'SCREENING',
	SCREENING_ALERT_STATUS_UPDATED: 'SCREENING',
	SCREENING_ALERT_UPDATED: 'SCREENING',
};

/**
 * The alert type of an event's alert (MONITORING, SCREENING or MANUAL), read from its action: what Alert → Update
 * Status and the other alert operations take, so a workflow never maps it by hand. Null for an event about no alert.
 */
export function alertTypeOf(action: string): 'MONITORING' | 'SCREENING' | 'MANUAL' | null {
	return ALERT_TYPES[action.trim().toUpperCase()] ?? null;
}
