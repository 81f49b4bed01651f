import type { IDataObject } from 'n8n-workflow';

import { uuidRule } from '../../validation';

export const MIN_SEARCH_NAME = 3;

/** One row of the Configurations fixed collection, as n8n hands it over. */
export interface ConfigurationInput {
	type?: string;
	matchType?: string;
	listId?: string;
	usableFieldId?: string;
	score?: number;
	prefixMatchLimit?: number;
	selectorGroupCodes?: string[] | string;
}

/** A broken rule in one configuration row: the field (as the user sees it) and the rule. */
export interface ConfigurationProblem {
	field: string;
	value: unknown;
	rule: string;
}

/**
 * Turns the UI rows into the service's ScreeningSearchConfiguration objects: empty text and 0 mean
 * "not sent"; IDs must be UUIDs; numbers must not be negative. Pure.
 */
export function buildConfigurations(rows: ConfigurationInput[]): {
	configurations: IDataObject[];
	problem?: ConfigurationProblem;
} {
	const configurations: IDataObject[] = [];
	for (let index = 0; index < rows.length; index++) {
		const row = rows[index] ?? {};
		const where = `Configurations[${index + 1}]`;
		const config: IDataObject = {};
		for (const key of ['type', 'matchType'] as const) {
			const value = typeof row[key] === 'string' ? (row[key] as string).trim() : '';
			if (value) config[key] = value;
		}
		for (const [key, label] of [
			['listId', 'List ID'],
			['usableFieldId', 'Usable Field ID'],
		] as const) {
			const value = typeof row[key] === 'string' ? (row[key] as string).trim() : '';
			if (!value) continue;
			const broken = uuidRule(value);
			if (broken)
				return { configurations, problem: { field: `${where} ${label}`, value, rule: broken } };
			config[key] = value;
		}
		for (const [key, label] of [
			['score', 'Minimum Score'],
			['prefixMatchLimit', 'Prefix Match Limit'],
		] as const) {
			const value = row[key];
			if (value === undefined || value === null || (value as unknown) === '' || value === 0)
				continue;
			if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
				return {
					configurations,
					problem: {
						field: `${where} ${label}`,
						value,
						rule: 'must be a number of 0 or more (0 = not sent)',
					},
				};
			}
			config[key] = value;
		}
		const groups = Array.isArray(row.selectorGroupCodes)
			? row.selectorGroupCodes
			: typeof row.selectorGroupCodes === 'string'
				? row.selectorGroupCodes.split(',')
				: [];
		const codes = groups.map((code) => String(code).trim()).filter(Boolean);
		if (codes.length) config.selectorGroupCodes = codes;
		configurations.push(config);
	}
	return { configurations };
}

/** The name a search result stands for: its NAME identity, else the name in its match data. */
function resultName(result: IDataObject): string | null {
	const identities = Array.isArray(result.identities) ? (result.identities as IDataObject[]) : [];
	const named = identities.find((identity) => identity?.type === 'NAME') ?? identities[0];
	if (named?.value) return String(named.value);
	if (typeof result.matchData === 'string') {
		try {
			const data = JSON.parse(result.matchData) as IDataObject;
			if (data && typeof data === 'object' && data.name) return String(data.name);
		} catch {
			// matchData is not JSON: fall through.
		}
	}
	return null;
}

export function simplifySearchResult(result: IDataObject): IDataObject {
	const relations = Array.isArray(result.countryRelations)
		? (result.countryRelations as IDataObject[])
		: [];
	return {
		id: result.id,
		name: resultName(result),
		score: result.score,
		list: result.sanctionList ?? null,
		type: result.screeningType ?? null,
		recordType: result.type ?? null,
		countries: [...new Set(relations.map((relation) => relation?.countryCode).filter(Boolean))],
	};
}
