import type { IDataObject } from 'n8n-workflow';

import { mapBounded } from './parallel';

/** The service's paged shape. */
export interface Paged<T = IDataObject> {
	number: number;
	size: number;
	total: number;
	content: T[];
}

/** The service never reports more than 10,000 results and cannot page past the 10,000th. */
/** What every page answer must hold (AmlRequest.answer): its `content` list. */
export const PAGE_ANSWER = { listField: 'content' };

export const SEARCH_CAP = 10_000;
export const MAX_PAGE_SIZE = 50;

export interface PageWalk<T> {
	items: T[];
	total: number;
	/** True when the service's 10,000-result cap cut the result. */
	capped: boolean;
	pages: number;
}

/**
 * Return All / Limit over any paged endpoint. Return All reads the first page of 50, learns `total`,
 * then fetches the remaining pages `concurrency` at a time, keeping their order.
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
): Promise<PageWalk<T>> {
	const concurrency = Math.max(1, options.concurrency ?? 4);
	const cap = options.cap ?? SEARCH_CAP;
	if (!options.returnAll) {
		const limit = Math.max(1, options.limit ?? MAX_PAGE_SIZE);
		const size = Math.min(MAX_PAGE_SIZE, limit);
		const items: T[] = [];
		let page = 0;
		let total = 0;
		for (;;) {
			const result = await fetchPage(page, size);
			total = result.total;
			items.push(...result.content);
			page++;
			if (
				items.length >= limit ||
				result.content.length < size ||
				items.length >= Math.min(total, cap)
			)
				break;
		}
		// Cut by the cap, not by the limit: fewer results than asked for although the service counts more (Limit 12,000
		// gets 10,000 of 10,000+).
		return {
			items: items.slice(0, limit),
			total,
			capped: items.length < limit && total >= cap,
			pages: page,
		};
	}

	const first = await fetchPage(0, MAX_PAGE_SIZE);
	const reachable = Math.min(first.total, cap);
	const pageCount = Math.ceil(reachable / MAX_PAGE_SIZE);
	const pages: T[][] = [first.content];
	let shortPage = first.content.length < MAX_PAGE_SIZE;
	const rest = Array.from({ length: Math.max(0, pageCount - 1) }, (_, k) => k + 1);
	await mapBounded(
		rest,
		concurrency,
		async (page) => {
			const result = await fetchPage(page, MAX_PAGE_SIZE);
			pages[page] = result.content;
			if (result.content.length === 0) shortPage = true;
		},
		() => shortPage,
	);
	const items = pages.flatMap((page) => page ?? []);
	return { items, total: first.total, capped: first.total >= cap, pages: pages.length };
}
