/**
 * The API's own records: API keys, idempotency keys, the audit log, the factory inbox's read
 * marks.
 */
export const up = `
-- API keys (docs/operations.md, "API keys"): found by the hash (only the hash is stored), named by
-- id. scopes NULL: a key minted before scopes existed, which keeps its powers. last_used_at is
-- written in batches.
CREATE TABLE api_keys (
  hash          text PRIMARY KEY,
  prefix        text NOT NULL,
  principal     jsonb NOT NULL,
  created_at    timestamptz(3) NOT NULL,
  id            text COLLATE "C" NOT NULL DEFAULT gen_random_uuid()::text,
  name          text NOT NULL DEFAULT '',
  created_by    jsonb,
  scopes        jsonb,
  expires_at    timestamptz(3),
  revoked_at    timestamptz(3),
  last_used_at  timestamptz(3),
  CONSTRAINT api_keys_id_unique UNIQUE (id)
);
-- A team's live keys, newest first (GET /api-keys).
CREATE INDEX api_keys_team_live ON api_keys ((principal->>'team_uid'), created_at DESC, id) WHERE revoked_at IS NULL;

CREATE TABLE idempotency_keys (
  scope        text NOT NULL,
  key          text NOT NULL,
  fingerprint  text NOT NULL,
  -- 0 while the write that reserved the key is in its transaction (never visible after commit).
  status       integer NOT NULL,
  body         jsonb,
  created_at   timestamptz(3) NOT NULL,
  expires_at   timestamptz(3) NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- The audit log (docs/operations.md, "Audit"): one row per control-plane change, written in the
-- transaction of the change. Ingress outcomes are not copied here: the audit API reads them from
-- deliveries, so the ingress's accept stays one write.
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

-- Which notification of the factory inbox each person of a team has read (docs/run-api.md, "The
-- factory inbox"). The notifications are runs, so only the marks are stored; a mark is made only
-- for a notification that exists, so the table grows with notifications times readers.
CREATE TABLE inbox_reads (
  team_uid          text NOT NULL,
  user_uid          text NOT NULL,
  notification_uid  text NOT NULL,
  read_at           timestamptz(3) NOT NULL,
  PRIMARY KEY (team_uid, user_uid, notification_uid)
);
`;
