import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import { liveSince } from '../worker/worker-hosts.js';
import { toWorkerItem } from '../worker/workers-wire.js';
import type { OperationHandlers } from './operation.js';
import { jsonResponse } from './responses.js';

/** `GET /api/v1/workers`: the live workers, each with only the caller's team's run ids (docs/run-api.md, "List workers"). */
export function workerOperations(store: Store, clock: Clock): OperationHandlers<'listWorkers'> {
  return {
    listWorkers: async ({ principal }) => {
      const live = await store.workers.list({ seenSince: isoTime(liveSince(clock.now())) });
      return jsonResponse({ workers: live.map((w) => toWorkerItem(w, principal.team_uid)) });
    },
  };
}
