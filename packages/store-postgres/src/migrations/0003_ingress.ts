/**
 * The webhook ingress: the delivery log and the rate-limit windows.
 *
 * A delivery's payload is `bytea`, not `jsonb` or `text`: it is the exact bytes received (a
 * signature was verified over them, and the dashboard shows them), and JSON may carry `\u0000`,
 * which neither `jsonb` nor `text` can hold. Ordered text ids use the "C" collation, as in 0001.
 */
export const up = `
CREATE TABLE deliveries (
  id           text COLLATE "C" PRIMARY KEY,
  team_uid     text NOT NULL,
  factory_uid  text NOT NULL,
  webhook_uid  text NOT NULL,
  identity     text,
  size         integer NOT NULL,
  received_at  timestamptz(3) NOT NULL,
  status       text NOT NULL CHECK (status IN ('Accepted','Duplicate','Rejected (auth)','Rejected (invalid JSON)','Rejected (too large)')),
  payload      bytea,
  -- An accepted entry without an identity would escape the unique index below (NULLs never
  -- conflict), and so could be accepted twice.
  CONSTRAINT deliveries_accepted_identity_set CHECK (status <> 'Accepted' OR identity IS NOT NULL)
);
-- At most one accepted delivery per webhook and identity: the arbiter of accept's
-- INSERT ... ON CONFLICT, so two racing identical deliveries cannot both be accepted.
-- Duplicates and rejected entries may repeat an identity.
CREATE UNIQUE INDEX deliveries_accepted_identity ON deliveries (webhook_uid, identity) WHERE status = 'Accepted';
-- A webhook's log, newest first, by keyset; also the per-webhook ranking of the retention sweep.
CREATE INDEX deliveries_webhook_received ON deliveries (webhook_uid, received_at DESC, id DESC);

-- One row per admitted event of a sliding-window limit. Admits of one key take turns under an
-- advisory lock and prune the key's expired events, so a key holds at most its limit of rows.
CREATE TABLE rate_limit_events (
  key  text NOT NULL,
  at   timestamptz(3) NOT NULL
);
-- Pruning, counting and finding the oldest event of a key's window.
CREATE INDEX rate_limit_events_key_at ON rate_limit_events (key, at);
`;
