/** nodes/Aml/transport/pagination.ts: pages, Return All and Limit, the service's cap. */
import { walkPages } from '../../nodes/Aml/transport/pagination';

describe('walkPages: the service cap is reported in both modes', () => {
	/** A service with `total` results that pages only up to 10,000 (like the search endpoints). */
	const pagesOf = (total: number) => async (page: number, size: number) => {
		const start = page * size;
		const end = Math.min(total, 10_000, start + size);
		return {
			number: page,
			size,
			total,
			content: Array.from({ length: Math.max(0, end - start) }, (_v, i) => start + i),
		};
	};

	test('Limit above the cap: 10,000 of 12,500 returned and capped', async () => {
		const walk = await walkPages(pagesOf(12_500), { returnAll: false, limit: 12_000 });
		expect(walk.items).toHaveLength(10_000);
		expect(walk.capped).toBe(true);
	});

	test('Limit below the cap or a result under it: not capped', async () => {
		expect((await walkPages(pagesOf(12_500), { returnAll: false, limit: 120 })).capped).toBe(false);
		expect((await walkPages(pagesOf(300), { returnAll: false, limit: 12_000 })).capped).toBe(false);
	});

	test('a claimed total of 2e11 on an uncapped list: one page read, then an error (no array sized from it)', async () => {
		let asked = 0;
		const claim = async (page: number, size: number) => {
			asked++;
			return {
				number: page,
				size,
				total: 2e11,
				content: Array.from({ length: size }, (_v, i) => i),
			};
		};
		await expect(walkPages(claim, { returnAll: true, cap: Infinity })).rejects.toThrow(
			/reports 200000000000 results; the node reads at most 100,000/,
		);
		await expect(walkPages(claim, { returnAll: false, limit: 1e9, cap: Infinity })).rejects.toThrow(
			/reports 200000000000 results/,
		);
		expect(asked).toBe(2);
		// a search: the interface caps it at 10,000, so 2e11 reads 200 pages and reports the cap
		const search = await walkPages(pagesOf(2e11), { returnAll: true });
		expect(search.items).toHaveLength(10_000);
		expect(search.capped).toBe(true);
	});

	test('Return All over the cap: capped', async () => {
		const walk = await walkPages(pagesOf(12_500), { returnAll: true });
		expect(walk.items).toHaveLength(10_000);
		expect(walk.capped).toBe(true);
	});
});
