import type { Notification, Notifications, RunState } from '@agentrun/core';
import { createNotificationHub } from '@agentrun/core/store';

/** What one run write changed, as the run store tells it (see `runWriteNotifications`). */
export interface RunWrite {
  runId: string;
  before: RunState | undefined;
  after: RunState;
  followupId?: string | undefined;
}

/**
 * The memory store's `notifications`: in process, published by its own writes once they are done
 * (each is synchronous, so "done" is "committed"); the hub delivers them in a later microtask, and
 * an exception a listener throws goes to `onError`. `published` is for the run store, `publish`
 * for the run events, `clear` for
 * the store's `close()`; neither is part of the Store.
 */
export function createMemoryNotifications(onError: ((error: unknown) => void) | undefined): {
  notifications: Notifications;
  published(write: RunWrite): void;
  /** For writes that are not run writes (run-events.ts). */
  publish(notification: Notification): void;
  clear(): void;
} {
  const hub = createNotificationHub(onError);
  return {
    notifications: { listen: (listener) => hub.listen(listener) },
    published(write) {
      // Most writes have nobody listening (a server without workers or streams in this process).
      if (hub.size === 0) return;
      for (const n of runWriteNotifications(write)) hub.publish(n);
    },
    publish: (notification) => hub.publish(notification),
    clear: () => hub.clear(),
  };
}

/**
 * The notifications one run write publishes (docs/stores.md, "Notifications"), the same rule the
 * PostgreSQL store's triggers follow: a run inserted as `QUEUED` is `run.queued` (inserted in
 * another state, `run.changed`); a change of state is `run.changed`, and also `run.queued` when
 * the new state is `QUEUED`; a follow-up added is `run.followup`, after the change it came with.
 * A write that leaves the state as it was (a heartbeat, a progress report) publishes nothing.
 */
function runWriteNotifications(write: RunWrite): Notification[] {
  const { runId, before, after } = write;
  const out: Notification[] = [];
  if (before === undefined) out.push(after === 'QUEUED' ? { type: 'run.queued', runId } : { type: 'run.changed', runId, state: after });
  else if (before !== after) {
    out.push({ type: 'run.changed', runId, state: after });
    if (after === 'QUEUED') out.push({ type: 'run.queued', runId });
  }
  if (write.followupId !== undefined) out.push({ type: 'run.followup', runId, followupId: write.followupId });
  return out;
}
