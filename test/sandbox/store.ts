/** In-memory store of the sandbox service: every entity, the configuration and the id counters. */
export type Json = Record<string, unknown>;

export interface Person {
	id: string;
	type: string;
	attributes: Json;
	status: string;
	category: string;
	createdTime: string;
	snoozeConfiguration: Json | null;
	scenarioSnoozeConfigurations: Json[];
	statuses: Json[];
	deleteAt?: number;
	finalRisk: string;
	finalRiskScore: number;
	finalRiskCreatedTime: string;
	risks: Json[];
}

export interface Transaction {
	id: string;
	personId: string;
	attributes: Json;
	createdTime: string;
}

export interface Note {
	id: number;
	personId: string;
	content: string;
	createdTime: string;
}

export interface Scenario {
	handle: string;
	name: string;
	type: 'ONLINE' | 'OFFLINE' | 'PERIODIC';
	entity: 'PERSON' | 'TRANSACTION';
	rule:
		| { kind: 'amountOver'; threshold: number }
		| { kind: 'countryIn'; countries: string[] }
		| { kind: 'velocity'; count: number; windowMinutes: number }
		| { kind: 'attributeEquals'; key: string; value: string };
	score: number;
	weight: number;
}

export interface MonitoringAlert {
	id: number;
	priority: string;
	status: string;
	personId: string;
	transactionId: string | null;
	entityType: 'PERSON' | 'TRANSACTION';
	scenarioType: string;
	results: Json[];
	createdTime: string;
	statuses: Json[];
	notes: Json[];
}

export interface ListRecord {
	id: string;
	name: string;
	aliases: string[];
	dob?: string;
	type: 'PERSON' | 'ENTITY';
	checkType: 'SANCTION' | 'PEP' | 'ADVERSE_MEDIA';
	listCode: string;
	listName: string;
	countries: string[];
	groups: string[];
}

export interface ScreeningAlert {
	id: number;
	personId: string | null;
	transactionId: string | null;
	status: string;
	hits: Json[];
	screeningFlowId: string;
	createdTime: string;
	updatedTime: string;
	statuses: Json[];
}

export interface ManualAlert {
	id: number;
	personId: string;
	transactionId?: string;
	rationale: string;
	rationaleComment?: string;
	status: string;
	createdBy: string;
	createdTime: string;
	updatedTime: string;
	notes: Json[];
}

export interface CustomList {
	id: string;
	name: string;
	fields: Array<{ id: string; name: string }>;
	/** Acts as a goodlist: matching names clear screening hits. */
	goodlist: boolean;
	records: Map<string, { id: string; attributes: Json; archived: boolean }>;
	/** Cache of the active records in order (cleared on every change). */
	active?: Array<{ id: string; attributes: Json }>;
}

export interface Upload {
	id: number;
	fileName: string;
	type: string;
	status: string;
	reason: string | null;
	bytes: number;
	rows: number;
	stored: number;
	createdTime: string;
}

/** A decision rule: when its condition holds for all alerts of a person (or transaction), a webhook named `name` is sent. */
export interface DecisionRule {
	name: string;
	entity: 'PERSON' | 'TRANSACTION';
	/**
	 * allAlertsClosed: every alert is closed (CLOSED…, FILTERED); anyTruePositive: some alert is CLOSED AS TRUE POSITIVE;
	 * allAlertsClosedNoneConfirmed: every alert is closed and none as CLOSED AS TRUE POSITIVE.
	 */
	condition: 'allAlertsClosed' | 'anyTruePositive' | 'allAlertsClosedNoneConfirmed';
}

/** A risk rule: a factor with a level when it applies. */
export interface RiskRule {
	id: number;
	factor: string;
	level: string;
	weight: number;
	rule:
		| { kind: 'countryIn'; countries: string[] }
		| { kind: 'openAlerts'; min: number }
		| { kind: 'screeningTruePositive' }
		| { kind: 'typeIn'; types: string[] }
		| { kind: 'transactionVolumeOver'; amount: number }
		| { kind: 'customListMatch'; customListId: string };
}

export interface Config {
	tokenLifetimeSeconds: number;
	tokenRateLimit: { max: number; windowSeconds: number };
	personDeletionEnabled: boolean;
	deletionDelayMs: number;
	alertStatuses: string[];
	fuzzyThreshold: number;
	webhookRetryScale: number;
	monitoringScoreThreshold: number;
	decisionRules: DecisionRule[];
	/** Screened fields: `a+b` joins attributes, `arr.key` reads `key` of each array item; *account* fields match exactly. */
	screeningFields: { person: string[]; transaction: string[] };
	/**
	 * Real-time checks answer only the alerts they create (the interface: an empty list means no alert was created): a
	 * scenario that already alerted for the transaction, or a screening alert without new hits, answers empty on a
	 * repeat. Off (default): a repeat answers its results again.
	 */
	checksReportCreatedAlertsOnly: boolean;
	/**
	 * Storing a transaction runs the OFFLINE transaction scenarios (alerts raised when it is stored). Off: only the
	 * real-time checks raise a transaction's alerts, the stricter case for a gate.
	 */
	alertsOnStore: boolean;
}

