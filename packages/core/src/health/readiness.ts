import type { Runner } from '../runner/runner.js';
import type { Store } from '../store/store.js';
import type { PartReport, ReadinessCheck } from './wire.js';

/** What `GET /readyz` asks (docs/operations.md, "Health"). */
export interface ReadinessSources {
  store: Pick<Store, 'checkReady' | 'isUnavailable'>;
  /** The runners made in this process (`agentrun.runner()`, `agentrun.worker()`). */
  runners: () => readonly Runner[];
  /** Set once `agentrun.close()` began: the process is going away, send traffic elsewhere. */
  closing: () => boolean;
}

/**
 * The readiness checks, each named: the store reachable, its migrations current, the workers of
 * this process running (where there are any: runners with a `runs` part), and the process not
 * shutting down. The details say
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
  // Workers: the runners with a `runs` part.
  const workers = sources.runners().filter((r) => r.parts.includes('runs'));
  const made = workers.length;
  const running = workers.filter((r) => r.health().running).length;
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

/**
 * The parts of the runners that run, each with how its passes go (docs/operations.md, "Health"):
 * which part is failing, since when. Times and counts only, no error text (as for the checks).
 */
export function partReports(runners: readonly Runner[]): PartReport[] {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return runners
    .map((runner) => ({ runner, health: runner.health() }))
    .filter(({ health }) => health.running)
    .flatMap(({ runner, health }) =>
      health.parts.map((part) => ({
        runner: runner.id,
        name: part.name,
        running: part.running,
        last_success_at: iso(part.lastSuccessAt),
        last_error_at: iso(part.lastErrorAt),
        consecutive_failures: part.consecutiveFailures,
      })),
    );
}
