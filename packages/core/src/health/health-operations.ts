import { AgentRunError } from '../errors.js';
import type { OperationHandlers } from '../http/operation.js';
import { jsonResponse } from '../http/responses.js';
import { checkReadiness, partReports, type ReadinessSources } from './readiness.js';

/**
 * `GET /healthz` and `GET /readyz` (docs/operations.md, "Health"): unauthenticated, cheap (no
 * store call for liveness, one round trip for readiness), never cached.
 */
const NO_STORE = { 'cache-control': 'no-store' };

export function healthOperations(sources: ReadinessSources): OperationHandlers<'getHealth' | 'getReadiness'> {
  return {
    getHealth: async () => jsonResponse({ status: 'ok' }, 200, NO_STORE),
    getReadiness: async () => {
      const checks = await checkReadiness(sources);
      const failed = checks.filter((c) => !c.ok);
      if (failed.length === 0) return jsonResponse({ status: 'ready', checks, parts: partReports(sources.runners()) }, 200, NO_STORE);
      // A problem like every error answer; `errors` names each failed check (path = its name).
      throw new AgentRunError('unavailable', `not ready: ${failed.map((c) => `${c.name} (${c.detail})`).join('; ')}`, {
        retryable: true,
        headers: NO_STORE,
        errors: failed.map((c) => ({ path: c.name, detail: c.detail })),
      });
    },
  };
}
