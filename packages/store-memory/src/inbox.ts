import type { InboxReadStore } from '@agentrun/core/store';

/** Read marks of the factory inbox in memory: one entry per team, user and notification read. */
export function createMemoryInboxReads(): InboxReadStore {
  const marks = new Map<string, string>();
  const key = (teamUid: string, userUid: string, uid: string) => `${teamUid}\u0000${userUid}\u0000${uid}`;
  return {
    async readOf(teamUid, userUid, notificationUids) {
      return new Set(notificationUids.filter((uid) => marks.has(key(teamUid, userUid, uid))));
    },
    async mark(teamUid, userUid, notificationUids, read, now) {
      for (const uid of notificationUids) {
        const k = key(teamUid, userUid, uid);
        if (!read) marks.delete(k);
        else if (!marks.has(k)) marks.set(k, now);
      }
    },
  };
}
