// The factory inbox's part of the Store port (docs/run-api.md, "The factory inbox"): which of a
// team's notifications each person has read. The notifications themselves are not stored: they
// are runs of the team's factories that wait on a person or failed (run/inbox.ts).

/** Per-person read marks, by team, user and notification UID. */
export interface InboxReadStore {
  /** Those of `notificationUids` the user has marked read. */
  readOf(teamUid: string, userUid: string, notificationUids: readonly string[]): Promise<Set<string>>;
  /**
   * Mark each notification read (`read: true`; marking a read one again keeps its first mark) or
   * unread (the mark removed; an unmarked one stays so). One statement: all or none.
   */
  mark(teamUid: string, userUid: string, notificationUids: readonly string[], read: boolean, now: string): Promise<void>;
}
