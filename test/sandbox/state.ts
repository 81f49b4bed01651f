/** In-memory state of the sandbox service. */
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
	createdTime: string;
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
}

export interface Upload {
	id: number;
	fileName: string;
	type: string;
	status: string;
	reason: string | null;
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
}

export const DEFAULT_CONFIG: Config = {
	tokenLifetimeSeconds: 3600,
	tokenRateLimit: { max: 5, windowSeconds: 60 },
	personDeletionEnabled: true,
	deletionDelayMs: 2000,
	alertStatuses: ['NEW', 'IN_PROGRESS', 'CLOSED', 'CLOSED AS FALSE POSITIVE', 'CLOSED AS TRUE POSITIVE', 'ESCALATED'],
	fuzzyThreshold: 85,
	webhookRetryScale: 1,
	monitoringScoreThreshold: 50,
};

export class State {
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
	seq = { alert: 1000, screening: 300, manual: 500, note: 1, upload: 1, status: 1 };

	nextId(kind: keyof State['seq']): number {
		return ++this.seq[kind];
	}

	personVisible(id: string): Person | undefined {
		const person = this.persons.get(id);
		if (!person) return undefined;
		if (person.deleteAt !== undefined && Date.now() >= person.deleteAt) {
			this.persons.delete(id);
			return undefined;
		}
		return person;
	}

	addTransaction(tx: Transaction): void {
		this.transactions.set(tx.id, tx);
		const list = this.transactionsByPerson.get(tx.personId) ?? [];
		list.push(tx.id);
		this.transactionsByPerson.set(tx.personId, list);
	}
}

export const now = () => new Date().toISOString();
