import type { IDataObject } from 'n8n-workflow';

/**
 * One sample payload per action, so users can map fields before the first real event (the README shows them).
 * ALERT_CREATED is exactly the interface's metadata; the interface does not show the other payloads, so they are
 * what the project's sandbox sends (test/sandbox/README.md); the e2e suite checks that real deliveries carry
 * these metadata keys. Decision rules (PERSON and TRANSACTION triggers) send the rule's name as `action`.
 */
export const SAMPLE_PAYLOADS: Record<string, IDataObject> = {
	ALERT_CREATED: {
		action: 'ALERT_CREATED',
		createdTime: '2026-11-22T10:15:30.123456Z',
		metadata: {
			alertId: 1042,
			personId: 'cust-10023',
			transactionId: 'tx-778812',
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
			alertId: 1042,
			alertType: 'MONITORING',
			personId: 'cust-10023',
			transactionId: 'tx-778812',
			status: 'CLOSED',
			previousStatus: 'NEW',
		},
	},
	CUSTOM_LIST_RECORD_ARCHIVED: {
		action: 'CUSTOM_LIST_RECORD_ARCHIVED',
		createdTime: '2026-11-22T11:02:00.000Z',
		metadata: {
			customListId: '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
			customListName: 'Blocklist',
			recordId: 'blk-17',
		},
	},
	CUSTOM_LIST_RECORD_CREATED: {
		action: 'CUSTOM_LIST_RECORD_CREATED',
		createdTime: '2026-11-22T11:00:00.000Z',
		metadata: {
			customListId: '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
			customListName: 'Blocklist',
			recordId: 'blk-17',
		},
	},
	CUSTOM_LIST_RECORD_UPDATED: {
		action: 'CUSTOM_LIST_RECORD_UPDATED',
		createdTime: '2026-11-22T11:01:00.000Z',
		metadata: {
			customListId: '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
			customListName: 'Blocklist',
			recordId: 'blk-17',
		},
	},
	FINAL_RISK_UPDATED: {
		action: 'FINAL_RISK_UPDATED',
		createdTime: '2026-11-22T10:16:00.000Z',
		metadata: {
			personId: 'cust-10023',
			finalRisk: 'HIGH',
			previousRisk: 'LOW',
			finalRiskScore: 91,
		},
	},
	MANUAL_ALERT_CREATED: {
		action: 'MANUAL_ALERT_CREATED',
		createdTime: '2026-11-22T10:40:00.000Z',
		metadata: {
			alertId: 501,
			personId: 'cust-10023',
			transactionId: null,
			rationale: 'OTHER',
			status: 'NEW',
		},
	},
	MANUAL_ALERT_STATUS_UPDATED: {
		action: 'MANUAL_ALERT_STATUS_UPDATED',
		createdTime: '2026-11-22T10:45:00.000Z',
		metadata: {
			alertId: 501,
			personId: 'cust-10023',
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
			personId: 'cust-10023',
			transactionId: null,
			alertIds: [1042, 311],
		},
	},
	PERSON_STATUS_UPDATED: {
		action: 'PERSON_STATUS_UPDATED',
		createdTime: '2026-11-22T10:50:00.000Z',
		metadata: { personId: 'cust-10023', status: 'MONITORING', previousStatus: 'NEW' },
	},
	SCREENING_ALERT_CREATED: {
		action: 'SCREENING_ALERT_CREATED',
		createdTime: '2026-11-22T10:15:31.000Z',
		metadata: {
			alertId: 311,
			personId: 'cust-10023',
			transactionId: null,
			hitCount: 2,
			status: 'NEW',
		},
	},
	SCREENING_ALERT_STATUS_UPDATED: {
		action: 'SCREENING_ALERT_STATUS_UPDATED',
		createdTime: '2026-11-22T10:30:00.000Z',
		metadata: {
			alertId: 311,
			personId: 'cust-10023',
			transactionId: null,
			status: 'IN_PROGRESS',
			previousStatus: 'NEW',
		},
	},
	SCREENING_ALERT_UPDATED: {
		action: 'SCREENING_ALERT_UPDATED',
		createdTime: '2026-11-22T10:35:00.000Z',
		metadata: {
			alertId: 311,
			personId: 'cust-10023',
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
			personId: 'cust-10023',
			transactionId: 'tx-778812',
			alertIds: [1042],
		},
	},
};
