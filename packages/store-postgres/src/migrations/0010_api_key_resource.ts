/**
 * API keys as a resource (docs/operations.md, "API keys"): an id to name a key by, a name, its
 * creator, scopes (NULL: a key minted before scopes existed, which keeps its old powers), an
 * expiry, a revocation time, and the last use, written in batches. Keys already stored get a
 * random id; a key is still found by its hash, and only the hash is stored.
 */
export const up = `
ALTER TABLE api_keys
  ADD COLUMN id           text COLLATE "C" NOT NULL DEFAULT gen_random_uuid()::text,
  ADD COLUMN name         text NOT NULL DEFAULT '',
  ADD COLUMN created_by   jsonb,
  ADD COLUMN scopes       jsonb,
  ADD COLUMN expires_at   timestamptz(3),
  ADD COLUMN revoked_at   timestamptz(3),
  ADD COLUMN last_used_at timestamptz(3);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_id_unique UNIQUE (id);
-- A team's live keys, newest first (GET /api-keys).
CREATE INDEX api_keys_team_live ON api_keys ((principal->>'team_uid'), created_at DESC, id) WHERE revoked_at IS NULL;
`;
