import type { NewRunEvent, Notification, RunEventRecord, RunEventStore } from '@agentrun/core/store';
import { RUN_EVENTS_PER_RUN, utf8Length } from '@agentrun/core/store';
import { copy as clone } from './copy.js';

/**
 * Each run's transcript in memory (docs/stores.md, "Run events"): an array per run, ids its
 * positions from 1, capped at `RUN_EVENTS_PER_RUN` with one `truncated` marker, as the
 * PostgreSQL store's `agentrun_append_run_events` does. Appends are synchronous, so atomic;
 * `hasRun` is the run store's (an unknown run gets nothing) and `publish` the notifications hub.
 * Each event's size (its data's JSON text in UTF-8 bytes) is measured once, when appended, for
 * reads bounded by `maxBytes`.
 */
export function createMemoryRunEvents(
  hasRun: (runId: string) => boolean,
  publish: (notification: Notification) => void,
): {
  runEvents: RunEventStore;
  /** `append`, synchronously: for a run write that records its own events in its step (runs.ts). */
  appendNow(runId: string, events: readonly NewRunEvent[]): void;
} {
  const logs = new Map<string, RunEventRecord[]>();
  const sizes = new Map<string, number[]>();
  const sizeOf = (data: unknown) => utf8Length(JSON.stringify(data));
  const appendNow = (runId: string, events: readonly NewRunEvent[]) => {
    if (events.length === 0 || !hasRun(runId)) return;
    const log = logs.get(runId) ?? [];
    logs.set(runId, log);
    const logSizes = sizes.get(runId) ?? [];
    sizes.set(runId, logSizes);
    const keep = (record: RunEventRecord) => {
      log.push(record);
      logSizes.push(sizeOf(record.data));
    };
    const before = log.length;
    for (const event of events) {
      if (log.length >= RUN_EVENTS_PER_RUN) break;
      const id = log.length + 1;
      if (id === RUN_EVENTS_PER_RUN) {
        keep({ id, runId, at: event.at, type: 'truncated', data: { limit: RUN_EVENTS_PER_RUN } });
        break;
      }
      keep({ id, runId, at: event.at, type: event.type, data: clone(event.data ?? null) });
    }
    if (log.length > before) publish({ type: 'run.event', runId, eventId: log.length });
  };
  const runEvents: RunEventStore = {
    async append(runId, events: readonly NewRunEvent[]) {
      appendNow(runId, events);
    },
    async list(runId, query) {
      const log = logs.get(runId) ?? [];
      const after = Math.max(0, Math.floor(query.after ?? 0));
      const page = log.slice(after, after + query.limit);
      if (query.maxBytes === undefined) return page.map(clone);
      const logSizes = sizes.get(runId) ?? [];
      const out: RunEventRecord[] = [];
      let total = 0;
      for (const [i, event] of page.entries()) {
        if (total >= query.maxBytes) break;
        const size = logSizes[after + i] ?? 0;
        out.push({ ...clone(event), size });
        total += size;
      }
      return out;
    },
  };
  return { runEvents, appendNow };
}
