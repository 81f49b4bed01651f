/**
 * The node's one bounded worker pool: per-item sends of `runItems`, Custom List → Sync Records's changes and the page
 * reads of `walkPages`. In the transport, the lowest layer, so that every layer can use it.
 *
 * Runs `task` over `inputs` with at most `limit` running at the same time and returns the results in
 * input order. `task` should not throw (catch and return the failure); a throw rejects the whole map.
 * `shouldStop` is asked before each new start: once it answers true, the remaining inputs are not
 * started and their slots stay `undefined`.
 */
export async function mapBounded<T, R>(
	inputs: readonly T[],
	limit: number,
	task: (input: T, index: number) => Promise<R>,
	shouldStop: () => boolean = () => false,
): Promise<Array<R | undefined>> {
	const results: Array<R | undefined> = new Array(inputs.length);
	let next = 0;
	const worker = async () => {
		while (next < inputs.length && !shouldStop()) {
			const index = next++;
			results[index] = await task(inputs[index], index);
		}
	};
	const workers = Math.max(1, Math.min(Math.floor(limit) || 1, inputs.length));
	await Promise.all(Array.from({ length: workers }, worker));
	return results;
}
