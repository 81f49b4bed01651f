import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { personName } from '../actions/person/shared';
import { MAX_QUERY_LENGTH } from '../actions/person/searchFilters';
import { amlApiRequest, checkedPage, MAX_PAGE_SIZE, SEARCH_CAP, type Paged } from '../transport';

/** The service searches one category at a time: customers first, then counterparties. */
const CATEGORIES = [
	{ value: 'CUSTOMER', name: 'Customer' },
	{ value: 'COUNTERPARTY', name: 'Counterparty' },
];

/** The attributes the typed filter is looked for in (any of them, ignoring case). */
export const NAME_ATTRIBUTES = ['first_name', 'last_name', 'company_name'];

/** Where a list continues: category (index in CATEGORIES) and page. Pure. */
export function parsePersonToken(token: string | undefined): { category: number; page: number } {
	const match = /^(\d+):(\d+)$/.exec(token ?? '');
	if (!match) return { category: 0, page: 0 };
	const category = Number(match[1]);
	return category < CATEGORIES.length
		? { category, page: Number(match[2]) }
		: { category: 0, page: 0 };
}

/** The Person Search body of one page: the filter typed in the list, if any, on the name attributes. Pure. */
export function personSearchBody(
	filter: string | undefined,
	category: number,
	page: number,
): IDataObject {
	const query = (filter ?? '').trim().slice(0, MAX_QUERY_LENGTH);
	return {
		page,
		size: MAX_PAGE_SIZE,
		filters: query
			? NAME_ATTRIBUTES.map((attribute) => ({ attribute, operator: 'CONTAINS', query }))
			: [],
		logicalOperator: 'OR',
		category: CATEGORIES[category].value,
	};
}

/** A person as an entry of the list: name and ID shown, ID as the value, category as the description. Pure. */
export function personListItem(person: IDataObject, category: number): INodeListSearchItems {
	const id = String(person.id);
	const name = personName(person.attributes as IDataObject | undefined);
	return {
		name: name ? `${name} (${id})` : id,
		value: id,
		description: CATEGORIES[category].name,
	};
}

/** Whether a category has results after this page (the service pages no further than its 10,000th result). Pure. */
export function hasMorePages(answer: Paged<IDataObject>, page: number): boolean {
	const seen = (page + 1) * MAX_PAGE_SIZE;
	return answer.content.length === MAX_PAGE_SIZE && seen < Math.min(answer.total, SEARCH_CAP);
}

/**
 * Person ID → From List: the service's Person Search, filtered by the text typed in the list (first name, last
 * name or company name containing it), a page of 50 at a time; customers, then counterparties. n8n passes back
 * `paginationToken` for the next page. A category with nothing more is followed at once by the next one, so a
 * page is never empty while persons remain.
 */
export async function searchPersons(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	let { category, page } = parsePersonToken(paginationToken);
	const results: INodeListSearchItems[] = [];
	while (category < CATEGORIES.length) {
		const answer = (await amlApiRequest.call(this, {
			method: 'POST',
			path: '/v2/persons/search',
			body: personSearchBody(filter, category, page),
			// A search stores nothing: safe to repeat after a timeout or 5xx.
			retry: 'safe',
		})) as Paged<IDataObject>;
		const content = Array.isArray(answer?.content) ? answer.content : [];
		checkedPage({ ...answer, content }, page, MAX_PAGE_SIZE);
		for (const person of content) {
			if (person && typeof person.id === 'string') results.push(personListItem(person, category));
		}
		if (hasMorePages({ ...answer, content }, page))
			return { results, paginationToken: `${category}:${page + 1}` };
		category++;
		page = 0;
		if (results.length >= MAX_PAGE_SIZE) break;
	}
	return category < CATEGORIES.length ? { results, paginationToken: `${category}:0` } : { results };
}
