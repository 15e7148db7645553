/**
 * The store's own writes of runs notify after their commit, not inside it (docs/production.md,
 * "Round three (issue 24): notifications after the commit"; issue 24, point 4). At the commit of a
 * transaction that sent a NOTIFY, PostgreSQL takes one database-wide lock (`PreCommit_Notify`) and
 * holds it through the commit's WAL flush, so every notifying commit waited for every other: a
 * run's insert, claim and outcome, each notifying from the runs' triggers (0027, 0029), were
 * serialized with each other, flush included, across every process.
 *
 * The triggers now skip their `pg_notify` when the writing transaction has set `agentrun.notify`
 * to `deferred` (`set_config(…, true)`: that transaction only). The store's hot statements set it
 * when several writes are under way (runs-sql.ts, runs.ts), and the store then publishes what they
 * wrote once they committed, many in one `SELECT pg_notify(…)` of its own
 * (deferred-notifications.ts): a transaction that writes no WAL, so its commit holds the lock
 * without a flush. Every other writer (a host's SQL, the ingress's
 * functions, the store's other statements) sets nothing and notifies from the triggers as before.
 * The callback outbox is written as before, in the writing transaction.
 *
 * Otherwise the functions are 0027's `agentrun_run_written` and 0029's `agentrun_runs_inserted`.
 */
export const up = `
CREATE OR REPLACE FUNCTION agentrun_run_written() RETURNS trigger LANGUAGE plpgsql
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

CREATE OR REPLACE FUNCTION agentrun_runs_inserted() RETURNS trigger LANGUAGE plpgsql
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
