/**
 * Accept in one write, evaluate afterwards (docs/webhooks.md, "When runs start"; issue 24): the
 * ingress's accept stores the delivery alone, marked not yet evaluated, and signals it; any
 * process's evaluator then claims it (SKIP LOCKED, with a lease) and creates its runs in the
 * transaction that marks it evaluated (ingress.ts, `claimEvaluations` and `completeEvaluations`).
 *
 * `evaluation_due_at`: NULL once evaluated (and for every delivery from before this migration,
 * whose runs were made with it, and every entry not accepted); otherwise when the delivery may
 * next be claimed: its arrival, then the end of each claim's lease. The partial index holds only
 * deliveries awaiting evaluation, so it stays as small as the backlog.
 *
 * The payload is stored once per delivery (issue 24): a run's `event-payload.json` made by an
 * evaluation is a `run_attachments` row without bytes of its own, naming the delivery whose
 * payload it is (`delivery_id`); reads take the bytes from the delivery. The retention sweep,
 * before it deletes a delivery, copies its payload into the attachments that still name it, so
 * a run keeps its attachment as long as it exists. The partial index finds those at the sweep.
 *
 * agentrun_accept_delivery keeps its signature: a NULL p_runs (the ingress) leaves the delivery
 * awaiting evaluation and NOTIFYs `delivery.accepted` on the store's channel (0007), delivered at
 * commit; given runs (a resend, which answers with them) it creates them at once, as before.
 */
export const up = `
ALTER TABLE deliveries ADD COLUMN evaluation_due_at timestamptz(3);
CREATE INDEX deliveries_evaluation_due ON deliveries (evaluation_due_at) WHERE evaluation_due_at IS NOT NULL;

ALTER TABLE run_attachments ALTER COLUMN data DROP NOT NULL;
ALTER TABLE run_attachments ADD COLUMN delivery_id text COLLATE "C";
ALTER TABLE run_attachments ADD CONSTRAINT run_attachments_bytes_or_delivery CHECK ((data IS NULL) <> (delivery_id IS NULL));
CREATE INDEX run_attachments_delivery ON run_attachments (delivery_id) WHERE delivery_id IS NOT NULL;

CREATE OR REPLACE FUNCTION agentrun_accept_delivery(
  p_id text, p_team_uid text, p_factory_uid text, p_webhook_uid text, p_identity text, p_size integer,
  p_received_at timestamptz, p_payload bytea, p_runs jsonb, p_attachments jsonb,
  p_rate_key text, p_rate_limit integer, p_rate_window_start timestamptz, p_rate_now timestamptz,
  OUT outcome text, OUT duplicate_of text, OUT window_oldest timestamptz)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
  v_admitted boolean;
  v_id text;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'agentrun: READ COMMITTED required (the session runs %)', current_setting('transaction_isolation');
  END IF;
  IF p_rate_key IS NOT NULL THEN
    SELECT a.admitted, a.window_oldest INTO v_admitted, window_oldest
      FROM agentrun_rate_admit(p_rate_key, p_rate_limit, p_rate_window_start, p_rate_now) a;
    IF NOT v_admitted THEN
      outcome := 'rate_limited';
      RETURN;
    END IF;
  END IF;
  -- Twice at most: the accepted original could be swept between the two statements, and then
  -- this delivery is no longer a duplicate of anything.
  FOR attempt IN 1..2 LOOP
    -- Meeting a concurrent accept of the same identity, this waits for it on the unique index;
    -- once that commits, DO NOTHING applies and the lookup below (a new snapshot) sees the winner.
    INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload, evaluation_due_at)
      VALUES (p_id, p_team_uid, p_factory_uid, p_webhook_uid, p_identity, p_size, p_received_at, 'Accepted', p_payload,
        CASE WHEN p_runs IS NULL THEN p_received_at END)
      ON CONFLICT (webhook_uid, identity) WHERE status = 'Accepted' DO NOTHING
      RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN
      IF p_runs IS NULL THEN
        PERFORM pg_notify(agentrun_notify_channel(), json_build_object('type', 'delivery.accepted', 'deliveryId', p_id)::text);
      ELSE
        INSERT INTO runs (id, team_uid, title, prompt, state, created_at, updated_at, started_at, status_message, source,
            creator, config, session_id, session_link, conversation_id, parent_run_id, agent_identity_uid, factory_uid,
            skill, trigger, attachments, attempts, lease_worker_id, lease_expires_at)
          SELECT id, team_uid, title, prompt, state, created_at, updated_at, started_at, status_message, source,
            creator, config, session_id, session_link, conversation_id, parent_run_id, agent_identity_uid, factory_uid,
            skill, trigger, attachments, attempts, lease_worker_id, lease_expires_at
          FROM jsonb_populate_recordset(NULL::runs, p_runs);
        INSERT INTO run_attachments (run_id, file_name, mime_type, data)
          SELECT f.run_id, f.file_name, f.mime_type, coalesce(decode(f.data_hex, 'hex'), p_payload)
          FROM jsonb_to_recordset(p_attachments) AS f (run_id text, file_name text, mime_type text, data_hex text);
      END IF;
      outcome := 'accepted';
      RETURN;
    END IF;
    SELECT id INTO v_id FROM deliveries
      WHERE webhook_uid = p_webhook_uid AND identity = p_identity AND status = 'Accepted';
    IF v_id IS NOT NULL THEN
      INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
        VALUES (p_id, p_team_uid, p_factory_uid, p_webhook_uid, p_identity, p_size, p_received_at, 'Duplicate', NULL);
      outcome := 'duplicate';
      duplicate_of := v_id;
      RETURN;
    END IF;
  END LOOP;
  RAISE EXCEPTION 'delivery %: its identity conflicts with an accepted delivery that cannot be found', p_id;
END
$fn$;
`;
