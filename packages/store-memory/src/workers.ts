import type { WorkerRecord, WorkerStore } from '@agentrun/core/store';
import { compareCodePoints } from '@agentrun/core/store';
import { copy } from './copy.js';

/** The workers' presence records in memory, by id (docs/operations.md, "Worker hosts"). */
export function createMemoryWorkers(): WorkerStore {
  const records = new Map<string, WorkerRecord>();
  return {
    async heartbeat(worker) {
      records.set(worker.id, copy(worker));
    },
    async list({ seenSince }) {
      return [...records.values()]
        .filter((w) => w.lastSeenAt >= seenSince)
        .sort((a, b) => compareCodePoints(a.host, b.host) || compareCodePoints(a.id, b.id))
        .map(copy);
    },
    async remove(id) {
      records.delete(id);
    },
    async sweep({ seenBefore }) {
      let removed = 0;
      for (const [id, w] of records)
        if (w.lastSeenAt < seenBefore) {
          records.delete(id);
          removed++;
        }
      return removed;
    },
  };
}
