/**
 * Notifications and the callback outbox of the runs' writes (docs/stores.md, "Notifications";
 * docs/callbacks.md). Triggers, so any writer notifies and fills the outbox: the store, the
 * ingress's functions, a host's own SQL. NOTIFY is delivered at commit and dropped on rollback.
 *
 * The channel is `agentrun:<schema>` (a hash of the schema when that would pass PostgreSQL's
 * 63-byte limit), so two installs in one database do not hear each other. The listener asks
 * `agentrun_notify_channel()` for it; the triggers compute it in their bodies (one call fewer per
 * row), kept in step with it and with notifyChannel() (notify-channel.ts). Payloads are small JSON
 * objects the store parses (notifications.ts); a heartbeat or a progress report, which leave the
 * state as it was, notify nobody.
 *
 * - `agentrun_runs_inserted`, once per INSERT over its transition table: the outbox's
 *   `run.created` rows in one statement, in the order the runs were inserted; one `run.queued`
 *   for up to ~100 runs inserted QUEUED one after another (`runIds`, under NOTIFY's 8000-byte
 *   payload; a lone run's has `runId`), a `run.changed` for a run inserted in another state.
 * - `agentrun_run_written`, per change of state (a row trigger: PostgreSQL allows no transition
 *   table on a trigger with a column list, and a change of state is one row per statement):
 *   the outbox's `run.state_changed` rows and a `run.changed`, which carries the last event id
 *   when the same UPDATE appended the run's events (the store's claim and transitions), so one
 *   notification stands for both; `run.queued` too when the run is queued again.
 * - Both skip their `pg_notify` when the writing transaction set `agentrun.notify` to `deferred`
 *   (`set_config(…, true)`): the store's hot statements do (runs-sql.ts), and the store publishes
 *   what they wrote after the commit (deferred-notifications.ts). At the commit of a transaction
 *   that sent a NOTIFY, PostgreSQL holds one database-wide lock through the commit's WAL flush, so
 *   notifying commits wait for each other.
 *   The outbox is written in the writing transaction either way.
 * - `run.followup` for every follow-up inserted.
 *
 * Which endpoints a callback goes to is core's `endpointWants` (callbacks/records.ts), which the
 * conformance suite holds both stores to.
 */

/** Once per INSERT of runs, over the rows it added: the outbox's `run.created`, then `run.queued` and `run.changed`. */
export const RUNS_INSERTED = `
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
  -- The writer publishes after its commit (the store's hot statements: deferred-notifications.ts).
  IF current_setting('agentrun.notify', true) = 'deferred' THEN
    RETURN NULL;
  END IF;
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
`;

/** Per change of a run's state: the outbox's `run.state_changed`, then `run.changed` (and `run.queued`). */
export const RUN_WRITTEN = `
CREATE FUNCTION agentrun_run_written() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
DECLARE
  -- As agentrun_notify_channel() (0007): kept in step with it, and with notifyChannel() (notify-channel.ts).
  channel text := CASE WHEN octet_length(current_schema()) <= 54 THEN 'agentrun:' || current_schema()
    ELSE 'agentrun:' || md5(current_schema()) END;
  kind text := CASE WHEN TG_OP = 'INSERT' THEN 'run.created' ELSE 'run.state_changed' END;
  at timestamptz := CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE NEW.updated_at END;
BEGIN
  -- The callback outbox (0019's agentrun_callback_outbox).
  INSERT INTO callback_deliveries (id, endpoint_id, team_uid, event_type, run_id, factory_uid, from_state, to_state,
    status_message, occurred_at, window_started_at, next_attempt_at, updated_at)
  SELECT 'cbd_' || gen_random_uuid()::text, e.id, NEW.team_uid, kind, NEW.id, NEW.factory_uid,
    CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.state END, NEW.state, NEW.status_message, at, at, at, at
  FROM callback_endpoints e
  WHERE e.team_uid = NEW.team_uid AND e.enabled
    AND (e.factory_uid IS NULL OR e.factory_uid = NEW.factory_uid)
    AND (cardinality(e.event_types) = 0 OR kind = ANY (e.event_types));
  -- The writer publishes after its commit (the store's hot statements: deferred-notifications.ts).
  IF current_setting('agentrun.notify', true) = 'deferred' THEN
    RETURN NULL;
  END IF;
  -- The notifications (0007's agentrun_notify_run).
  IF TG_OP = 'INSERT' AND NEW.state = 'QUEUED' THEN
    PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runId', NEW.id)::text);
  ELSE
    -- A change of state that appended the run's events in the same UPDATE (the store's claim and
    -- transitions) tells their last id here: one notification for both (notifications.ts).
    IF TG_OP = 'UPDATE' AND NEW.last_event_id > OLD.last_event_id THEN
      PERFORM pg_notify(channel,
        json_build_object('type', 'run.changed', 'runId', NEW.id, 'state', NEW.state, 'eventId', NEW.last_event_id)::text);
    ELSE
      PERFORM pg_notify(channel, json_build_object('type', 'run.changed', 'runId', NEW.id, 'state', NEW.state)::text);
    END IF;
    IF NEW.state = 'QUEUED' THEN
      PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runId', NEW.id)::text);
    END IF;
  END IF;
  RETURN NULL;
END
$$;
`;

export const up = `
CREATE FUNCTION agentrun_notify_channel() RETURNS text LANGUAGE sql STABLE
  SET search_path FROM CURRENT
AS $$
  SELECT CASE WHEN octet_length(current_schema()) <= 54 THEN 'agentrun:' || current_schema()
    ELSE 'agentrun:' || md5(current_schema()) END
$$;

${RUNS_INSERTED}CREATE TRIGGER runs_inserted AFTER INSERT ON runs REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_runs_inserted();

${RUN_WRITTEN}-- UPDATE OF state: a heartbeat (lease_expires_at only) does not even call the function.
CREATE TRIGGER runs_written_state AFTER UPDATE OF state ON runs
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION agentrun_run_written();

CREATE FUNCTION agentrun_notify_followup() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
BEGIN
  PERFORM pg_notify(agentrun_notify_channel(),
    json_build_object('type', 'run.followup', 'runId', NEW.run_id, 'followupId', NEW.id)::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER run_followups_notify AFTER INSERT ON run_followups
  FOR EACH ROW EXECUTE FUNCTION agentrun_notify_followup();
`;
