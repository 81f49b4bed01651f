/** Reply/request shapes shared by every route module, and the JSON error body of the service. */
export interface Reply {
	status: number;
	body?: unknown;
	/** Send `body` as text/plain instead of JSON (create person / create transaction 4xx). */
	text?: boolean;
	headers?: Record<string, string>;
}

export interface Req {
	params: Record<string, string>;
	query: URLSearchParams;
	body: unknown;
}

export type Handler = (r: Req) => Reply | Promise<Reply>;
/** A route: method, path pattern with `:name` parameters, handler. */
export type RouteDef = [string, string, Handler];

const ERRORS: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	409: 'Conflict',
	413: 'Payload Too Large',
	422: 'Unprocessable Entity',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
};

export const ok = (body?: unknown, status = 200): Reply => ({ status, body });

/** An error answer: JSON `{status, error, message}`, or the bare message as text/plain when `text`. */
export const fail = (status: number, message: string, text = false): Reply =>
	text
		? { status, body: message, text: true }
		: { status, body: { status, error: ERRORS[status] ?? 'Error', message } };

export const MAX_RESULTS = 10_000;

/** The paged shape `{number, size, total, content}`; `capped` applies the 10,000-result cap of searches. */
export function paged<T>(
	items: T[],
	page: number,
	size: number,
	capped = false,
	view?: (item: T) => unknown,
): Reply {
	if (capped && page * size >= MAX_RESULTS && page > 0)
		return fail(400, `paging past the ${MAX_RESULTS}th result is not possible`);
	const total = capped ? Math.min(items.length, MAX_RESULTS) : items.length;
	// Only the page's items are turned into views (not the whole list, for every page).
	const slice = items.slice(page * size, page * size + size);
	return ok({ number: page, size, total, content: view ? slice.map(view) : slice });
}
