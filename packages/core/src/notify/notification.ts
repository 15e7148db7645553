import type { RunState } from '../models/run-state.js';

/**
 * What a store tells listeners, in any process sharing it, after a write commits
 * (docs/stores.md, "Notifications"). A hint to act now, never the data itself: a listener reads
 * the run from the store. Notifications can be lost (a listener's connection dropped), so they
 * only make things sooner; polling stays what makes them certain.
 */
export type Notification =
  /** A run became `QUEUED`: created, re-queued, or a finished run given a follow-up. */
  | { type: 'run.queued'; runId: string }
  /** A run's state changed (a cancel is a change to `CANCELLED`); a re-queue also sends `run.queued`. */
  | { type: 'run.changed'; runId: string; state: RunState }
  /** A follow-up was added to a run. */
  | { type: 'run.followup'; runId: string; followupId: string }
  /** Events were appended to a run's transcript, `eventId` the last of them. */
  | { type: 'run.event'; runId: string; eventId: number }
  /**
   * A delivery was accepted and awaits evaluation (docs/webhooks.md, "When runs start"): an
   * evaluator claims it now rather than at its next poll.
   */
  | { type: 'delivery.accepted'; deliveryId: string }
  /** Notifications may have been missed (the listener reconnected): look at the store now. */
  | { type: 'resync' };

export type NotificationListener = (notification: Notification) => void;

/**
 * The optional notification port of a `Store` (`store.notifications`). A store without it still
 * works: workers then learn of other processes' writes by polling.
 */
export interface Notifications {
  /**
   * Hear every notification from any process sharing the store, until the returned function is
   * called. Resolves once listening (or, when the store cannot be reached, once the first attempt
   * failed: it keeps trying and sends `resync` once it listens). A listener runs outside any
   * store write; one that throws is reported, not propagated.
   */
  listen(listener: NotificationListener): Promise<() => Promise<void>>;
}
