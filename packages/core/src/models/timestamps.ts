/**
 * Instants as agentrun accepts and stores them. Both stores must represent every instant a
 * caller can send, so an accepted timestamp, once normalised to UTC, lies in the years
 * 0001–9999 (Postgres has no year 0 and JavaScript writes year 10000 as `+010000`). Anything
 * else is a 400, on every store alike (docs/run-api.md, "Timestamps"). A timestamp without an
 * offset is read as UTC: Python's `datetime.isoformat()` writes a naive datetime that way, and
 * the Python client sends it as is.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))?$/i;
/** The only form agentrun writes: `toISOString()` of an instant in years 0001–9999. */
const STORED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : (DAYS[month - 1] as number));

/**
 * An RFC 3339 timestamp as a stored instant (`2026-01-02T03:04:05.000Z`), or `undefined` when it
 * is not one: a day that does not exist, a field out of range, or an instant outside 0001–9999 UTC.
 */
export function parseTimestamp(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[9] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  // Without an offset `Date.parse` would read local time; agentrun reads UTC.
  const ms = Date.parse(m[8] === undefined ? `${text}Z` : text);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return isStoredInstant(iso) ? iso : undefined;
}

/** Whether `text` is exactly an instant agentrun writes (what cursors carry back). */
export const isStoredInstant = (text: string): boolean => {
  if (!STORED.test(text) || text.startsWith('0000')) return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text;
};
