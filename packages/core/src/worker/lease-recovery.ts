import { hasAttemptsLeft } from '../run/attempts.js';
import type { RunRecord } from '../run/record.js';
import type { RunService } from '../run/run-service.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../util/clock.js';
import { isoTime } from '../util/clock.js';

/**
 * Any worker's recovery sweep (docs/state-machine.md, "Leases and retries"): a run whose lease
 * expired (its worker died) goes back to `QUEUED`, or to `ERROR` once out of attempts, through
 * the state machine. Resolves to how many runs it recovered.
 */
export async function recoverExpiredLeases(deps: { service: RunService; store: Store; clock: Clock }): Promise<number> {
  const { service, store, clock } = deps;
  const now = isoTime(clock.now());
  let recovered = 0;
  for (const run of await store.runs.listExpiredLeases(now, 100)) {
    const result = await service.applyEvent(
      run.id,
      { type: 'lease_expired' },
      {
        leaseExpiredBy: now,
        current: run,
        patch: (r) => ({
          lease: null,
          statusMessage: hasAttemptsLeft(r.attempts, service.maxAttempts)
            ? { message: 'The worker stopped responding; the run was re-queued', retryable: true }
            : { message: 'The worker stopped responding too many times', error_code: 'lease_expired', retryable: false },
        }),
      },
    );
    if (result.kind === 'applied') recovered++;
  }
  return recovered;
}

/**
 * Hand runs this worker still holds back to the queue now rather than after their lease lapses
 * (docs/executors.md, "Stopping a worker"), each through the state machine's `lease_expired`.
 */
export async function handBack(
  deps: { service: RunService; onError: (error: unknown) => void },
  workerId: string,
  runs: readonly RunRecord[],
) {
  for (const run of runs) {
    await deps.service
      .applyEvent(
        run.id,
        { type: 'lease_expired' },
        {
          workerId,
          // As this worker last wrote it: no read first (a stale one costs only the read it saved).
          current: run,
          patch: () => ({ lease: null, statusMessage: { message: 'The worker stopped; the run was re-queued', retryable: true } }),
        },
      )
      .catch(deps.onError);
  }
}
