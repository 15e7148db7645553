import type { AgentRunEvents } from '../events.js';
import type { RunState } from '../models/run-state.js';
import type { Notification } from '../notify/notification.js';
import type { Store } from '../store/store.js';

/** A loop's ear (loop.ts): stop it to stop hearing. */
export interface Signals {
  /** Resolves once listening (on a store with notifications), so no NOTIFY sent from then is missed. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Signals: new work, cancels and follow-ups arrive without waiting for a poll or a heartbeat.
 * From the store's notifications when it has them (writes of any process sharing the store),
 * else from this process's events (when given), told as the same notifications. Either only makes things
 * sooner: polls and heartbeats stay, so a lost signal delays work but never loses it
 * (docs/executors.md, docs/stores.md).
 */
export function listenForSignals(
  store: Store,
  events: AgentRunEvents | undefined,
  onError: (error: unknown) => void,
  hear: (notification: Notification) => void,
): Signals {
  if (store.notifications) {
    const unlisten = store.notifications.listen(hear).catch((error) => {
      // Polls and heartbeats still find everything, only later.
      onError(error);
      return undefined;
    });
    return {
      ready: unlisten.then(() => undefined),
      async stop() {
        const stop = await unlisten;
        await stop?.().catch(onError);
      },
    };
  }
  if (!events) return { ready: Promise.resolve(), stop: async () => {} };
  const onCreated = (e: { run: { run_id: string } }) => hear({ type: 'run.queued', runId: e.run.run_id });
  const onStateChanged = (e: { run: { run_id: string }; to: RunState }) => hear({ type: 'run.changed', runId: e.run.run_id, state: e.to });
  const onFollowup = (e: { run: { run_id: string }; followup_id: string }) =>
    hear({ type: 'run.followup', runId: e.run.run_id, followupId: e.followup_id });
  events.on('run.created', onCreated);
  events.on('run.state_changed', onStateChanged);
  events.on('run.followup', onFollowup);
  return {
    ready: Promise.resolve(),
    async stop() {
      events.off('run.created', onCreated);
      events.off('run.state_changed', onStateChanged);
      events.off('run.followup', onFollowup);
    },
  };
}
