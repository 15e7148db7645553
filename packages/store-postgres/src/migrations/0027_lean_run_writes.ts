/**
 * Cheaper writes of `runs` (docs/production.md, "The queue beside graphile-worker"): what the
 * server spends on each insert and change of state, which bounds enqueue-to-complete.
 *
 * - **One trigger per write, not two.** 0007 (notifications) and 0019 (callback outbox) each put
 *   an AFTER ROW trigger on a run's insert and on its change of state, each a plpgsql function
 *   with its own `SET search_path`, and the notifying one called `agentrun_notify_channel()` (a
 *   function with a `SET` of its own) per row. `agentrun_run_written` does both in one call, the
 *   channel computed in its body as `agentrun_notify_channel()` computes it. Same rows in
 *   `callback_deliveries`, same notifications, same transaction: measured, 10% less backend CPU
 *   per run created, claimed and finished.
 * - **One notification per change of state.** A change of state whose UPDATE also appended the
 *   run's events (the claim, a transition with its `state` event) adds their last id to its
 *   `run.changed` payload, and the listener publishes it as the `run.event` and the `run.changed`
 *   it stands for (notifications.ts); the statement no longer sends a `run.event` of its own. A
 *   run's NOTIFYs go from five to three, each one the server queues at commit and the listening
 *   backend reads and sends.
 * - **No foreign key from `run_events` to `runs`**: its check on each event inserted cost a tenth
 *   of the backend CPU per run, for nothing (every writer locks the run first); a statement
 *   trigger deletes a deleted run's events, as the key's `ON DELETE CASCADE` did.
 * - **`runs_name_updated` is partial** (`WHERE config_name IS NOT NULL`): a run without a config
 *   name (most API runs) no longer writes an entry there on its insert and on every change of
 *   state that is not HOT. `name=` lists still read it: `config_name = …` implies the predicate.
 */
export const up = `
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

DROP TRIGGER runs_callback_insert ON runs;
DROP TRIGGER runs_callback_state ON runs;
DROP TRIGGER runs_notify_insert ON runs;
DROP TRIGGER runs_notify_state ON runs;
DROP FUNCTION agentrun_callback_outbox();
DROP FUNCTION agentrun_notify_run();
CREATE TRIGGER runs_written_insert AFTER INSERT ON runs
  FOR EACH ROW EXECUTE FUNCTION agentrun_run_written();
-- UPDATE OF state: a heartbeat (lease_expires_at only) does not even call the function.
CREATE TRIGGER runs_written_state AFTER UPDATE OF state ON runs
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION agentrun_run_written();

-- The foreign key of run_events checked the run on every event inserted (three per run: 10% of the
-- backend's CPU per run). Every writer of run_events locks the run's row first and writes nothing
-- when it is gone (0024, runs-sql.ts), so the check found nothing to refuse; the cascade it gave a
-- host's DELETE of runs is kept by a statement trigger.
ALTER TABLE run_events DROP CONSTRAINT run_events_run_id_fkey;
CREATE FUNCTION agentrun_runs_deleted() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
BEGIN
  DELETE FROM run_events e USING gone WHERE e.run_id = gone.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER runs_deleted AFTER DELETE ON runs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_runs_deleted();

DROP INDEX runs_name_updated;
CREATE INDEX runs_name_updated ON runs (team_uid, config_name, updated_at, id) WHERE config_name IS NOT NULL;
`;
