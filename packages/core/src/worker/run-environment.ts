import { EnvironmentUnavailable, type ResolvedEnvironment } from '../environments/resolved.js';
import type { ExecutionOutcome } from '../executor/executor.js';
import type { RunRecord } from '../run/record.js';

/** How the worker opens a run's environment (`agentrun.worker()` passes one over its store and cipher). */
export type EnvironmentResolver = (run: RunRecord) => Promise<ResolvedEnvironment | undefined>;

/**
 * The environment the executor receives, or the outcome that ends the run without executing it:
 * FAILED `environment_unavailable` when its environment or a variable's team secret is gone since
 * the run was created (docs/repositories.md, "What an executor receives").
 */
export async function runEnvironment(
  resolve: EnvironmentResolver | undefined,
  run: RunRecord,
): Promise<{ environment: ResolvedEnvironment | undefined } | { outcome: ExecutionOutcome }> {
  try {
    return { environment: await resolve?.(run) };
  } catch (error) {
    if (!(error instanceof EnvironmentUnavailable)) throw error;
    return { outcome: { status: 'failed', message: error.message, error_code: error.code } };
  }
}
