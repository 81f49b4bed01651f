/**
 * The interface's input rules as pure functions. Each returns undefined when the value is fine, or the
 * rule it breaks in words a user can act on.
 */

export const ID_PATTERN = /^[A-Za-z0-9\-_:.]+$/;

/**
 * An ID of a person, transaction or record: text of the allowed characters, stored unchanged by the service (so never
 * trimmed or altered here). A whole number up to 2^53 - 1 (an ID read from a spreadsheet) is the same ID as text;
 * other numbers are refused. An ID made only of dots would address another resource in a URL path ("." and "..").
 */
export function idRule(value: unknown): string | undefined {
	if (typeof value === 'number') {
		return Number.isSafeInteger(value)
			? undefined
			: 'must be text, or a whole number of at most 9007199254740991 (write larger or decimal IDs as text)';
	}
	if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty text ID';
	if (!ID_PATTERN.test(value)) {
		const bad = [...new Set([...value].filter((c) => !/[A-Za-z0-9\-_:.]/.test(c)))]
			.map((c) => (c === ' ' ? 'space' : JSON.stringify(c)))
			.join(', ');
		return `may only contain a-z, A-Z, 0-9, hyphen, underscore, colon and dot (found ${bad})`;
	}
	if (/^\.+$/.test(value))
		return 'must not consist of dots only (in a URL "." and ".." would address another resource)';
	return undefined;
}

/** The text form of an ID that passed `idRule` (a whole number becomes its digits). */
export function idText(value: unknown): string {
	return typeof value === 'number' ? String(value) : (value as string);
}

/** A numeric ID of the service (int64 >= 1) that n8n can send exactly: 1 to 2^53 - 1, as a number or its digits. */
export function numericIdRule(value: unknown): string | undefined {
	const text =
		typeof value === 'number'
			? Number.isInteger(value)
				? String(value)
				: ''
			: typeof value === 'string'
				? value
				: '';
	if (!/^\d+$/.test(text) || /^0+$/.test(text)) return 'must be a whole number of at least 1';
	if (!Number.isSafeInteger(Number(text)))
		return 'must be at most 9007199254740991 (larger numbers cannot be sent exactly)';
	return undefined;
}

export function positiveIntegerRule(value: unknown, min = 1): string | undefined {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isInteger(n) || n < min)
		return `must be a whole number of at least ${min}`;
	return undefined;
}

export function uuidRule(value: unknown): string | undefined {
	if (
		typeof value !== 'string' ||
		!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value)
	) {
		return 'must be a UUID such as 5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10';
	}
	return undefined;
}

/** ISO-8601 date or date-time; at most 6 fractional-second digits. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?$/;

function validDate(y: string, mo: string, d: string): boolean {
	const month = Number(mo);
	const day = Number(d);
	return (
		month >= 1 &&
		month <= 12 &&
		day >= 1 &&
		day <= new Date(Date.UTC(Number(y), month, 0)).getUTCDate()
	);
}

export function timestampRule(value: unknown): string | undefined {
	if (typeof value !== 'string')
		return 'must be an ISO-8601 timestamp such as 2024-05-01T12:30:00Z';
	if (ISO_DATE.test(value)) {
		const [y, mo, d] = value.split('-');
		return validDate(y, mo, d) ? undefined : 'is not a valid calendar date';
	}
	const match = ISO_DATE_TIME.exec(value);
	if (!match) return 'must be an ISO-8601 timestamp such as 2024-05-01T12:30:00Z';
	if (match[7] && match[7].length > 6)
		return `may have at most 6 fractional-second digits (has ${match[7].length})`;
	const [, y, mo, d, h, mi, s] = match;
	if (!validDate(y, mo, d) || Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)
		return 'is not a valid date and time';
	return undefined;
}

/** A date-time (the interface's `date-time` fields): a timestamp with its time of day. */
export function dateTimeRule(value: unknown): string | undefined {
	if (typeof value === 'string' && ISO_DATE.test(value))
		return 'must be a date and time such as 2024-05-01T12:30:00Z (a date alone is not enough)';
	return timestampRule(value);
}

