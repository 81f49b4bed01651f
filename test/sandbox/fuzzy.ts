/** Fuzzy name matching: Jaro-Winkler over normalised names (lowercase, diacritics stripped, token-sorted). */

/** Jaro-Winkler similarity 0..1. */
export function jaroWinkler(a: string, b: string): number {
	if (a === b) return 1;
	if (!a.length || !b.length) return 0;
	const range = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
	const aMatch = new Array<boolean>(a.length).fill(false);
	const bMatch = new Array<boolean>(b.length).fill(false);
	let matches = 0;
	for (let i = 0; i < a.length; i++) {
		for (let j = Math.max(0, i - range); j < Math.min(b.length, i + range + 1); j++) {
			if (!bMatch[j] && a[i] === b[j]) {
				aMatch[i] = bMatch[j] = true;
				matches++;
				break;
			}
		}
	}
	if (!matches) return 0;
	let t = 0;
	let k = 0;
	for (let i = 0; i < a.length; i++) {
		if (!aMatch[i]) continue;
		while (!bMatch[k]) k++;
		if (a[i] !== b[k]) t++;
		k++;
	}
	const jaro = (matches / a.length + matches / b.length + (matches - t / 2) / matches) / 3;
	let prefix = 0;
	while (prefix < 4 && prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
	return jaro + prefix * 0.1 * (1 - jaro);
}

/** Cyrillic → Latin (simple), so a transliterated alias compares with its Latin form. */
const CYRILLIC: Record<string, string> = {
	а: 'a',
	б: 'b',
	в: 'v',
	г: 'g',
	д: 'd',
	е: 'e',
	ё: 'e',
	ж: 'zh',
	з: 'z',
	и: 'i',
	й: 'i',
	к: 'k',
	л: 'l',
	м: 'm',
	н: 'n',
	о: 'o',
	п: 'p',
	р: 'r',
	с: 's',
	т: 't',
	у: 'u',
	ф: 'f',
	х: 'kh',
	ц: 'ts',
	ч: 'ch',
	ш: 'sh',
	щ: 'shch',
	ы: 'y',
	э: 'e',
	ю: 'yu',
	я: 'ya',
	ь: '',
	ъ: '',
};

const cache = new Map<string, string>();

export function normaliseName(name: string): string {
	const hit = cache.get(name);
	if (hit !== undefined) return hit;
	const result = name
		.toLowerCase()
		.replace(/[а-яё]/g, (c) => CYRILLIC[c] ?? c)
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/ß/g, 'ss')
		.replace(/[^a-z0-9\u0600-\u06ff ]+/g, ' ')
		.split(/\s+/)
		.filter(Boolean)
		.sort()
		.join(' ');
	if (cache.size > 50_000) cache.clear();
	cache.set(name, result);
	return result;
}

/** Score 0..100 of two names (token-sorted, diacritics stripped). */
export function nameScore(a: string, b: string): number {
	return Math.round(jaroWinkler(normaliseName(a), normaliseName(b)) * 100);
}
