import { type Notification, type Notifications, RUN_STATES, type RunState } from '@agentrun/core';
import { createNotificationHub } from '@agentrun/core/store';
import type pg from 'pg';
import { sendPrefix } from './deferred-notifications.js';

/**
 * The PostgreSQL store's notifications (docs/stores.md, "Notifications"). Triggers
 * (migrations/baseline/notifications.ts) `pg_notify` a channel of the store's schema at commit for
 * every run inserted, every change of a run's state and every follow-up (and
 * `agentrun_append_run_events`, every batch of run events), whichever process or SQL function
 * wrote it; a rolled-back write notifies nobody. Here one dedicated connection, never one of the
 * pool's, LISTENs on that channel while anyone listens, and fans what it hears out to listeners.
 *
 * The connection survives the database going away: its errors are handled (never an unhandled
 * 'error' event), reported once per outage, and it reconnects with backoff. Whatever was
 * published while it was down is lost, so after each reconnect listeners get `resync`: look at
 * the store now (a worker polls).
 */

export interface PostgresNotificationsOptions {
  /** A new, unconnected client for the listening connection (one per attempt). */
  client: () => pg.Client;
  /** The store's schema: its channel is `agentrun_notify_channel()` there. */
  schema: string;
  /** A lost or refused connection, once per outage. */
  onError: (error: Error) => void;
  /** Reconnect backoff: the first wait, doubled per failure up to `maxRetryMs`. Default 100 ms. */
  retryMs?: number;
  /** Default 10 s, as the worker's poll backoff. */
  maxRetryMs?: number;
  /** This store's name in the payloads it sends after its commits: their echo is dropped (deferred-notifications.ts). */
  origin?: string;
}

export interface PostgresNotifications extends Notifications {
  /** Stop listening for good: end the connection and forget every listener. */
  close(): Promise<void>;
  /** Tell this process's listeners of a write of this store at once (deferred-notifications.ts). */
  publish(notification: Notification): void;
}

/** One run of the connect–listen–wait loop, kept while anyone listens. */
interface Session {
  /** Settles once the first attempt to listen succeeded or failed. */
  ready: Promise<void>;
  /** Settles when the loop has ended (nobody listens, or closed). */
  done: Promise<void>;
  /** Set, synchronously, when it decided to end: a new listener then waits for a new session. */
  ending: boolean;
}

const STATES: ReadonlySet<string> = new Set(RUN_STATES);

/**
 * The notifications a JSON payload stands for: none if it is not one the triggers or a store's
 * send after its commits sends. A `run.changed` whose UPDATE also appended the run's events
 * carries their last id and stands for that `run.event`, then the change, in the
 * order the statement wrote them. A store's send (deferred-notifications.ts) is
 * `{"from":…,"items":[…]}`, each item one of the others: none when `from` is `origin`, this
 * store's own, whose listeners heard them at its commit.
 */
export function parseNotifications(payload: string | undefined, origin?: string): Notification[] {
  let value: unknown;
  try {
    value = JSON.parse(payload ?? '');
  } catch {
    return [];
  }
  if (typeof value !== 'object' || value === null) return [];
  const { from, items } = value as Record<string, unknown>;
  if (typeof from === 'string' && Array.isArray(items)) return from === origin ? [] : items.flatMap(parseItem);
  return parseItem(value);
}

/** One payload of the triggers' kinds (an item of a store's send is one too). */
function parseItem(value: unknown): Notification[] {
  if (typeof value !== 'object' || value === null) return [];
  const { type, runId, state, followupId, eventId, deliveryId } = value as Record<string, unknown>;
  const isEventId = typeof eventId === 'number' && Number.isSafeInteger(eventId);
  if (type === 'delivery.accepted' && typeof deliveryId === 'string') return [{ type, deliveryId }];
  // Runs one INSERT added QUEUED, in order: one `run.queued` each.
  if (type === 'run.queued' && runId === undefined) return queuedRuns((value as { runIds?: unknown }).runIds);
  if (typeof runId !== 'string') return [];
  if (type === 'run.queued') return [{ type, runId }];
  if (type === 'run.changed' && typeof state === 'string' && STATES.has(state)) {
    const changed: Notification = { type, runId, state: state as RunState };
    if (eventId === undefined) return [changed];
    return isEventId ? [{ type: 'run.event', runId, eventId: eventId as number }, changed] : [];
  }
  if (type === 'run.followup' && typeof followupId === 'string') return [{ type, runId, followupId }];
  if (type === 'run.event' && isEventId) return [{ type, runId, eventId: eventId as number }];
  return [];
}

