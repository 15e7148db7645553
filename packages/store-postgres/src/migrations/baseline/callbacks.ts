/**
 * Run callbacks (docs/callbacks.md): endpoints a team registers, the outbox of deliveries (one per
 * event and endpoint) and the log of their attempts.
 *
 * The outbox is filled by triggers, so an event and its deliveries commit together whoever writes
 * them (the store, the ingress's functions, a host's own SQL): a process that dies after the
 * commit leaves the deliveries for any other to send. The runs' triggers (notifications.ts) write
 * `run.created` and `run.state_changed`; the trigger on `artifacts` here writes
 * `run.artifact_added`, whose delivery carries its artifact (the UID and what `runs.artifacts`
 * shows; no bytes, no URL). For a team without callbacks a trigger costs one probe of
 * `callback_endpoints_team`, inside the transaction that already writes; the rule it applies is
 * core's `endpointWants` (callbacks/records.ts), which the conformance suite holds both stores to.
 */
export const up = `
CREATE TABLE callback_endpoints (
  id text PRIMARY KEY,
  team_uid text NOT NULL,
  factory_uid text,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  event_types text[] NOT NULL DEFAULT '{}',
  secret_ciphertext text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX callback_endpoints_team ON callback_endpoints (team_uid);

CREATE TABLE callback_deliveries (
  seq bigserial UNIQUE,
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES callback_endpoints (id) ON DELETE CASCADE,
  team_uid text NOT NULL,
  event_type text NOT NULL,
  run_id text NOT NULL,
  factory_uid text,
  from_state text,
  to_state text NOT NULL,
  status_message jsonb,
  occurred_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  round_attempts integer NOT NULL DEFAULT 0,
  window_started_at timestamptz NOT NULL,
  next_attempt_at timestamptz,
  claimed_until timestamptz,
  updated_at timestamptz NOT NULL,
  artifact jsonb
);
-- The dispatcher's claim reads pending deliveries by due time; the log reads an endpoint's newest first.
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX callback_deliveries_endpoint ON callback_deliveries (endpoint_id, seq);

CREATE TABLE callback_attempts (
  delivery_id text NOT NULL REFERENCES callback_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  at timestamptz NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  error text,
  ok boolean NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

CREATE FUNCTION agentrun_callback_artifact_outbox() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
BEGIN
  INSERT INTO callback_deliveries (id, endpoint_id, team_uid, event_type, run_id, factory_uid, from_state, to_state,
    status_message, occurred_at, artifact, window_started_at, next_attempt_at, updated_at)
  SELECT 'cbd_' || gen_random_uuid()::text, e.id, r.team_uid, 'run.artifact_added', r.id, r.factory_uid,
    NULL, r.state, r.status_message, NEW.created_at, NEW.item || jsonb_build_object('uid', NEW.uid),
    NEW.created_at, NEW.created_at, NEW.created_at
  FROM runs r JOIN callback_endpoints e ON e.team_uid = r.team_uid
  WHERE r.id = NEW.run_id AND e.enabled
    AND (e.factory_uid IS NULL OR e.factory_uid = r.factory_uid)
    AND (cardinality(e.event_types) = 0 OR 'run.artifact_added' = ANY (e.event_types));
  RETURN NULL;
END
$$;
CREATE TRIGGER artifacts_callback_insert AFTER INSERT ON artifacts
  FOR EACH ROW EXECUTE FUNCTION agentrun_callback_artifact_outbox();
`;
