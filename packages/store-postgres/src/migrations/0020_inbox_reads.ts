/**
 * The factory inbox's read marks (docs/run-api.md, "The factory inbox"): which notification each
 * person of a team has read. The notifications are runs (of the team's factories, waiting on a
 * person or failed), so only the marks are stored; a mark is made only for a notification that
 * exists, so the table grows with notifications times readers, never with what a caller sends.
 */
export const up = `
CREATE TABLE inbox_reads (
  team_uid          text NOT NULL,
  user_uid          text NOT NULL,
  notification_uid  text NOT NULL,
  read_at           timestamptz(3) NOT NULL,
  PRIMARY KEY (team_uid, user_uid, notification_uid)
);
`;
