/**
 * The audit log (docs/operations.md, "Audit"): one row per control-plane change, written in the
 * transaction of the change. Ingress outcomes are not copied here: the audit API reads them from
 * `deliveries`, so the ingress's accept stays one write. Ordered text ids use the "C" collation,
 * as in 0001, so keyset pages order as the memory store does.
 */
export const up = `
CREATE TABLE audit_events (
  id           text COLLATE "C" PRIMARY KEY,
  team_uid     text NOT NULL,
  at           timestamptz(3) NOT NULL,
  kind         text NOT NULL,
  actor_type   text NOT NULL,
  actor_id     text NOT NULL,
  target_type  text NOT NULL,
  target_id    text NOT NULL,
  factory_uid  text,
  -- A few scalars chosen by name (never a secret, token, signature or payload body).
  detail       jsonb NOT NULL
);
-- A team's log, newest first, by keyset (the filters are applied along it).
CREATE INDEX audit_events_team_at ON audit_events (team_uid, at DESC, id DESC);
-- The retention sweep.
CREATE INDEX audit_events_at ON audit_events (at);
`;
