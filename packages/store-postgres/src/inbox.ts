import type { InboxReadStore } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import type { Tables } from './tables.js';

/** Read marks of the factory inbox (table `inbox_reads`): one statement per operation. */
export function createInboxReads(db: Db, t: Tables): InboxReadStore {
  return {
    async readOf(teamUid, userUid, notificationUids) {
      if (notificationUids.length === 0) return new Set();
      const { rows } = await sql<{ notification_uid: string }>`
        SELECT notification_uid FROM ${t.inbox_reads}
        WHERE team_uid = ${teamUid} AND user_uid = ${userUid} AND notification_uid = ANY(${[...notificationUids]}::text[])`.execute(db);
      return new Set(rows.map((r) => r.notification_uid));
    },
    async mark(teamUid, userUid, notificationUids, read, now) {
      if (notificationUids.length === 0) return;
      const uids = [...notificationUids];
      if (read) {
        await sql`
          INSERT INTO ${t.inbox_reads} (team_uid, user_uid, notification_uid, read_at)
          SELECT ${teamUid}, ${userUid}, uid, ${now}::timestamptz FROM unnest(${uids}::text[]) AS uid
          ON CONFLICT (team_uid, user_uid, notification_uid) DO NOTHING`.execute(db);
      } else {
        await sql`
          DELETE FROM ${t.inbox_reads}
          WHERE team_uid = ${teamUid} AND user_uid = ${userUid} AND notification_uid = ANY(${uids}::text[])`.execute(db);
      }
    },
  };
}