/** `run.queued` for each id of a payload's `runIds`: none unless it is an array of strings. */
function queuedRuns(runIds: unknown): Notification[] {
  if (!Array.isArray(runIds) || !runIds.every((id) => typeof id === 'string')) return [];
  return runIds.map((runId: string) => ({ type: 'run.queued', runId }));
}

export function createPostgresNotifications(options: PostgresNotificationsOptions): PostgresNotifications {
  const retryMs = options.retryMs ?? 100;
  const maxRetryMs = options.maxRetryMs ?? 10_000;
  const hub = createNotificationHub();
  // How this store's sends after its commits begin (deferred-notifications.ts `payloads`).
  const echo = options.origin === undefined ? undefined : sendPrefix(options.origin);
  let closed = false;
  let session: Session | undefined;
  /** Wakes a loop waiting (connected, or between attempts) to look at `wanted()` again. */
  let nudge = () => {};
  const wanted = () => !closed && hub.size > 0;

  // One report per outage: the first error after the connection last worked. A terminated
  // backend errors twice (the server's message, then the closed socket): the first says why.
  let reported = false;
  const report = (error: unknown) => {
    if (reported) return;
    reported = true;
    options.onError(error instanceof Error ? error : new Error(String(error)));
  };

  /** Resolves after `ms`, or earlier when nudged. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      nudge = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function loop(me: Session, settleReady: () => void): Promise<void> {
    let failures = 0;
    // After a failure or a lost connection, writes may have gone unheard: say so once listening.
    let missed = false;
    for (;;) {
      if (!wanted()) {
        me.ending = true;
        return;
      }
      const client = options.client();
      let lost = () => {};
      const gone = new Promise<void>((resolve) => {
        lost = resolve;
      });
      // Before connecting: an 'error' event without a listener would end the process.
      client.on('error', (error) => {
        report(error);
        lost();
      });
      client.on('end', () => lost());
      let channel = '';
      client.on('notification', (message) => {
        if (message.channel !== channel) return;
        // This store's own sends (most of what a busy worker's connection hears), before any parse.
        if (echo !== undefined && message.payload?.startsWith(echo)) return;
        for (const notification of parseNotifications(message.payload, options.origin)) hub.publish(notification);
      });
      try {
        await client.connect();
        const found = await client.query<{ channel: string }>(
          `SELECT ${client.escapeIdentifier(options.schema)}.agentrun_notify_channel() AS channel`,
        );
        channel = found.rows[0]?.channel ?? '';
        await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      } catch (error) {
        report(error);
        void client.end().catch(() => {});
        missed = true;
        failures++;
        settleReady();
        await pause(backoff(failures));
        continue;
      }
      failures = 0;
      reported = false;
      if (missed) hub.publish({ type: 'resync' });
      missed = false;
      settleReady();
      // Listening until the connection goes, or until nobody listens any more.
      let lostIt = false;
      while (wanted() && !lostIt) {
        const nudged = new Promise<void>((resolve) => {
          nudge = resolve;
        });
        lostIt = await Promise.race([gone.then(() => true), nudged.then(() => false)]);
      }
      if (!lostIt) {
        // Decided in the same step as the check: a listener arriving from now on waits for the
        // next session rather than counting on this connection.
        me.ending = true;
        await client.end().catch(() => {});
        return;
      }
      await client.end().catch(() => {});
      missed = true;
      failures++;
      await pause(backoff(failures));
    }
  }

  const backoff = (failures: number) => Math.min(maxRetryMs, retryMs * 2 ** Math.min(failures - 1, 20));

  /** The ready promise of the session that will serve a new listener (started if none). */
  function serve(): Promise<void> {
    if (session && !session.ending) return session.ready;
    if (session) return session.done.then(serve);
    let settleReady = () => {};
    const me: Session = {
      ready: new Promise<void>((resolve) => {
        settleReady = resolve;
      }),
      done: Promise.resolve(),
      ending: false,
    };
    me.done = loop(me, settleReady)
      // The loop catches everything it awaits; this is the last guard against a rejection.
      .catch(report)
      .finally(() => {
        settleReady();
        if (session === me) session = undefined;
      });
    session = me;
    return me.ready;
  }

  return {
    async listen(listener) {
      if (closed) throw new Error('agentrun: the store is closed; its notifications cannot be listened to');
      const stop = await hub.listen(listener);
      await serve();
      return async () => {
        await stop();
        if (!wanted()) nudge();
      };
    },
    publish: (notification) => hub.publish(notification),
    async close() {
      closed = true;
      hub.clear();
      nudge();
      await session?.done;
    },
  };
}
