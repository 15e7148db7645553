/**
 * Runs, their follow-ups and attachments, idempotency keys and API keys.
 *
 * Every list filter of the run API has a keyset index for each sort key: `(team_uid, <filter>,
 * <sort>, id)`, so a filtered, sorted page reads only the rows it returns, however large the table.
 * Filter columns that live inside JSON are generated columns, so they can be indexed and stay in
 * step with the JSON they come from. `id` uses the "C" collation: ties on the sort key break by
 * byte order, the same order core's reference semantics use.
 */
export const up = `
CREATE TABLE runs (
  id                  text COLLATE "C" PRIMARY KEY,
  team_uid            text NOT NULL,
  title               text NOT NULL,
  prompt              text NOT NULL,
  state               text NOT NULL CHECK (state IN ('QUEUED','PENDING','CLAIMED','INPROGRESS','SUCCEEDED','FAILED','BLOCKED','ERROR','CANCELLED')),
  created_at          timestamptz(3) NOT NULL,
  updated_at          timestamptz(3) NOT NULL,
  started_at          timestamptz(3),
  status_message      jsonb,
  source              text NOT NULL,
  creator             jsonb NOT NULL,
  config              jsonb NOT NULL,
  session_id          text,
  session_link        text,
  conversation_id     text NOT NULL,
  parent_run_id       text,
  agent_identity_uid  text,
  factory_uid         text,
  skill               jsonb,
  trigger             jsonb,
  attachments         jsonb NOT NULL DEFAULT '[]',
  attempts            integer NOT NULL DEFAULT 0,
  lease_worker_id     text,
  lease_expires_at    timestamptz(3),
  creator_uid         text GENERATED ALWAYS AS (creator ->> 'uid') STORED,
  config_name         text GENERATED ALWAYS AS (config ->> 'name') STORED,
  model_id            text GENERATED ALWAYS AS (config ->> 'model_id') STORED,
  environment_id      text GENERATED ALWAYS AS (config ->> 'environment_id') STORED,
  skill_spec          text GENERATED ALWAYS AS (config ->> 'skill_spec') STORED,
  automation_id       text GENERATED ALWAYS AS (trigger ->> 'automation_id') STORED,
  CHECK ((lease_worker_id IS NULL) = (lease_expires_at IS NULL))
) WITH (fillfactor = 90); -- room on each page for heartbeats to update in place (HOT)

-- Unfiltered pages, and the created/updated range filters.
CREATE INDEX runs_team_updated ON runs (team_uid, updated_at, id);
CREATE INDEX runs_team_created ON runs (team_uid, created_at, id);
-- One keyset index per equality filter and sort key.
CREATE INDEX runs_state_updated ON runs (team_uid, state, updated_at, id);
CREATE INDEX runs_state_created ON runs (team_uid, state, created_at, id);
CREATE INDEX runs_name_updated ON runs (team_uid, config_name, updated_at, id);
CREATE INDEX runs_name_created ON runs (team_uid, config_name, created_at, id);
CREATE INDEX runs_model_updated ON runs (team_uid, model_id, updated_at, id);
CREATE INDEX runs_model_created ON runs (team_uid, model_id, created_at, id);
CREATE INDEX runs_creator_updated ON runs (team_uid, creator_uid, updated_at, id);
CREATE INDEX runs_creator_created ON runs (team_uid, creator_uid, created_at, id);
CREATE INDEX runs_source_updated ON runs (team_uid, source, updated_at, id);
CREATE INDEX runs_source_created ON runs (team_uid, source, created_at, id);
CREATE INDEX runs_environment_updated ON runs (team_uid, environment_id, updated_at, id);
CREATE INDEX runs_environment_created ON runs (team_uid, environment_id, created_at, id);
CREATE INDEX runs_skill_updated ON runs (team_uid, skill_spec, updated_at, id);
CREATE INDEX runs_skill_created ON runs (team_uid, skill_spec, created_at, id);
CREATE INDEX runs_factory_updated ON runs (team_uid, factory_uid, updated_at, id) WHERE factory_uid IS NOT NULL;
CREATE INDEX runs_factory_created ON runs (team_uid, factory_uid, created_at, id) WHERE factory_uid IS NOT NULL;
CREATE INDEX runs_automation_updated ON runs (team_uid, automation_id, updated_at, id) WHERE automation_id IS NOT NULL;
CREATE INDEX runs_automation_created ON runs (team_uid, automation_id, created_at, id) WHERE automation_id IS NOT NULL;
-- The work queue: workers claim the oldest queued run.
CREATE INDEX runs_queue ON runs (created_at, id) WHERE state = 'QUEUED';
-- Lease recovery: the (few) leased runs. Deliberately not on lease_expires_at: a heartbeat changes
-- only that column, and while no index covers it Postgres can update the row in place (HOT)
-- instead of writing a new entry into every index above.
CREATE INDEX runs_leased ON runs (id) WHERE lease_worker_id IS NOT NULL;

CREATE TABLE run_followups (
  seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id           text NOT NULL UNIQUE,
  run_id       text COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  message      text NOT NULL,
  created_at   timestamptz(3) NOT NULL,
  creator_uid  text NOT NULL
);
CREATE INDEX run_followups_run ON run_followups (run_id, seq);

CREATE TABLE run_attachments (
  run_id     text COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  file_name  text NOT NULL,
  mime_type  text NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY (run_id, file_name)
);

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

CREATE TABLE api_keys (
  hash        text PRIMARY KEY,
  prefix      text NOT NULL,
  principal   jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL
);
`;
