/** Time source, injected everywhere so tests control it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * RFC 3339 UTC with milliseconds; fixed width, so these strings sort as the instants do. The last
 * answer is kept: a busy ingress asks for the same millisecond many times, and formatting a Date
 * costs about a microsecond. (NaN never equals itself, so an invalid time still throws.)
 */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
let lastMs = Number.NaN;
let lastIso = '';
