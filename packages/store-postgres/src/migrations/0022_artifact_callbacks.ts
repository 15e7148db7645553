/**
 * `run.artifact_added` callbacks (docs/callbacks.md, "Events"): a delivery carries its artifact
 * (`artifact`: the UID and what `runs.artifacts` shows; no bytes, no URL), and a trigger on
 * `artifacts` fills the outbox in the transaction that records the artifact, as 0019's triggers
 * do for the runs' writes, with the same rule (core's `endpointWants`, callbacks/records.ts).
 */
export const up = `
ALTER TABLE callback_deliveries ADD COLUMN artifact jsonb;

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
