import type { IDataObject } from 'n8n-workflow';

import { mapBounded } from './parallel';

/** The service's paged shape. */
export interface Paged<T = IDataObject> {
	number: number;
	size: number;
	total: number;
	content: T[];
}

/** What every page answer must hold (AmlRequest.answer): its `content` list. */
export const PAGE_ANSWER = { listField: 'content' };

/** The service never reports more than 10,000 results and cannot page past the 10,000th. */
export const SEARCH_CAP = 10_000;
export const MAX_PAGE_SIZE = 50;

/**
 * The most results one read of a list gathers (Return All, or a Limit above it) where the interface sets no cap
 * (custom list records, screening alert hits): each result becomes an n8n item held in memory. A list that reports
 * more stops with an error before its second page is asked for.
 */
export const MAX_LIST_RESULTS = 100_000;

/** An answer whose paging numbers break the interface: the read stops, nothing is concluded from it. */
export class PagingError extends Error {}

/**
 * The page as the interface allows it: `total` a whole number of results, `content` no longer than the page size
 * asked for. Throws PagingError otherwise.
 */
export function checkedPage<T>(answer: Paged<T>, page: number, size: number): Paged<T> {
	const total: unknown = answer.total;
	if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0)
		throw new PagingError(
			`The AML service's answer for page ${page} could not be read: its total (${String(total).slice(0, 40)}) is not a count of results. Nothing was read further`,
		);
	if (answer.content.length > size)
		throw new PagingError(
			`The AML service's answer for page ${page} could not be read: it holds ${answer.content.length} results, more than the ${size} asked for. Nothing was read further`,
		);
	return answer;
}

/**
 * Return All / Limit over any paged endpoint. Return All reads the first page of 50, learns `total`,
 * then fetches the remaining pages `concurrency` at a time, keeping their order. `capped`: the service's
 * 10,000-result cap cut the result.
 */
export async function walkPages<T>(
	fetchPage: (page: number, size: number) => Promise<Paged<T>>,
	options: {
		returnAll: boolean;
		limit?: number;
		concurrency?: number;
		/** Results reachable by paging (default the search cap of 10,000; `Infinity` for uncapped lists). */
		cap?: number;
	},
): Promise<{ items: T[]; total: number; capped: boolean }> {
	const concurrency = Math.max(1, options.concurrency ?? 4);
	const cap = options.cap ?? SEARCH_CAP;
	const readable = Math.min(cap, MAX_LIST_RESULTS);
	const limit = options.returnAll ? Infinity : Math.max(1, options.limit ?? MAX_PAGE_SIZE);
	const size = Math.min(MAX_PAGE_SIZE, limit);
	const first = checkedPage(await fetchPage(0, size), 0, size);
	if (Math.min(limit, first.total) > readable && readable < cap)
		throw new PagingError(
			`The AML service reports ${first.total} results; the node reads at most ${readable.toLocaleString('en-US')} in one run (each becomes an item in memory). Nothing was returned: use a Limit, or split the list`,
		);
	if (!options.returnAll) {
		const items = [...first.content];
		let result = first;
		// until the limit, the total (within the cap) or a short page
		const more = () =>
			items.length < Math.min(limit, result.total, cap) && result.content.length === size;
		for (let page = 1; more(); page++) {
			result = checkedPage(await fetchPage(page, size), page, size);
			items.push(...result.content);
		}
		const { total } = result;
		// Cut by the cap, not by the limit: fewer results than asked for although the service counts more (Limit 12,000
		// gets 10,000 of 10,000+).
		const capped = items.length < limit && total >= cap;
		return { items: items.slice(0, limit), total, capped };
	}

	const pageCount = Math.ceil(Math.min(first.total, readable) / size);
	const pages: T[][] = [first.content];
	let shortPage = first.content.length < size;
	const rest = Array.from({ length: Math.max(0, pageCount - 1) }, (_, k) => k + 1);
	await mapBounded(
		rest,
		concurrency,
		async (page) => {
			const result = checkedPage(await fetchPage(page, size), page, size);
			pages[page] = result.content;
			if (result.content.length === 0) shortPage = true;
		},
		() => shortPage,
	);
	const items = pages.flatMap((page) => page ?? []);
	return { items, total: first.total, capped: first.total >= cap };
}
