/**
 * When a callback delivery is tried again, when it is given up, and when an endpoint is disabled
 * (docs/callbacks.md, "Delivery: retries, ordering, duplicates"). One decider, used by the dispatcher; pure, so tested as such.
 */
export interface CallbackRetryPolicy {
  /** Attempts per window (the first included) before the delivery is marked failed. Default 12. */
  maxAttempts: number;
  /** The window after the event (or a resend) in which retries happen. Default 24 h. */
  windowMs: number;
  /** The cap of the first retry's delay; it doubles per attempt. Default 5 s. */
  baseDelayMs: number;
  /** The most any one delay's cap grows to. Default 1 h. */
  maxDelayMs: number;
  /** An endpoint failing every attempt for this long is disabled. Default 5 days. */
  disableAfterMs: number;
  /** How long one attempt may take (connect, send, response headers). Default 10 s. */
  timeoutMs: number;
}

export const DEFAULT_CALLBACK_POLICY: CallbackRetryPolicy = {
  maxAttempts: 12,
  windowMs: 24 * 60 * 60 * 1000,
  baseDelayMs: 5_000,
  maxDelayMs: 60 * 60 * 1000,
  disableAfterMs: 5 * 24 * 60 * 60 * 1000,
  timeoutMs: 10_000,
};

/**
 * After a failed attempt (the `roundAttempts`th of the window): the next attempt's time, with
 * exponential backoff and full jitter (a uniform delay up to `base × 2^(n-1)`, capped), or
 * `undefined` when the delivery is given up: attempts exhausted, or the next would fall past the window.
 */
export function nextAttemptAfterFailure(
  policy: CallbackRetryPolicy,
  roundAttempts: number,
  windowStartedAtMs: number,
  nowMs: number,
  random: () => number = Math.random,
): number | undefined {
  if (roundAttempts >= policy.maxAttempts) return undefined;
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, roundAttempts - 1));
  const next = nowMs + Math.floor(random() * cap);
  return next > windowStartedAtMs + policy.windowMs ? undefined : next;
}

/** Whether an endpoint that has failed since `failingSinceMs` is now disabled (checked at each failed attempt). */
export const shouldDisable = (policy: CallbackRetryPolicy, failingSinceMs: number, nowMs: number): boolean =>
  nowMs - failingSinceMs >= policy.disableAfterMs;
