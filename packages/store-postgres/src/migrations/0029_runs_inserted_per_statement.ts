/**
 * A run's insert costs one trigger call per statement, not per row (docs/production.md, "The
 * server's CPU per delivery on PostgreSQL"; issue 24). The evaluator's completion inserts a batch's
 * runs (two per delivery in the bench, up to 128 per statement) in one INSERT; 0027's
 * `agentrun_run_written` ran once per row: a plpgsql call, a query of `callback_endpoints`, and a
 * `pg_notify` the listening server then receives, parses and mostly drops.
 *
 * `agentrun_runs_inserted` runs once per INSERT over its transition table:
 * - the callback outbox's `run.created` rows in one INSERT … SELECT, in the order the runs were
 *   inserted (so `seq` grows with it, as per row);
 * - one `run.queued` notification for up to ~100 runs inserted QUEUED one after another,
 *   `{"type":"run.queued","runIds":[…]}` (under NOTIFY's 8000-byte payload), which the listener
 *   reads as one `run.queued` per id, in order (notifications.ts). A lone run keeps the one-id
 *   payload of 0007. A run inserted in another state still gets its own `run.changed`, in its place.
 * Changes of state keep 0027's row trigger: PostgreSQL allows no transition table on a trigger
 * with a column list (`UPDATE OF state`), and a change of state is one row per statement anyway.
 *
 * **No foreign key from `run_attachments` to `runs`**, as 0027 did for `run_events`: its check
 * per attachment inserted (every webhook run has its `event-payload.json`) locked the run's row
 * FOR KEY SHARE, a WAL record and a dirtied page each, for nothing: every writer inserts a run's
 * attachments in the statement (or function) that inserts the run, from that insert
 * (runs-sql.ts insertRunSql, ingress.ts completeWrite, 0026's agentrun_accept_one). The
 * `ON DELETE CASCADE` a host's DELETE of runs relied on is kept by 0027's statement trigger,
 * which now deletes the runs' attachments too.
 */
export const up = `
CREATE FUNCTION agentrun_runs_inserted() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
DECLARE
  -- As agentrun_notify_channel() (0007): kept in step with it, and with notifyChannel() (notify-channel.ts).
  channel text := CASE WHEN octet_length(current_schema()) <= 54 THEN 'agentrun:' || current_schema()
    ELSE 'agentrun:' || md5(current_schema()) END;
  r record;
  ids text[] := '{}';
  bytes integer := 0;
BEGIN
  -- The callback outbox (0027's agentrun_run_written, for an insert): one statement for them all.
  INSERT INTO callback_deliveries (id, endpoint_id, team_uid, event_type, run_id, factory_uid, from_state, to_state,
    status_message, occurred_at, window_started_at, next_attempt_at, updated_at)
  SELECT 'cbd_' || gen_random_uuid()::text, e.id, n.team_uid, 'run.created', n.id, n.factory_uid, NULL, n.state,
    n.status_message, n.created_at, n.created_at, n.created_at, n.created_at
  FROM (SELECT a.*, row_number() OVER () AS ord FROM added a) n
  JOIN callback_endpoints e ON e.team_uid = n.team_uid AND e.enabled
    AND (e.factory_uid IS NULL OR e.factory_uid = n.factory_uid)
    AND (cardinality(e.event_types) = 0 OR 'run.created' = ANY (e.event_types))
  ORDER BY n.ord;
  -- The notifications, in the order of the rows: runs inserted QUEUED one after another go together.
  FOR r IN SELECT a.id, a.state FROM added a LOOP
    IF r.state = 'QUEUED' THEN
      ids := ids || r.id;
      bytes := bytes + octet_length(r.id) + 3;
      IF bytes > 7000 THEN
        PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runIds', ids)::text);
        ids := '{}';
        bytes := 0;
      END IF;
    ELSE
      IF cardinality(ids) = 1 THEN
        PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runId', ids[1])::text);
      ELSIF cardinality(ids) > 1 THEN
        PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runIds', ids)::text);
      END IF;
      ids := '{}';
      bytes := 0;
      PERFORM pg_notify(channel, json_build_object('type', 'run.changed', 'runId', r.id, 'state', r.state)::text);
    END IF;
  END LOOP;
  IF cardinality(ids) = 1 THEN
    PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runId', ids[1])::text);
  ELSIF cardinality(ids) > 1 THEN
    PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runIds', ids)::text);
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER runs_written_insert ON runs;
CREATE TRIGGER runs_inserted AFTER INSERT ON runs REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_runs_inserted();

ALTER TABLE run_attachments DROP CONSTRAINT run_attachments_run_id_fkey;
CREATE OR REPLACE FUNCTION agentrun_runs_deleted() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
BEGIN
  DELETE FROM run_events e USING gone WHERE e.run_id = gone.id;
  DELETE FROM run_attachments a USING gone WHERE a.run_id = gone.id;
  RETURN NULL;
END
$$;
`;
