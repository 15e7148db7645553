import type { Store } from '../store/store.js';
import type { ReadinessCheck } from './wire.js';
import type { WorkerStates } from './worker-states.js';

/** What `GET /readyz` asks (docs/operations.md, "Health"). */
export interface ReadinessSources {
  store: Pick<Store, 'checkReady' | 'isUnavailable'>;
  workers: WorkerStates;
  /** Set once `agentrun.close()` began: the process is going away, send traffic elsewhere. */
  closing: () => boolean;
}

/**
 * The readiness checks, each named: the store reachable, its migrations current, the workers of
 * this process running (where there are any), and the process not shutting down. The details say
 * what is wrong without what an unauthenticated caller should not see (no error text, which
 * could name hosts or users of the database).
 */
export async function checkReadiness(sources: ReadinessSources): Promise<ReadinessCheck[]> {
  const checks: ReadinessCheck[] = [];
  try {
    const found = await sources.store.checkReady?.();
    checks.push({ name: 'store', ok: true, detail: found ? 'reachable' : 'the store has no readiness check' });
    const pending = found?.pendingMigrations ?? [];
    checks.push(
      pending.length === 0
        ? { name: 'migrations', ok: true, detail: 'current' }
        : { name: 'migrations', ok: false, detail: `${pending.length} pending (${pending.join(', ')}); run migrate()` },
    );
  } catch (error) {
    const down = sources.store.isUnavailable?.(error) ?? false;
    checks.push({ name: 'store', ok: false, detail: down ? 'the database cannot be reached' : 'the readiness query failed' });
  }
  const { made, running } = sources.workers.counts();
  if (made > 0) {
    checks.push(
      running > 0
        ? { name: 'workers', ok: true, detail: `${running} of ${made} running` }
        : { name: 'workers', ok: false, detail: `none of ${made} running` },
    );
  }
  if (sources.closing()) checks.push({ name: 'shutdown', ok: false, detail: 'shutting down' });
  return checks;
}