export const DEFAULT_CONFIG: Config = {
	tokenLifetimeSeconds: 3600,
	tokenRateLimit: { max: 5, windowSeconds: 60 },
	personDeletionEnabled: true,
	deletionDelayMs: 2000,
	alertStatuses: [
		'NEW',
		'IN_PROGRESS',
		'CLOSED',
		'CLOSED AS FALSE POSITIVE',
		'CLOSED AS TRUE POSITIVE',
		'ESCALATED',
	],
	fuzzyThreshold: 85,
	webhookRetryScale: 1,
	monitoringScoreThreshold: 50,
	checksReportCreatedAlertsOnly: false,
	alertsOnStore: true,
	decisionRules: [
		{ name: 'PERSON_CLEARED', entity: 'PERSON', condition: 'allAlertsClosed' },
		{ name: 'TRANSACTION_CLEARED', entity: 'TRANSACTION', condition: 'allAlertsClosed' },
		// the two rules example 08 asks for: its held payments released, or returned
		{
			name: 'TRANSACTION_RELEASABLE',
			entity: 'TRANSACTION',
			condition: 'allAlertsClosedNoneConfirmed',
		},
		{ name: 'TRANSACTION_CONFIRMED', entity: 'TRANSACTION', condition: 'anyTruePositive' },
	],
	screeningFields: {
		person: ['first_name+last_name', 'company_name', 'shareholders.name'],
		transaction: ['sender_name', 'receiver_name', 'sender_account', 'receiver_account'],
	},
};

export const RISK_LEVELS = [
	'LOW',
	'LOW_TO_MEDIUM',
	'MEDIUM',
	'MEDIUM_TO_HIGH',
	'HIGH',
	'UNACCEPTABLE',
];

export class Store {
	config: Config = { ...DEFAULT_CONFIG };
	persons = new Map<string, Person>();
	transactions = new Map<string, Transaction>();
	transactionsByPerson = new Map<string, string[]>();
	notes: Note[] = [];
	scenarios: Scenario[] = [];
	alerts = new Map<number, MonitoringAlert>();
	screeningList: ListRecord[] = [];
	listGroups: Array<{ code: string; name: string }> = [];
	screeningAlerts = new Map<number, ScreeningAlert>();
	manualAlerts = new Map<number, ManualAlert>();
	customLists = new Map<string, CustomList>();
	uploads = new Map<number, Upload>();
	relations: Array<{ personId: string; relatedPersonId: string; relationType: string }> = [];
	riskRules: RiskRule[] = [];
	seq = { alert: 1000, screening: 300, manual: 500, note: 100000, upload: 0, status: 1, risk: 1 };

	/** Empties every collection (configuration is set by the caller). */
	clear(): void {
		this.persons.clear();
		this.transactions.clear();
		this.transactionsByPerson.clear();
		this.notes = [];
		this.scenarios = [];
		this.alerts.clear();
		this.screeningList = [];
		this.listGroups = [];
		this.screeningAlerts.clear();
		this.manualAlerts.clear();
		this.customLists.clear();
		this.uploads.clear();
		this.relations = [];
		this.riskRules = [];
		this.seq = {
			alert: 1000,
			screening: 300,
			manual: 500,
			note: 100000,
			upload: 0,
			status: 1,
			risk: 1,
		};
	}

	/** Persons still visible (not yet removed by an asynchronous deletion). */
	visiblePersons(): Person[] {
		const out: Person[] = [];
		for (const id of [...this.persons.keys()]) {
			const p = this.personVisible(id);
			if (p) out.push(p);
		}
		return out;
	}

	newPerson(
		id: string,
		type: string,
		attributes: Json,
		category = 'CUSTOMER',
		created = now(),
	): Person {
		return {
			id,
			type,
			attributes,
			status: 'NEW',
			category,
			createdTime: created,
			snoozeConfiguration: null,
			scenarioSnoozeConfigurations: [],
			statuses: [
				{
					id: this.nextId('status'),
					assigner: null,
					status: 'NEW',
					startTime: created,
					endTime: null,
					createdTime: created,
				},
			],
			finalRisk: 'LOW',
			finalRiskScore: 10,
			finalRiskCreatedTime: created,
			risks: [],
		};
	}

	nextId(kind: keyof Store['seq']): number {
		return ++this.seq[kind];
	}

	personVisible(id: string): Person | undefined {
		const person = this.persons.get(id);
		if (!person) return undefined;
		if (person.deleteAt !== undefined && Date.now() >= person.deleteAt) {
			this.removePerson(id);
			return undefined;
		}
		return person;
	}

	/** The asynchronous deletion's effect: the person and their transactions and notes are gone. */
	removePerson(id: string): void {
		this.persons.delete(id);
		for (const txId of this.transactionsByPerson.get(id) ?? []) this.transactions.delete(txId);
		this.transactionsByPerson.delete(id);
		this.notes = this.notes.filter((n) => n.personId !== id);
	}

	addTransaction(tx: Transaction): void {
		this.transactions.set(tx.id, tx);
		const list = this.transactionsByPerson.get(tx.personId) ?? [];
		list.push(tx.id);
		this.transactionsByPerson.set(tx.personId, list);
	}
}

export const now = () => new Date().toISOString();
