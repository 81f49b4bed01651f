import type { IDataObject } from 'n8n-workflow';

/** A sample payload per action, so users can map fields before the first real event. */
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
			hits: [{ reason: 'Amount over threshold', details: 'amount 25000.00 > 10000', scenarioHandle: '0b6f1c1e-2d7a-4c55-9a43-7f3e2d1c0a11' }],
		},
	},
	ALERT_STATUS_UPDATED: {
		action: 'ALERT_STATUS_UPDATED',
		createdTime: '2026-11-22T10:20:00Z',
		metadata: { alertId: 1042, personId: 'cust-10023', transactionId: 'tx-778812', status: 'CLOSED', previousStatus: 'NEW' },
	},
	SCREENING_ALERT_CREATED: {
		action: 'SCREENING_ALERT_CREATED',
		createdTime: '2026-11-22T10:15:31Z',
		metadata: { alertId: 311, personId: 'cust-10023', transactionId: null, hitCount: 2 },
	},
	PERSON_CLEARED: {
		action: 'PERSON_CLEARED',
		createdTime: '2026-11-22T10:30:00Z',
		metadata: { personId: 'cust-10023' },
	},
	FINAL_RISK_UPDATED: {
		action: 'FINAL_RISK_UPDATED',
		createdTime: '2026-11-22T10:16:00Z',
		metadata: { personId: 'cust-10023', finalRisk: 'HIGH', previousRisk: 'LOW', finalRiskScore: 78 },
	},
};
