/**
 * True at most once per `ms`: for logging a condition that every request or poll would otherwise
 * log (a store outage), once in a while instead of in a flood.
 */
export function everyMs(ms: number): { due(now: number): boolean } {
  let last = Number.NEGATIVE_INFINITY;
  return {
    due(now) {
      if (now - last < ms) return false;
      last = now;
      return true;
    },
  };
}
