/** The interface's request rules, as the sandbox enforces them (400 with a message per rule). */
export const ID_RE = /^[A-Za-z0-9\-_:.]+$/;

export function idError(value: unknown, field = 'id'): string | undefined {
	if (typeof value !== 'string' || value.length === 0) return `${field} must be a non-empty string`;
	if (!ID_RE.test(value)) return `${field} contains characters outside a-z, A-Z, 0-9, -, _, :, .`;
	return undefined;
}

export function attributesError(value: unknown, depth = 1): string | undefined {
	if (value === null || typeof value !== 'object' || Array.isArray(value))
		return 'attributes must be an object';
	for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
		if (key.trim() === '') return 'attribute keys must not be blank';
		if (key.includes('.')) return `attribute key "${key}" must not contain "."`;
		if (
			depth === 1 &&
			!(typeof child === 'string' || (child !== null && typeof child === 'object'))
		) {
			return `attribute "${key}" must be a string, array or object`;
		}
		if (child !== null && typeof child === 'object') {
			if (depth >= 2) return `attribute "${key}" exceeds the maximum nesting depth of 2`;
			const items = Array.isArray(child) ? child : [child];
			for (const item of items) {
				if (Array.isArray(item)) return `attribute "${key}" exceeds the maximum nesting depth of 2`;
				if (item !== null && typeof item === 'object') {
					const nested = attributesError(item, depth + 1);
					if (nested) return nested;
				}
			}
		}
	}
	return undefined;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
export function timestampError(value: unknown, field = 'timestamp'): string | undefined {
	if (typeof value !== 'string' || !ISO.test(value) || Number.isNaN(Date.parse(value)))
		return `${field} must be ISO-8601`;
	const fraction = /\.(\d+)/.exec(value);
	if (fraction && fraction[1].length > 6)
		return `${field} may have at most 6 fractional-second digits`;
	return undefined;
}

export function amountError(value: unknown): string | undefined {
	if (typeof value !== 'string' || !/^-?\d+(\.\d+)?$/.test(value))
		return 'attributes.amount is required and must be a decimal string';
	return undefined;
}

export function pageError(page: unknown, size: unknown): string | undefined {
	const p = Number(page ?? 0);
	const s = Number(size ?? 20);
	if (!Number.isInteger(p) || p < 0) return 'page must be >= 0';
	if (!Number.isInteger(s) || s < 1 || s > 50) return 'size must be between 1 and 50';
	return undefined;
}

export const PERSON_TYPES = ['INDIVIDUAL', 'PRIVATE', 'BUSINESS', 'LEGAL', 'UNDEFINED'];
export const PERSON_STATUSES = [
	'NEW',
	'REVIEWED',
	'MONITORING',
	'SUSPENDED',
	'TERMINATED',
	'TERMINATED_AND_REPORTED',
];
export const OPERATORS = [
	'IS_EXACTLY',
	'CONTAINS',
	'STARTS_WITH',
	'ENDS_WITH',
	'CONTAINS_WORD',
	'GT',
	'GTE',
	'LT',
	'LTE',
	'EXISTS',
	'NOT_EXISTS',
];
export const ALERT_TYPES = ['MONITORING', 'SCREENING', 'BRIDGE', 'MANUAL'];
export const RATIONALES = [
	'SUSPICIOUS_ACTIVITY',
	'UNUSUAL_TRANSACTION',
	'INITIAL_DUE_DILIGENCE',
	'ONGOING_DUE_DILIGENCE',
	'ENHANCED_DUE_DILIGENCE',
	'CUSTOMER_REQUEST',
	'INTERNAL_INVESTIGATION',
	'REGULATORY_REQUIREMENT',
	'OTHER',
];
export const UPLOAD_TYPES = ['PERSON', 'PERSON_RELATION', 'TRANSACTION', 'TRANSACTION_UPDATE'];

/** v2 patch semantics: given keys replace; arrays of objects merged by `id`. */
export function mergeAttributes(
	current: Record<string, unknown>,
	patch: Record<string, unknown>,
): Record<string, unknown> {
	const result: Record<string, unknown> = { ...current };
	for (const [key, value] of Object.entries(patch)) {
		const old = result[key];
		if (Array.isArray(value) && Array.isArray(old)) {
			const merged = [...old] as Array<Record<string, unknown>>;
			for (const item of value as Array<Record<string, unknown>>) {
				const index =
					item && typeof item === 'object' && 'id' in item
						? merged.findIndex((o) => o && o.id === item.id)
						: -1;
				if (index >= 0) merged[index] = { ...merged[index], ...item };
				else merged.push(item);
			}
			result[key] = merged;
		} else if (
			value &&
			typeof value === 'object' &&
			!Array.isArray(value) &&
			old &&
			typeof old === 'object' &&
			!Array.isArray(old)
		) {
			result[key] = { ...(old as object), ...(value as object) };
		} else {
			result[key] = value;
		}
	}
	return result;
}

export const CATEGORIES = ['COUNTERPARTY', 'CUSTOMER'];
export const DIRECTIONS = ['ASC', 'DESC'];

/** 1..200 characters when present. */
export function lengthError(value: unknown, field: string): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string' || value.length < 1 || value.length > 200)
		return `${field} must have 1..200 characters`;
	return undefined;
}

/** page >= 0 (default 0) and size 1..50 (default 20), from a query string or a JSON body. */
export function pageArgs(q: URLSearchParams | Record<string, unknown>): {
	page: number;
	size: number;
	error?: string;
} {
	const get = (k: string) => (q instanceof URLSearchParams ? (q.get(k) ?? undefined) : q[k]);
	const rawPage = get('page');
	const rawSize = get('size');
	const page = rawPage === undefined || rawPage === '' ? 0 : Number(rawPage);
	const size = rawSize === undefined || rawSize === '' ? 20 : Number(rawSize);
	return { page, size, error: pageError(page, size) };
}

/** A path id that must be an integer int64 >= min. */
export function intIdError(value: string, field: string, min = 1): string | undefined {
	if (!/^\d{1,18}$/.test(value) || Number(value) < min)
		return `${field} must be an integer >= ${min}`;
	return undefined;
}
