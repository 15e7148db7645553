/** Time source, injected everywhere so tests control it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** RFC 3339 UTC with milliseconds; fixed width, so these strings sort as the instants do. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();
