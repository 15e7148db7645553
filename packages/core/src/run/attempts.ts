/**
 * The retry budget of a run (docs/state-machine.md, "Leases and retries"): a run is claimed at most
 * `maxAttempts` times. When its lease expires, the state machine re-queues it if another claim is
 * allowed and ends it in `ERROR` otherwise; the worker words the run's status message by the same
 * answer, so both must ask here.
 */
export const hasAttemptsLeft = (attempts: number, maxAttempts: number): boolean => attempts < maxAttempts;
