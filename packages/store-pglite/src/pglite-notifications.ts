import type { Notifications } from '@agentrun/core';
import { createNotificationHub } from '@agentrun/core/store';
import { type PostgresStore, parseNotifications } from '@agentrun/store-postgres';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';

export interface PgliteNotifications extends Notifications {
  /** Stop hearing for good and forget every listener. */
  close(): Promise<void>;
}

/**
 * The store's notifications on PGlite (docs/stores.md, "Notifications"): the same triggers and the
 * same sends after commits as on a server, heard by PGlite's one session, which LISTENs on the
 * schema's channel from the first listener on (through the store's Kysely, so never inside
 * another caller's transaction). Nothing travels between processes, so nothing is lost on the
 * way and no `resync` is ever sent.
 */
export function pgliteNotifications(pglite: PGlite, store: Pick<PostgresStore, 'db' | 'schema'>): PgliteNotifications {
  const hub = createNotificationHub();
  let closed = false;
  let listening: Promise<void> | undefined;
  let stopHearing: (() => void) | undefined;

  async function startListening(): Promise<void> {
    const found = await sql<{ channel: string }>`SELECT ${sql.id(store.schema)}.agentrun_notify_channel() AS channel`.execute(store.db);
    const channel = found.rows[0]?.channel;
    if (!channel) throw new Error(`agentrun: no notification channel in schema ${store.schema} (is it migrated?)`);
    stopHearing = pglite.onNotification((heardOn, payload) => {
      if (heardOn !== channel || closed) return;
      for (const notification of parseNotifications(payload)) hub.publish(notification);
    });
    await sql`LISTEN ${sql.id(channel)}`.execute(store.db);
  }

  return {
    async listen(listener) {
      if (closed) throw new Error('agentrun: the store is closed; its notifications cannot be listened to');
      const stop = await hub.listen(listener);
      listening ??= startListening();
      try {
        await listening;
      } catch (error) {
        listening = undefined;
        stopHearing?.();
        await stop();
        throw error;
      }
      return stop;
    },
    async close() {
      closed = true;
      hub.clear();
      stopHearing?.();
    },
  };
}
