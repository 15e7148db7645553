/**
 * Artifacts (docs/artifacts.md, docs/stores.md "Artifacts"): `artifacts`, each by UID with its
 * run, team and the blob holding its bytes (found by `GET /agent/artifacts/{uid}` and the signed
 * download; what the run's RunItem shows is `runs.artifacts`); `artifact_blobs`, the PostgreSQL
 * blob store's bytes (blobs.ts), each at most the upload limit (core checks it; the column holds
 * at most 1 GB). A run's artifacts go with it.
 */
export const up = `
CREATE TABLE artifacts (
  uid text PRIMARY KEY,
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  team_uid text NOT NULL,
  created_at timestamptz NOT NULL,
  artifact_type text NOT NULL CHECK (artifact_type IN ('PLAN', 'PULL_REQUEST', 'SCREENSHOT', 'FILE')),
  item jsonb NOT NULL,
  blob_key text,
  content_type text,
  size_bytes bigint NOT NULL DEFAULT 0 CHECK (size_bytes >= 0)
);
CREATE INDEX artifacts_run ON artifacts (run_id);

CREATE TABLE artifact_blobs (
  key text PRIMARY KEY,
  content_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  content bytea NOT NULL
);
`;