/** `amount` is a decimal carried as a string: "1250.00", "-3.5", "1000". */
export function amountRule(value: unknown): string | undefined {
	if (
		typeof value !== 'string' ||
		!/^-?\d+(\.\d+)?$/.test(value.trim()) ||
		value.trim() !== value
	) {
		return 'must be a decimal number written as text, such as "1250.00" (no currency sign, thousands separator or exponent)';
	}
	return undefined;
}

export function rangeRule(value: unknown, min: number, max?: number): string | undefined {
	if (
		typeof value !== 'number' ||
		!Number.isInteger(value) ||
		value < min ||
		(max !== undefined && value > max)
	) {
		return max === undefined
			? `must be a whole number of at least ${min}`
			: `must be a whole number from ${min} to ${max}`;
	}
	return undefined;
}

export function lengthRule(value: unknown, min: number, max?: number): string | undefined {
	if (typeof value !== 'string') return 'must be text';
	if (value.length < min)
		return min === 1
			? 'must not be empty'
			: `must have at least ${min} characters (has ${value.length})`;
	if (max !== undefined && value.length > max)
		return `may have at most ${max} characters (has ${value.length})`;
	return undefined;
}

export function nonEmptyRule(value: unknown): string | undefined {
	if (typeof value !== 'string' || value.trim() === '') return 'must not be empty';
	return undefined;
}

export function enumRule(value: unknown, allowed: readonly string[]): string | undefined {
	if (typeof value !== 'string' || !allowed.includes(value))
		return `must be one of ${allowed.join(', ')}`;
	return undefined;
}

export const MAX_ATTRIBUTE_DEPTH = 2;

/** Keys that JavaScript objects treat specially (prototype pollution): refused at every level. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
	'__proto__',
	'constructor',
	'prototype',
]);

/**
 * Attribute rules: an object; keys without "." and not whitespace-only; values string, array or
 * object; nesting depth at most 2 (the attributes object's values are depth 1).
 * Returns the path of the offending key and the rule.
 */
export function attributesRule(value: unknown): { path: string; rule: string } | undefined {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		return { path: '', rule: 'must be an object of key/value pairs' };
	}
	return levelProblem(value as Record<string, unknown>, '', 1);
}

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	return typeof value;
}

function levelProblem(
	object: Record<string, unknown>,
	prefix: string,
	depth: number,
): { path: string; rule: string } | undefined {
	for (const [key, child] of Object.entries(object)) {
		const path = prefix ? `${prefix}.${key}` : key;
		if (key.trim() === '')
			return { path: JSON.stringify(key), rule: 'a key must not be empty or only whitespace' };
		if (key.includes('.')) return { path, rule: 'a key must not contain "."' };
		if (RESERVED_KEYS.has(key))
			return {
				path,
				rule: `a key must not be "${key}" (reserved by JavaScript: it cannot be sent safely)`,
			};
		const result = valueProblem(child, path, depth, prefix === '');
		if (result) return result;
	}
	return undefined;
}

function valueProblem(
	value: unknown,
	path: string,
	depth: number,
	topLevel: boolean,
): { path: string; rule: string } | undefined {
	if (typeof value === 'string') return undefined;
	if (topLevel && !(Array.isArray(value) || (value !== null && typeof value === 'object'))) {
		return {
			path,
			rule: `values must be text, arrays or objects (got ${describe(value)}); write numbers and booleans as text, e.g. "1250.00"`,
		};
	}
	if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
		if (depth >= MAX_ATTRIBUTE_DEPTH) {
			return { path, rule: `attributes may be nested at most ${MAX_ATTRIBUTE_DEPTH} levels deep` };
		}
		if (Array.isArray(value)) {
			for (let index = 0; index < value.length; index++) {
				const item = value[index];
				if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
					const result = levelProblem(
						item as Record<string, unknown>,
						`${path}[${index}]`,
						depth + 1,
					);
					if (result) return result;
				} else if (Array.isArray(item)) {
					return {
						path: `${path}[${index}]`,
						rule: `attributes may be nested at most ${MAX_ATTRIBUTE_DEPTH} levels deep`,
					};
				}
			}
			return undefined;
		}
		return levelProblem(value as Record<string, unknown>, path, depth + 1);
	}
	return undefined;
}
