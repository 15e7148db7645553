import type { Notification, RunState } from '@agentrun/core';

/**
 * The notifications one run write publishes (docs/stores.md, "Notifications"), the same rule the
 * PostgreSQL store's triggers follow: a run inserted as `QUEUED` is `run.queued` (inserted in
 * another state, `run.changed`); a change of state is `run.changed`, and also `run.queued` when
 * the new state is `QUEUED`; a follow-up added is `run.followup`, after the change it came with.
 * A write that leaves the state as it was (a heartbeat, a progress report) publishes nothing.
 */
export function runWriteNotifications(write: {
  runId: string;
  before: RunState | undefined;
  after: RunState;
  followupId?: string | undefined;
}): Notification[] {
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
