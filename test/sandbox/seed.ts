import { Store, type ListRecord, type Person } from './store';

export const DEMO_CUSTOM_LIST_ID = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';
export const DEMO_GOODLIST_ID = '7a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6';

const FIRST = [
	'Anna',
	'Lukas',
	'Mira',
	'Jonas',
	'Elif',
	'Tomas',
	'Sara',
	'Noah',
	'Lea',
	'Pavel',
	'Ines',
	'Omar',
];
const LAST = [
	'Schmidt',
	'Novak',
	'Keller',
	'Horvat',
	'Brandt',
	'Silva',
	'Weber',
	'Kowalski',
	'Moreau',
	'Jansen',
];

/** Invented names only: no real person is on this synthetic screening list. */
const LIST_NAMES: Array<[string, string[], ListRecord['checkType'], string[], string | undefined]> =
	[
		[
			'Viktor Drabenko',
			['Wiktor Drabienko', 'Виктор Драбенко', 'V. Drabenko'],
			'SANCTION',
			['RU'],
			'1961-03-14',
		],
		['Ivana Petrenkova', ['Iwana Petrenkowa', 'Ivana Petrenkowa'], 'PEP', ['UA'], '1975-09-02'],
		['Boris Kalinov', ['Borys Kalinow'], 'ADVERSE_MEDIA', ['BG'], '1980-01-20'],
		['Hassan Al-Rahimi', ['Hasan Alrahimi', 'حسن الرحيمي'], 'SANCTION', ['SY'], '1958-11-30'],
		['Kim Jong-Sok', ['Kim Chong Sok'], 'SANCTION', ['KP'], '1970-06-06'],
		['Darius Mehrzad', ['Dariush Mehrzad'], 'SANCTION', ['IR'], '1966-12-12'],
		['Sokol Trading LLC', ['Sokol Trading', 'OOO Sokol'], 'SANCTION', ['RU'], undefined],
		['Golden Crescent Holdings', ['Golden Crescent Holding Ltd'], 'SANCTION', ['AE'], undefined],
		['Marta Vukovic', ['Marta Vukovich'], 'PEP', ['RS'], '1969-04-18'],
		['Andrei Volkonsky', ['Andrey Volkonskiy'], 'PEP', ['MD'], '1972-08-08'],
	];

function generatedList(): ListRecord[] {
	const records: ListRecord[] = [];
	LIST_NAMES.forEach(([name, aliases, checkType, countries, dob], index) => {
		records.push({
			id: `rec-${index + 1}`,
			name,
			aliases,
			dob,
			type: /LLC|Holdings/.test(name) ? 'ENTITY' : 'PERSON',
			checkType,
			listCode:
				checkType === 'SANCTION' ? 'SYN-SANCTIONS' : checkType === 'PEP' ? 'SYN-PEP' : 'SYN-MEDIA',
			listName:
				checkType === 'SANCTION'
					? 'Synthetic Sanctions List'
					: checkType === 'PEP'
						? 'Synthetic PEP List'
						: 'Synthetic Adverse Media',
			countries,
			groups: [
				checkType === 'SANCTION' ? 'SANCTIONS' : checkType === 'PEP' ? 'PEP' : 'ADVERSE_MEDIA',
			],
		});
	});
	// Deterministic filler up to 60 records, with invented surnames that collide with no seeded customer.
	const syllables = ['zar', 'vok', 'mir', 'tel', 'dru', 'kas', 'pen', 'lor', 'gha', 'sel'];
	for (let i = records.length; i < 60; i++) {
		const a = syllables[i % 10];
		const b = syllables[(i * 7) % 10];
		const c = syllables[(i * 3 + 1) % 10];
		const checkType: ListRecord['checkType'] =
			i % 3 === 0 ? 'SANCTION' : i % 3 === 1 ? 'PEP' : 'ADVERSE_MEDIA';
		const first = `${a[0].toUpperCase()}${a.slice(1)}${b}`;
		const last = `${c[0].toUpperCase()}${c.slice(1)}${a}ov`;
		records.push({
			id: `rec-${i + 1}`,
			name: `${first} ${last}`,
			aliases: [`${first} ${last.replace('ov', 'ow')}`],
			dob: `19${50 + (i % 40)}-0${1 + (i % 9)}-1${i % 9}`,
			type: 'PERSON',
			checkType,
			listCode:
				checkType === 'SANCTION' ? 'SYN-SANCTIONS' : checkType === 'PEP' ? 'SYN-PEP' : 'SYN-MEDIA',
			listName:
				checkType === 'SANCTION'
					? 'Synthetic Sanctions List'
					: checkType === 'PEP'
						? 'Synthetic PEP List'
						: 'Synthetic Adverse Media',
			countries: ['XX'],
			groups: [
				checkType === 'SANCTION' ? 'SANCTIONS' : checkType === 'PEP' ? 'PEP' : 'ADVERSE_MEDIA',
			],
		});
	}
	return records;
}

