/**
 * Runs and what belongs to one: follow-ups, attachments, the transcript (docs/stores.md, "Run
 * events").
 *
 * Every list filter people combine has a keyset index on the default sort, `(team_uid, <filter>,
 * updated_at, id)`, so a filtered page reads only the rows it returns; a filtered `created_at`
 * list walks `runs_team_created` with the filter (docs/production.md, "What each index serves").
 * Every index is written on every insert and on every update that is not HOT, so there are no
 * more than those. Filter columns that live inside JSON are generated columns, so they can be
 * indexed and stay in step with the JSON they come from. Ordered text ids use the "C" collation:
 * ties on the sort key break in byte order, the order core's reference semantics use.
 *
 * `last_event_id` is the run's last transcript event id, kept on its row so that a write of the
 * run appends its own events in the same statement (runs-sql.ts): the id comes from the row the
 * statement holds locked, where a `max(id)` read in that statement would use an older snapshot.
 * It is in no index, so its updates stay HOT.
 *
 * `run_events` and `run_attachments` have no foreign key to `runs`: its check on each row
 * inserted (every event, every webhook run's `event-payload.json`) locked the run's row for
 * nothing, since every writer locks or inserts the run in the statement that writes them. The
 * `runs_deleted` statement trigger deletes them with their run, as `ON DELETE CASCADE` would.
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
  -- The parent, its parent and so on (nearest first, at most 32), copied from the parent.
  ancestor_run_ids    text[] NOT NULL DEFAULT '{}',
  request_usage       jsonb,
  -- The schedule a run came from (schedules.ts); schedule_id for the list filter.
  schedule            jsonb,
  schedule_id         text GENERATED ALWAYS AS (schedule ->> 'schedule_id') STORED,
  -- What the run's RunItem shows of its artifacts, in the order added.
  artifacts           jsonb NOT NULL DEFAULT '[]',
  last_event_id       bigint NOT NULL DEFAULT 0,
  CHECK ((lease_worker_id IS NULL) = (lease_expires_at IS NULL))
) WITH (fillfactor = 90); -- room on each page for heartbeats to update in place (HOT)

-- Unfiltered pages, and the created/updated range filters; the created one is also the walk that
-- sees every run once.
CREATE INDEX runs_team_updated ON runs (team_uid, updated_at, id);
CREATE INDEX runs_team_created ON runs (team_uid, created_at, id);
-- One keyset index per filter people combine, on the default sort. Partial where most runs have
-- no value: such a run writes no entry there.
CREATE INDEX runs_state_updated ON runs (team_uid, state, updated_at, id);
CREATE INDEX runs_name_updated ON runs (team_uid, config_name, updated_at, id) WHERE config_name IS NOT NULL;
CREATE INDEX runs_creator_updated ON runs (team_uid, creator_uid, updated_at, id);
CREATE INDEX runs_source_updated ON runs (team_uid, source, updated_at, id);
CREATE INDEX runs_factory_updated ON runs (team_uid, factory_uid, updated_at, id) WHERE factory_uid IS NOT NULL;
CREATE INDEX runs_automation_updated ON runs (team_uid, automation_id, updated_at, id) WHERE automation_id IS NOT NULL;
CREATE INDEX runs_schedule_updated ON runs (team_uid, schedule_id, updated_at, id) WHERE schedule_id IS NOT NULL;
-- Lookups answered in one probe: the newest run of an environment and of a skill, and the inbox
-- (a creator's factory runs, newest first).
CREATE INDEX runs_environment_created ON runs (team_uid, environment_id, created_at, id) WHERE environment_id IS NOT NULL;
CREATE INDEX runs_skill_created ON runs (team_uid, skill_spec, created_at, id) WHERE skill_spec IS NOT NULL;
CREATE INDEX runs_inbox ON runs (team_uid, creator_uid, created_at, id) WHERE factory_uid IS NOT NULL;
-- The work queue: workers claim the oldest queued run.
CREATE INDEX runs_queue ON runs (created_at, id) WHERE state = 'QUEUED';
-- Lease recovery: the (few) leased runs. Deliberately not on lease_expires_at: a heartbeat changes
-- only that column, and while no index covers it PostgreSQL can update the row in place (HOT)
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

-- A run's files. The event-payload.json of a run made by a delivery's evaluation has no bytes of
-- its own: it names the delivery (delivery_id), whose payload is stored once whatever the number
-- of runs; the retention sweep copies the payload into it before the delivery goes (ingress.ts).
CREATE TABLE run_attachments (
  run_id       text COLLATE "C" NOT NULL,
  file_name    text NOT NULL,
  mime_type    text NOT NULL,
  data         bytea,
  delivery_id  text COLLATE "C",
  PRIMARY KEY (run_id, file_name),
  CONSTRAINT run_attachments_bytes_or_delivery CHECK ((data IS NULL) <> (delivery_id IS NULL))
);
CREATE INDEX run_attachments_delivery ON run_attachments (delivery_id) WHERE delivery_id IS NOT NULL;

-- A run's transcript, ids 1, 2, 3, … per run, capped with one truncated marker in the last place.
CREATE TABLE run_events (
  run_id  text NOT NULL,
  id      bigint NOT NULL CHECK (id > 0),
  at      timestamptz NOT NULL,
  type    text NOT NULL CHECK (type IN ('state', 'output', 'status', 'followup', 'artifact', 'tool_call', 'tool_result', 'truncated')),
  data    jsonb NOT NULL,
  PRIMARY KEY (run_id, id)
);

-- Append p_events (a JSON array of { at, type, data }) to a run's transcript: lock the run's row
-- (FOR NO KEY UPDATE, so appends to one run take turns and commit in id order, and a reader paging
-- by id never skips one), number them from its counter, keep the cap, notify run.event (the last
-- id), delivered at commit. Returns the run's last event id afterwards, or NULL when the run does
-- not exist. The store's own writes of a run append in their statement instead (runs-sql.ts).
CREATE FUNCTION agentrun_append_run_events(p_run_id text, p_events jsonb, p_cap bigint) RETURNS bigint
  LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
DECLARE
  last_id bigint;
  wanted bigint := jsonb_array_length(p_events);
  room bigint;
BEGIN
  SELECT last_event_id INTO last_id FROM runs WHERE id = p_run_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF wanted = 0 OR last_id >= p_cap THEN
    RETURN last_id;
  END IF;
  -- The last place is the marker's: real events fill the places before it.
  room := greatest(p_cap - 1 - last_id, 0);
  INSERT INTO run_events (run_id, id, at, type, data)
    SELECT p_run_id, last_id + e.ord, (e.value->>'at')::timestamptz, e.value->>'type', e.value->'data'
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e (value, ord)
    WHERE e.ord <= room;
  IF wanted > room THEN
    INSERT INTO run_events (run_id, id, at, type, data)
      VALUES (p_run_id, p_cap, (p_events->(room::int)->>'at')::timestamptz, 'truncated', jsonb_build_object('limit', p_cap));
    last_id := p_cap;
  ELSE
    last_id := last_id + wanted;
  END IF;
  UPDATE runs SET last_event_id = last_id WHERE id = p_run_id;
  PERFORM pg_notify(agentrun_notify_channel(),
    json_build_object('type', 'run.event', 'runId', p_run_id, 'eventId', last_id)::text);
  RETURN last_id;
END
$$;

-- The cascade of a host's DELETE of runs to the tables without a foreign key (above).
CREATE FUNCTION agentrun_runs_deleted() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
BEGIN
  DELETE FROM run_events e USING gone WHERE e.run_id = gone.id;
  DELETE FROM run_attachments a USING gone WHERE a.run_id = gone.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER runs_deleted AFTER DELETE ON runs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_runs_deleted();
`;
