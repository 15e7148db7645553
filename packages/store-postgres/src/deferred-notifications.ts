import type { Notification } from '@agentrun/core';

/**
 * The notifications of the store's own writes of runs, published after their commit rather than
 * from inside it (docs/production.md, "Notifications after the commit"; the
 * triggers of migrations/baseline/notifications.ts). A transaction that
 * NOTIFYs takes PostgreSQL's one database-wide notification lock at commit and holds it through
 * the commit's WAL flush, so a run's insert, claim and outcome, each notifying, would be
 * serialized with every other notifying commit. The store's hot statements tell the runs'
 * triggers not to notify (runs-sql.ts `deferred`), and hand what they wrote here
 * once they committed:
 *
 * - this process's listeners hear it at once (the store's `notifications`, no round trip);
 * - every other process hears it from one `SELECT pg_notify(…)` per send, many notifications per
 *   payload: a transaction that writes no WAL, so it holds the lock without a flush. While one send
 *   is out, what commits meanwhile waits for the next: under load, one send carries many writes.
 *
 * Each payload names this store (`from`), so its own listening connection drops the echo of what
 * its listeners already heard (notifications.ts). A write that rolled back is never handed here.
 * A process that dies between a commit and its send, or a send that fails, loses those
 * notifications: other processes' workers find the runs at their next poll, and event streams at
 * their next periodic read, as after any lost notification.
 */
export interface DeferredNotifications {
  /** What a committed write stands for, in order: heard here now, elsewhere at the next send. */
  committed(notifications: readonly Notification[]): void;
  /**
   * Resolves once everything handed so far was sent or failed; what is handed later is dropped
   * (the store's `close()`: its pool is about to end).
   */
  close(): Promise<void>;
  /** A send is out or due: a write deferring now goes in one with others. */
  busy(): boolean;
}

export interface DeferredNotificationsOptions {
  /** This store's name in its payloads (the listener drops its own). */
  origin: string;
  /** Send the payloads, in order, in one statement. */
  send: (payloads: string[]) => Promise<void>;
  /** This process's listeners (the store's notifications), when it has them. */
  local?: (notification: Notification) => void;
  /** A send that failed: those notifications are lost (workers poll). */
  onError: (error: Error) => void;
}

/** Under PostgreSQL's 8000-byte limit on a payload, with room for the envelope. */
const PAYLOAD_BYTES = 7000;

/**
 * The payload of a send: `{"from":…,"items":[…]}`, each item a payload the triggers send
 * (notifications.ts reads them alike). Consecutive `run.queued` go as one `runIds` (the insert trigger's form),
 * and a `run.event` followed by the `run.changed` of the same run as one `run.changed` with its
 * `eventId` (the state trigger's form).
 */
function items(notifications: readonly Notification[]): string[] {
  const out: string[] = [];
  let queued: string[] = [];
  let queuedBytes = 0;
  const endQueued = () => {
    if (queued.length === 1) out.push(JSON.stringify({ type: 'run.queued', runId: queued[0] }));
    else if (queued.length > 1) out.push(JSON.stringify({ type: 'run.queued', runIds: queued }));
    queued = [];
    queuedBytes = 0;
  };
  for (let i = 0; i < notifications.length; i++) {
    const n = notifications[i] as Notification;
    if (n.type === 'run.queued') {
      if (queuedBytes + n.runId.length + 3 > PAYLOAD_BYTES / 2) endQueued();
      queued.push(n.runId);
      queuedBytes += n.runId.length + 3;
      continue;
    }
    endQueued();
    const next = notifications[i + 1];
    if (n.type === 'run.event' && next?.type === 'run.changed' && next.runId === n.runId) {
      out.push(JSON.stringify({ type: 'run.changed', runId: n.runId, state: next.state, eventId: n.eventId }));
      i++;
    } else out.push(JSON.stringify(n));
  }
  endQueued();
  return out;
}

/** How every payload of `origin`'s sends begins: its own listener drops them on that (notifications.ts). */
export const sendPrefix = (origin: string) => `{"from":${JSON.stringify(origin)},`;

/** The items in payloads of at most about `PAYLOAD_BYTES`, each naming `origin`. */
function payloads(origin: string, all: readonly string[]): string[] {
  const head = `${sendPrefix(origin)}"items":[`;
  const out: string[] = [];
  let part: string[] = [];
  let bytes = head.length;
  for (const item of all) {
    const size = Buffer.byteLength(item) + 1;
    if (part.length > 0 && bytes + size > PAYLOAD_BYTES) {
      out.push(`${head}${part.join(',')}]}`);
      part = [];
      bytes = head.length;
    }
    part.push(item);
    bytes += size;
  }
  if (part.length > 0) out.push(`${head}${part.join(',')}]}`);
  return out;
}

export function createDeferredNotifications(options: DeferredNotificationsOptions): DeferredNotifications {
  let pending: Notification[] = [];
  let sending: Promise<void> | undefined;
  let closed = false;

  async function loop(): Promise<void> {
    // One turn of the event loop first: writes whose answers arrive together go in one send.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await options.send(payloads(options.origin, items(batch)));
      } catch (error) {
        options.onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
    sending = undefined;
  }

  return {
    committed(notifications) {
      if (notifications.length === 0 || closed) return;
      if (options.local) for (const n of notifications) options.local(n);
      for (const n of notifications) pending.push(n);
      sending ??= loop();
    },
    async close() {
      closed = true;
      await sending;
    },
    busy: () => sending !== undefined,
  };
}
