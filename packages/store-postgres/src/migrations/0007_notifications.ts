/**
 * Notifications (docs/stores.md, "Notifications"): triggers `pg_notify` one channel of this
 * schema for every run inserted (`run.queued`, or `run.changed` when inserted in another state),
 * every change of a run's state (`run.changed`, and `run.queued` when the new state is QUEUED) and
 * every follow-up inserted (`run.followup`). Triggers, so any writer notifies: the store, the
 * ingress's SQL functions, a host's own SQL. NOTIFY is delivered at commit and dropped on rollback.
 *
 * The channel is `agentrun:<schema>` (a hash of the schema when that would pass PostgreSQL's
 * 63-byte limit), so two installs in one database do not hear each other. The listener asks
 * `agentrun_notify_channel()` for it rather than computing it again. Payloads are small JSON
 * objects the store parses (notifications.ts); a heartbeat or a progress report, which leave the
 * state as it was, notify nobody.
 */
export const up = `
CREATE FUNCTION agentrun_notify_channel() RETURNS text LANGUAGE sql STABLE
  SET search_path FROM CURRENT
AS $$
  SELECT CASE WHEN octet_length(current_schema()) <= 54 THEN 'agentrun:' || current_schema()
    ELSE 'agentrun:' || md5(current_schema()) END
$$;

CREATE FUNCTION agentrun_notify_run() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
DECLARE
  channel text := agentrun_notify_channel();
BEGIN
  IF TG_OP = 'INSERT' AND NEW.state = 'QUEUED' THEN
    PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runId', NEW.id)::text);
  ELSE
    PERFORM pg_notify(channel, json_build_object('type', 'run.changed', 'runId', NEW.id, 'state', NEW.state)::text);
    IF NEW.state = 'QUEUED' THEN
      PERFORM pg_notify(channel, json_build_object('type', 'run.queued', 'runId', NEW.id)::text);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION agentrun_notify_followup() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
BEGIN
  PERFORM pg_notify(agentrun_notify_channel(),
    json_build_object('type', 'run.followup', 'runId', NEW.run_id, 'followupId', NEW.id)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER runs_notify_insert AFTER INSERT ON runs
  FOR EACH ROW EXECUTE FUNCTION agentrun_notify_run();
-- UPDATE OF state: a heartbeat (lease_expires_at only) does not even call the function.
CREATE TRIGGER runs_notify_state AFTER UPDATE OF state ON runs
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION agentrun_notify_run();
CREATE TRIGGER run_followups_notify AFTER INSERT ON run_followups
  FOR EACH ROW EXECUTE FUNCTION agentrun_notify_followup();
`;
