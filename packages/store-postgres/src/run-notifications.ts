import type { Notification, RunState } from '@agentrun/core';

/**
 * What the runs' triggers would have sent for a write of the store's hot statements
 * (migrations/baseline/notifications.ts), which tell them not to (runs-sql.ts `DEFERRED`): the store publishes these once the
 * write committed (deferred-notifications.ts), in the order the triggers send them.
 */

/** A run inserted: `run.queued`, or `run.changed` when inserted in another state. */
export const createdNotifications = (runId: string, state: RunState): Notification[] =>
  state === 'QUEUED' ? [{ type: 'run.queued', runId }] : [{ type: 'run.changed', runId, state }];

/** A run's answer from a deferred claim or transition: its state and its event counters around the write. */
export interface WrittenRun {
  id: string;
  state: RunState;
  last_event_id?: number | string | null;
  events_before?: number | string | null;
}

/**
 * A claim or a transition that applied: the `run.event` of the events it appended (the trigger's
 * `run.changed` carries their id), and when it changed the state, `run.changed`, and `run.queued`
 * for a run queued again.
 */
export function writtenNotifications(run: WrittenRun, stateChanged: boolean): Notification[] {
  const out: Notification[] = [];
  const after = Number(run.last_event_id ?? 0);
  if (after > Number(run.events_before ?? after)) out.push({ type: 'run.event', runId: run.id, eventId: after });
  if (!stateChanged) return out;
  out.push({ type: 'run.changed', runId: run.id, state: run.state });
  if (run.state === 'QUEUED') out.push({ type: 'run.queued', runId: run.id });
  return out;
}
