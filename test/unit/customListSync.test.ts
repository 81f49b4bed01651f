import { mapBounded } from '../../nodes/Aml/transport/parallel';
import { isArchivedRecord } from '../../nodes/Aml/actions/customList/shared';
import {
	archiveSharePercent,
	canonicalJson,
	exceedsArchiveGuard,
	splitDuplicates,
	planSync,
	sameAttributes,
} from '../../nodes/Aml/actions/customList/syncPlan';

describe('custom list sync planning', () => {
	test('canonical JSON ignores key order at every level but keeps array order', () => {
		expect(canonicalJson({ b: '1', a: { y: '2', x: ['p', 'q'] } })).toBe(
			canonicalJson({ a: { x: ['p', 'q'], y: '2' }, b: '1' }),
		);
		expect(sameAttributes({ list: ['a', 'b'] }, { list: ['b', 'a'] })).toBe(false);
		expect(sameAttributes({ list: [{ id: '1', v: 'x' }] }, { list: [{ v: 'x', id: '1' }] })).toBe(
			true,
		);
		expect(sameAttributes({ a: '1' }, { a: '1', b: '' })).toBe(false);
		expect(sameAttributes(undefined, {})).toBe(true);
	});

	test('plan: create new ids, update changed, leave equal, archive missing', () => {
		const desired = [
			{ id: 'a', attributes: { name: 'A' }, itemIndex: 0 },
			{ id: 'b', attributes: { name: 'B2', country: 'DE' }, itemIndex: 1 },
			{ id: 'c', attributes: { country: 'CZ', name: 'C' }, itemIndex: 2 },
		];
		const current = [
			{ id: 'b', attributes: { name: 'B' } },
			{ id: 'c', attributes: { name: 'C', country: 'CZ' } },
			{ id: 'd', attributes: { name: 'D' } },
		];
		const plan = planSync(desired, current, true);
		expect(plan.creates.map((c) => [c.id, c.itemIndex])).toEqual([['a', 0]]);
		expect(plan.updates.map((c) => [c.id, c.itemIndex])).toEqual([['b', 1]]);
		expect(plan.unchanged).toEqual(['c']);
		expect(plan.archives.map((c) => c.id)).toEqual(['d']);
		expect(plan.currentCount).toBe(3);
		expect(archiveSharePercent(plan)).toBeCloseTo(33.33, 1);
		expect(planSync(desired, current, false).archives).toHaveLength(0);
	});

	test('guard: refuses more than the allowed share; empty list or no archive never refused', () => {
		const current = Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, attributes: {} }));
		const keep = (n: number) => current.slice(0, n).map((r, i) => ({ ...r, itemIndex: i }));
		expect(exceedsArchiveGuard(planSync(keep(5), current, true), 50)).toBe(false); // exactly 50%
		expect(exceedsArchiveGuard(planSync(keep(4), current, true), 50)).toBe(true); // 60%
		expect(exceedsArchiveGuard(planSync([], current, true), 50)).toBe(true); // empty source
		expect(exceedsArchiveGuard(planSync([], current, true), 100)).toBe(false);
		expect(exceedsArchiveGuard(planSync([], [], true), 0)).toBe(false);
		expect(exceedsArchiveGuard(planSync([], current, false), 0)).toBe(false);
	});

	test('every row of an id given twice is a duplicate, naming its other rows', () => {
		const x0 = { id: 'x', attributes: {}, itemIndex: 0 };
		const y1 = { id: 'y', attributes: {}, itemIndex: 1 };
		const x7 = { id: 'x', attributes: {}, itemIndex: 7 };
		expect(splitDuplicates([x0, y1, x7])).toEqual({
			unique: [y1],
			duplicates: [
				{ record: x0, others: [7] },
				{ record: x7, others: [0] },
			],
		});
		expect(splitDuplicates([x0])).toEqual({ unique: [x0], duplicates: [] });
	});

	test('archived flags in a listing are recognised', () => {
		expect(isArchivedRecord({ id: 'a', attributes: {} })).toBe(false);
		expect(isArchivedRecord({ id: 'a', archived: true })).toBe(true);
		expect(isArchivedRecord({ id: 'a', status: 'archived' })).toBe(true);
		expect(isArchivedRecord({ id: 'a', archivedTime: '2024-01-01T00:00:00Z' })).toBe(true);
		expect(isArchivedRecord({ id: 'a', archivedTime: null })).toBe(false);
	});

	test('mapBounded keeps order, bounds concurrency and stops starting when asked', async () => {
		let running = 0;
		let peak = 0;
		const results = await mapBounded([5, 1, 3, 2, 4, 0], 2, async (n) => {
			running++;
			peak = Math.max(peak, running);
			await new Promise((r) => setTimeout(r, n * 3));
			running--;
			return n * 10;
		});
		expect(results).toEqual([50, 10, 30, 20, 40, 0]);
		expect(peak).toBe(2);
		let started = 0;
		const stopped = await mapBounded(
			[1, 2, 3, 4, 5],
			1,
			async (n) => {
				started++;
				return n;
			},
			() => started >= 2,
		);
		expect(stopped).toEqual([1, 2, undefined, undefined, undefined]);
	});
});
