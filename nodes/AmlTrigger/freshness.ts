/**
 * Replay defence on the signed `createdTime`. The service retries a failed delivery for up to 14 days (7 days at
 * increasing intervals, then every 8 hours for 7 more days), so no delivery of the service is older than that. A
 * verified delivery whose event is older than MAX_DELIVERY_AGE_MS, or dated more than MAX_CLOCK_SKEW_MS ahead of this
 * n8n's clock, is a replayed capture or comes from a clock that is wrong: it is refused and starts nothing.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The service's whole retry span (14 days) and one day for clocks and queues. */
export const MAX_DELIVERY_AGE_MS = 15 * DAY_MS;

/** How far ahead of this n8n's clock an event may be dated. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

// ISO-8601 date-time with a zone (Z or ±hh:mm), up to 9 fractional digits. Fixed-width parts: linear.
const DATE_TIME =
	/^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;

/** Epoch milliseconds of an ISO-8601 date-time with a zone, or undefined (a date without a zone is ambiguous). */
export function eventTimeMs(value: unknown): number | undefined {
	if (typeof value !== 'string' || value.length > 40) return undefined;
	const match = DATE_TIME.exec(value.trim());
	if (!match) return undefined;
	const [, date, time, fraction = '', zone] = match;
	const millis = fraction.padEnd(3, '0').slice(0, 3);
	const offset = /^z$/i.test(zone) ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
	const ms = Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}.${millis}${offset}`);
	return Number.isFinite(ms) ? ms : undefined;
}

/** Why a verified delivery with this `createdTime` is refused at `nowMs`, or undefined when it is fresh. */
export function staleness(createdTime: unknown, nowMs: number): string | undefined {
	const at = eventTimeMs(createdTime);
	if (at === undefined)
		return 'Delivery refused: "createdTime" is missing or not an ISO-8601 date-time with a time zone';
	if (at < nowMs - MAX_DELIVERY_AGE_MS)
		return `Delivery refused: its createdTime is ${Math.floor((nowMs - at) / DAY_MS)} days old, older than the service's retry span (at most ${MAX_DELIVERY_AGE_MS / DAY_MS} days): a replayed delivery`;
	if (at > nowMs + MAX_CLOCK_SKEW_MS)
		return `Delivery refused: its createdTime is ${Math.ceil((at - nowMs) / 60_000)} minutes in the future (at most ${MAX_CLOCK_SKEW_MS / 60_000} minutes of clock difference are accepted)`;
	return undefined;
}
