import type { IDataObject } from 'n8n-workflow';

import { eventFields } from './filters';

/**
 * One sample payload per action, so users can map fields before the first real event (the README shows them, the
 * alert examples pin them). ALERT_CREATED has the interface's metadata keys; the interface does not show the other
 * payloads, so they are what the project's sandbox sends (test/sandbox/README.md); the e2e suite checks that real
 * deliveries carry these metadata keys. Decision rules (PERSON and TRANSACTION triggers) send the rule's name as
 * `action`. The IDs cannot exist in any account, so a workflow run on a sample reads and changes nothing real: alert
 * IDs are 0 (the service's alert IDs start at 1), person, transaction and record IDs contain a space (refused by the
 * ID rule before anything is sent), and the list ID is the nil UUID.
 */
export const SAMPLE_PAYLOADS: Record<string, IDataObject> = {
	ALERT_CREATED: {
		action: 'ALERT_CREATED',
		createdTime: '2026-11-22T10:15:30.123456Z',
		metadata: {
			alertId: 0,
			personId: 'sample person',
			transactionId: 'sample transaction',
			entityType: 'TRANSACTION',
			scenarioType: 'OFFLINE',
			hits: [
				{
					reason: 'Amount over threshold',
					details: 'amount 62000.00 > 50000',
					scenarioHandle: '0b6f1c1e-2d7a-4c55-9a43-7f3e2d1c0a11',
				},
			],
		},
	},
	ALERT_STATUS_UPDATED: {
		action: 'ALERT_STATUS_UPDATED',
		createdTime: '2026-11-22T10:20:00.000Z',
		metadata: {
			alertId: 0,
			alertType: 'MONITORING',
			personId: 'sample person',
			transactionId: 'sample transaction',
			status: 'CLOSED',
			previousStatus: 'NEW',
		},
	},
	CUSTOM_LIST_RECORD_ARCHIVED: {
		action: 'CUSTOM_LIST_RECORD_ARCHIVED',
		createdTime: '2026-11-22T11:02:00.000Z',
		metadata: {
			customListId: '00000000-0000-0000-0000-000000000000',
			customListName: 'Blocklist',
			recordId: 'sample record',
		},
	},
	CUSTOM_LIST_RECORD_CREATED: {
		action: 'CUSTOM_LIST_RECORD_CREATED',
		createdTime: '2026-11-22T11:00:00.000Z',
		metadata: {
			customListId: '00000000-0000-0000-0000-000000000000',
			customListName: 'Blocklist',
			recordId: 'sample record',
		},
	},
	CUSTOM_LIST_RECORD_UPDATED: {
		action: 'CUSTOM_LIST_RECORD_UPDATED',
		createdTime: '2026-11-22T11:01:00.000Z',
		metadata: {
			customListId: '00000000-0000-0000-0000-000000000000',
			customListName: 'Blocklist',
			recordId: 'sample record',
		},
	},
	FINAL_RISK_UPDATED: {
		action: 'FINAL_RISK_UPDATED',
		createdTime: '2026-11-22T10:16:00.000Z',
		metadata: {
			personId: 'sample person',
			finalRisk: 'HIGH',
			previousRisk: 'LOW',
			finalRiskScore: 91,
		},
	},
	MANUAL_ALERT_CREATED: {
		action: 'MANUAL_ALERT_CREATED',
		createdTime: '2026-11-22T10:40:00.000Z',
		metadata: {
			alertId: 0,
			personId: 'sample person',
			transactionId: null,
			rationale: 'OTHER',
			status: 'NEW',
		},
	},
	MANUAL_ALERT_STATUS_UPDATED: {
		action: 'MANUAL_ALERT_STATUS_UPDATED',
		createdTime: '2026-11-22T10:45:00.000Z',
		metadata: {
			alertId: 0,
			personId: 'sample person',
			transactionId: null,
			status: 'CLOSED',
			previousStatus: 'NEW',
		},
	},
	PERSON_CLEARED: {
		action: 'PERSON_CLEARED',
		createdTime: '2026-11-22T10:20:00.500Z',
		metadata: {
			rule: 'PERSON_CLEARED',
			entityType: 'PERSON',
			personId: 'sample person',
			transactionId: null,
			alertIds: [0],
		},
	},
	PERSON_STATUS_UPDATED: {
		action: 'PERSON_STATUS_UPDATED',
		createdTime: '2026-11-22T10:50:00.000Z',
		metadata: { personId: 'sample person', status: 'MONITORING', previousStatus: 'NEW' },
	},
	SCREENING_ALERT_CREATED: {
		action: 'SCREENING_ALERT_CREATED',
		createdTime: '2026-11-22T10:15:31.000Z',
		metadata: {
			alertId: 0,
			personId: 'sample person',
			transactionId: null,
			hitCount: 2,
			status: 'NEW',
		},
	},
	SCREENING_ALERT_STATUS_UPDATED: {
		action: 'SCREENING_ALERT_STATUS_UPDATED',
		createdTime: '2026-11-22T10:30:00.000Z',
		metadata: {
			alertId: 0,
			personId: 'sample person',
			transactionId: null,
			status: 'IN_PROGRESS',
			previousStatus: 'NEW',
		},
	},
	SCREENING_ALERT_UPDATED: {
		action: 'SCREENING_ALERT_UPDATED',
		createdTime: '2026-11-22T10:35:00.000Z',
		metadata: {
			alertId: 0,
			personId: 'sample person',
			transactionId: null,
			newHits: 1,
			hitCount: 3,
			status: 'IN_PROGRESS',
		},
	},
	TRANSACTION_CLEARED: {
		action: 'TRANSACTION_CLEARED',
		createdTime: '2026-11-22T10:20:00.600Z',
		metadata: {
			rule: 'TRANSACTION_CLEARED',
			entityType: 'TRANSACTION',
			personId: 'sample person',
			transactionId: 'sample transaction',
			alertIds: [0],
		},
	},
};

/**
 * The trigger's item for the sample of `action` (its fields added, as for a delivery with no filter set) marked
 * `sample: true`: what the alert examples pin.
 */
export function sampleItem(action: string): IDataObject {
	const payload = SAMPLE_PAYLOADS[action];
	return {
		...payload,
		...eventFields(
			{ events: [action], decisionRules: [] },
			action,
			payload.metadata as IDataObject,
		),
		sample: true,
	};
}
