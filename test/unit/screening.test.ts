import {
	buildConfigurations,
	simplifySearchResult,
} from '../../nodes/Aml/actions/screening/shared';
import { listGroupOptions } from '../../nodes/Aml/methods/listGroups';

const LIST = '5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';

describe('screening search configurations', () => {
	test('empty text and zero numbers are not sent; codes are trimmed', () => {
		const { configurations, problem } = buildConfigurations([
			{
				type: 'SANCTION',
				matchType: ' FUZZY_MATCH ',
				listId: '',
				usableFieldId: '',
				score: 0,
				prefixMatchLimit: 0,
				selectorGroupCodes: [],
			},
			{
				type: '',
				matchType: '',
				listId: LIST,
				score: 90,
				prefixMatchLimit: 3,
				selectorGroupCodes: [' PEP ', 'SANCTIONS'],
			},
		]);
		expect(problem).toBeUndefined();
		expect(configurations).toEqual([
			{ type: 'SANCTION', matchType: 'FUZZY_MATCH' },
			{ listId: LIST, score: 90, prefixMatchLimit: 3, selectorGroupCodes: ['PEP', 'SANCTIONS'] },
		]);
	});

	test('group codes from an expression may be comma-separated text', () => {
		expect(buildConfigurations([{ selectorGroupCodes: 'PEP, SANCTIONS' }]).configurations).toEqual([
			{ selectorGroupCodes: ['PEP', 'SANCTIONS'] },
		]);
	});

	test('no rows → empty list', () => {
		expect(buildConfigurations([]).configurations).toEqual([]);
	});

	test('a non-UUID list ID names the row and field', () => {
		const { problem } = buildConfigurations([{ type: 'SANCTION' }, { listId: 'my-list' }]);
		expect(problem).toMatchObject({ field: 'Configurations[2] List ID', value: 'my-list' });
		expect(problem?.rule).toMatch(/UUID/);
	});

	test('a negative score is refused', () => {
		expect(buildConfigurations([{ score: -5 }]).problem?.field).toBe(
			'Configurations[1] Minimum Score',
		);
	});
});

describe('screening search simplify', () => {
	test('name from identities, list, type, countries (unique)', () => {
		expect(
			simplifySearchResult({
				id: 'rec-1',
				type: 'PERSON',
				screeningType: 'SANCTION',
				score: 91,
				sanctionList: 'Synthetic Sanctions List',
				matchData: '{"name":"X"}',
				identities: [
					{ value: 'Wiktor', type: 'ALIAS' },
					{ value: 'Viktor Drabenko', type: 'NAME' },
				],
				countryRelations: [
					{ countryCode: 'RU', relationType: 'COUNTRY' },
					{ countryCode: 'RU', relationType: 'NATIONALITY' },
				],
			}),
		).toEqual({
			id: 'rec-1',
			name: 'Viktor Drabenko',
			score: 91,
			list: 'Synthetic Sanctions List',
			type: 'SANCTION',
			recordType: 'PERSON',
			countries: ['RU'],
		});
	});

	test('name falls back to match data; tolerates missing arrays', () => {
		const simple = simplifySearchResult({
			id: 'r',
			matchData: '{"name":"Sokol Trading LLC"}',
			score: 88,
		});
		expect(simple.name).toBe('Sokol Trading LLC');
		expect(simple.countries).toEqual([]);
		expect(simplifySearchResult({ id: 'r', matchData: 'not json' }).name).toBeNull();
	});
});

describe('list group options', () => {
	test('name shown, code sent, sorted by name', () => {
		expect(
			listGroupOptions([
				{ code: 'SANCTIONS', name: 'Sanctions' },
				{ code: 'PEP', name: 'Politically exposed persons' },
				{ code: 'ADVERSE_MEDIA', name: 'Adverse media' },
				{ code: 'NONAME' },
				{ name: 'no code' },
			]).map((o) => [o.name, o.value]),
		).toEqual([
			['Adverse media', 'ADVERSE_MEDIA'],
			['NONAME', 'NONAME'],
			['Politically exposed persons', 'PEP'],
			['Sanctions', 'SANCTIONS'],
		]);
		expect(listGroupOptions(null)).toEqual([]);
	});
});