let store: Store;
const SEED_TIME = '2026-01-15T09:00:00.000000Z';
function person(
	id: string,
	type: string,
	attributes: Record<string, unknown>,
	category = 'CUSTOMER',
): Person {
	return store.newPerson(id, type, attributes, category, SEED_TIME);
}

export function seed(state: Store): void {
	store = state;
	state.riskRules = [
		{
			id: 1,
			factor: 'HIGH_RISK_COUNTRY',
			level: 'HIGH',
			weight: 1,
			rule: { kind: 'countryIn', countries: ['IR', 'KP', 'SY'] },
		},
		{
			id: 2,
			factor: 'ELEVATED_RISK_COUNTRY',
			level: 'MEDIUM',
			weight: 0.5,
			rule: { kind: 'countryIn', countries: ['RU', 'BY', 'MM', 'AF', 'VE'] },
		},
		{
			id: 3,
			factor: 'UNDEFINED_PERSON_TYPE',
			level: 'LOW_TO_MEDIUM',
			weight: 0.2,
			rule: { kind: 'typeIn', types: ['UNDEFINED'] },
		},
		{
			id: 4,
			factor: 'OPEN_MONITORING_ALERTS',
			level: 'MEDIUM',
			weight: 0.5,
			rule: { kind: 'openAlerts', min: 1 },
		},
		{
			id: 5,
			factor: 'MANY_OPEN_MONITORING_ALERTS',
			level: 'MEDIUM_TO_HIGH',
			weight: 0.7,
			rule: { kind: 'openAlerts', min: 3 },
		},
		{
			id: 6,
			factor: 'TRANSACTION_VOLUME',
			level: 'MEDIUM_TO_HIGH',
			weight: 0.7,
			rule: { kind: 'transactionVolumeOver', amount: 100000 },
		},
		{
			id: 7,
			factor: 'CONFIRMED_SCREENING_MATCH',
			level: 'UNACCEPTABLE',
			weight: 1,
			rule: { kind: 'screeningTruePositive' },
		},
	];
	state.scenarios = [
		{
			handle: '0b6f1c1e-2d7a-4c55-9a43-7f3e2d1c0a11',
			name: 'Large transaction',
			type: 'ONLINE',
			entity: 'TRANSACTION',
			rule: { kind: 'amountOver', threshold: 10000 },
			score: 80,
			weight: 1,
		},
		{
			handle: '1c7a2d2f-3e8b-4d66-8b54-8a4f3e2d1b22',
			name: 'Transaction velocity',
			type: 'ONLINE',
			entity: 'TRANSACTION',
			rule: { kind: 'velocity', count: 5, windowMinutes: 60 },
			score: 60,
			weight: 1,
		},
		{
			handle: '2d8b3e30-4f9c-4e77-9c65-9b504f3e2c33',
			name: 'Round amount',
			type: 'ONLINE',
			entity: 'TRANSACTION',
			rule: { kind: 'amountOver', threshold: 5000 },
			score: 20,
			weight: 0.5,
		},
		{
			handle: '3e9c4f41-50ad-4f88-8d76-ac615040d344',
			name: 'High-risk country',
			type: 'ONLINE',
			entity: 'PERSON',
			rule: { kind: 'countryIn', countries: ['IR', 'KP', 'SY'] },
			score: 90,
			weight: 1,
		},
		{
			handle: '4fad5052-61be-4099-9e87-bd7261515e55',
			name: 'Very large transaction (post-event)',
			type: 'OFFLINE',
			entity: 'TRANSACTION',
			rule: { kind: 'amountOver', threshold: 50000 },
			score: 95,
			weight: 1,
		},
		{
			handle: '50be6163-72cf-41aa-8f98-ce8372626f66',
			name: 'High-risk country (post-event)',
			type: 'OFFLINE',
			entity: 'PERSON',
			rule: { kind: 'countryIn', countries: ['IR', 'KP'] },
			score: 90,
			weight: 1,
		},
	];
	state.screeningList = generatedList();
	state.listGroups = [
		{ code: 'SANCTIONS', name: 'Sanctions' },
		{ code: 'PEP', name: 'Politically exposed persons' },
		{ code: 'ADVERSE_MEDIA', name: 'Adverse media' },
	];

	const persons: Person[] = [
		person('cust-1001', 'INDIVIDUAL', {
			first_name: 'Anna',
			last_name: 'Schmidt',
			dob: '1985-04-12',
			country: 'DE',
			city: 'Berlin',
			email: 'anna.schmidt@example.com',
		}),
		person('cust-1002', 'INDIVIDUAL', {
			first_name: 'Lukas',
			last_name: 'Novak',
			country: 'CZ',
			city: 'Brno',
		}),
		person('cust-1003', 'LEGAL', {
			company_name: 'Acme Trading GmbH',
			country: 'DE',
			industry: 'wholesale',
			shareholders: [{ id: 'sh-1', name: 'Mira Keller' }],
		}),
		person('cust-1004', 'UNDEFINED', { country: 'AT' }),
		person('cust-1005', 'PRIVATE', { first_name: 'Jonas', last_name: 'Brandt', country: 'DE' }),
		person(
			'cp-2001',
			'INDIVIDUAL',
			{ first_name: 'Elif', last_name: 'Silva', country: 'PT' },
			'COUNTERPARTY',
		),
		person('cust-1006', 'INDIVIDUAL', {
			first_name: 'Wiktor',
			last_name: 'Drabienko',
			country: 'PL',
		}),
		person('cust-1007', 'INDIVIDUAL', {
			first_name: 'Pelin',
			last_name: 'Ostrander',
			country: 'IR',
			city: 'Tabriz',
		}),
		person('cust-1008', 'LEGAL', {
			company_name: 'Harbor Light Imports Ltd',
			country: 'GB',
			shareholders: [
				{ id: 'sh-1', name: 'Ivana Petrenkova', share: '40' },
				{ id: 'sh-2', name: 'Tomas Weber', share: '60' },
			],
		}),
		person('cust-1009', 'BUSINESS', { company_name: 'Old Style Business GmbH', country: 'DE' }),
	];
	for (let i = 0; i < 60; i++) {
		persons.push(
			person(`cust-${3000 + i}`, 'INDIVIDUAL', {
				first_name: FIRST[i % FIRST.length],
				last_name: LAST[(i * 7) % LAST.length],
				country: ['DE', 'FR', 'NL', 'PL', 'ES'][i % 5],
			}),
		);
	}
	for (const p of persons) state.persons.set(p.id, p);

	const txTimes = ['2026-03-01T10:00:00Z', '2026-03-02T11:30:00.5Z', '2026-03-03T08:15:00.123456Z'];
	['cust-1001', 'cust-1002', 'cust-1003'].forEach((personId, p) => {
		for (let i = 0; i < 3; i++) {
			state.addTransaction({
				id: `tx-${personId}-${i + 1}`,
				personId,
				attributes: {
					amount: `${(p + 1) * 100 + i}.00`,
					type: 'wire_transfer',
					direction: i % 2 ? 'I' : 'O',
					timestamp: txTimes[i],
				},
				createdTime: txTimes[i],
			});
		}
	});

	// cust-1007 (IR): a large transaction (ONLINE amount > 10000) to a sanctioned entity (screening hit).
	state.addTransaction({
		id: 'tx-cust-1007-1',
		personId: 'cust-1007',
		attributes: {
			amount: '25000.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: '2026-03-04T09:30:00Z',
			receiver_name: 'Sokol Trading LLC',
			receiver_account: 'RU0204452560040702810412345678901',
			reference: 'invoice 77',
		},
		createdTime: '2026-03-04T09:30:00Z',
	});
	state.addTransaction({
		id: 'tx-cust-1007-2',
		personId: 'cust-1007',
		attributes: {
			amount: '120.00',
			type: 'payment',
			direction: 'O',
			timestamp: '2026-03-04T10:00:00Z',
			receiver_name: 'Corner Bakery',
			receiver_account: 'CY17002001280000001200527600',
		},
		createdTime: '2026-03-04T10:00:00Z',
	});

	state.customLists.set(DEMO_CUSTOM_LIST_ID, {
		id: DEMO_CUSTOM_LIST_ID,
		name: 'Internal blocklist',
		fields: [
			{ id: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718', name: 'name' },
			{ id: 'ac2d3e4f-5061-4b72-9c83-d4e5f6071829', name: 'bank_account_numbers' },
		],
		goodlist: false,
		records: new Map([
			[
				'blk-1',
				{
					id: 'blk-1',
					attributes: {
						name: 'Nordwind Shell Corp',
						country: 'CY',
						bank_account_numbers: ['CY17002001280000001200527600'],
					},
					archived: false,
				},
			],
			[
				'blk-2',
				{ id: 'blk-2', attributes: { name: 'Jaroslav Mekota', country: 'CZ' }, archived: false },
			],
			['blk-3', { id: 'blk-3', attributes: { name: 'Old Entry Ltd' }, archived: true }],
		]),
	});
	state.customLists.set(DEMO_GOODLIST_ID, {
		id: DEMO_GOODLIST_ID,
		name: 'Goodlist (cleared customers)',
		fields: [{ id: 'bd3e4f50-6172-4c83-8d94-e5f60718293a', name: 'name' }],
		goodlist: true,
		records: new Map([
			['good-1', { id: 'good-1', attributes: { name: 'Marta Vukovic' }, archived: false }],
		]),
	});
}
