/**
 * Each run's last transcript event id, kept on its row (`runs.last_event_id`), so a write of the
 * run appends its own `state` event in the same statement (runs-sql.ts, docs/stores.md "Run
 * events"): the id comes from the row the statement holds locked, where a `max(id)` of
 * `run_events` read in that statement would use a snapshot older than the lock. The one column is
 * in no index, so its updates stay HOT. `agentrun_append_run_events` (0008) keeps it too: it reads
 * the counter instead of the max, and writes it back.
 */
export const up = `
ALTER TABLE runs ADD COLUMN last_event_id bigint NOT NULL DEFAULT 0;
UPDATE runs r SET last_event_id = e.last
  FROM (SELECT run_id, max(id) AS last FROM run_events GROUP BY run_id) e
  WHERE r.id = e.run_id;

CREATE OR REPLACE FUNCTION agentrun_append_run_events(p_run_id text, p_events jsonb, p_cap bigint) RETURNS bigint
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
`;
