/**
 * Run events (docs/stores.md, "Run events"): each run's transcript, ids 1, 2, 3, … per run.
 * `agentrun_append_run_events` is the only writer: it locks the run's row (FOR NO KEY UPDATE, so
 * appends to one run take turns and commit in id order, and a reader paging by id never skips
 * one), keeps the cap with one `truncated` marker in the last place, and notifies `run.event`
 * (the last id) on the schema's channel (0007), delivered at commit. A run deleted takes its
 * events with it.
 */
export const up = `
CREATE TABLE run_events (
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  id bigint NOT NULL CHECK (id > 0),
  at timestamptz NOT NULL,
  type text NOT NULL CHECK (type IN ('state', 'output', 'status', 'followup', 'artifact', 'truncated')),
  data jsonb NOT NULL,
  PRIMARY KEY (run_id, id)
);

-- p_events: a JSON array of { at, type, data }. Returns the run's last event id afterwards, or
-- NULL when the run does not exist.
CREATE FUNCTION agentrun_append_run_events(p_run_id text, p_events jsonb, p_cap bigint) RETURNS bigint
  LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
DECLARE
  last_id bigint;
  wanted bigint := jsonb_array_length(p_events);
  room bigint;
BEGIN
  PERFORM 1 FROM runs WHERE id = p_run_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  SELECT coalesce(max(id), 0) INTO last_id FROM run_events WHERE run_id = p_run_id;
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
  PERFORM pg_notify(agentrun_notify_channel(),
    json_build_object('type', 'run.event', 'runId', p_run_id, 'eventId', last_id)::text);
  RETURN last_id;
END
$$;
`;
