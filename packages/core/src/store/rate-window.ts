/**
 * A rate limit's sliding window (`RateAdmission`, store/ingress.ts) as every store answers it: at
 * `now`, an event at `at` is in the window when `now - windowMs < at <= now`, and a full window
 * frees a slot when its oldest event leaves it. Milliseconds until then; 0 for an empty window
 * (`oldest` undefined) or one whose oldest event has left already.
 */
export const retryAfterMs = (oldest: number | undefined, windowMs: number, now: number): number =>
  oldest === undefined ? 0 : Math.max(0, oldest + windowMs - now);
