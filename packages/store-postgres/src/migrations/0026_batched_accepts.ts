/**
 * Group commit for the ingress's accepts (docs/production.md, "The webhook ingress"; issue 24):
 * concurrent `deliveries.accept` calls of one process are sent as one statement, one commit and
 * one `delivery.accepted` NOTIFY (store-postgres/src/batcher.ts).
 *
 * `agentrun_accept_one` is 0023's agentrun_accept_delivery with the NOTIFY made optional: the
 * rate admission, then the delivery as Accepted (awaiting evaluation, or with its runs) or its
 * entry as Duplicate. agentrun_accept_delivery keeps its signature and its behaviour by calling it
 * with the NOTIFY; agentrun_accept_deliveries calls it for each element of its arrays in order
 * (so dedupe and the rate admission inside a batch answer as the same accepts one after another
 * would) and NOTIFYs once, naming the first delivery it accepted: the evaluator only needs a
 * wake-up, and claims whatever awaits evaluation. A batch holds the rate-admission locks
 * (advisory, per key) of all its elements until its commit, so the sender orders a batch by key
 * (two batches then take their locks in one order and cannot deadlock on them).
 */
export const up = `
CREATE FUNCTION agentrun_accept_one(
  p_id text, p_team_uid text, p_factory_uid text, p_webhook_uid text, p_identity text, p_size integer,
  p_received_at timestamptz, p_payload bytea, p_runs jsonb, p_attachments jsonb,
  p_rate_key text, p_rate_limit integer, p_rate_window_start timestamptz, p_rate_now timestamptz, p_notify boolean,
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
    -- An earlier element of the same batch is seen at once (the transaction's own row).
    INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload, evaluation_due_at)
      VALUES (p_id, p_team_uid, p_factory_uid, p_webhook_uid, p_identity, p_size, p_received_at, 'Accepted', p_payload,
        CASE WHEN p_runs IS NULL THEN p_received_at END)
      ON CONFLICT (webhook_uid, identity) WHERE status = 'Accepted' DO NOTHING
      RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN
      IF p_runs IS NULL THEN
        IF p_notify THEN
          PERFORM pg_notify(agentrun_notify_channel(), json_build_object('type', 'delivery.accepted', 'deliveryId', p_id)::text);
        END IF;
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

CREATE OR REPLACE FUNCTION agentrun_accept_delivery(
  p_id text, p_team_uid text, p_factory_uid text, p_webhook_uid text, p_identity text, p_size integer,
  p_received_at timestamptz, p_payload bytea, p_runs jsonb, p_attachments jsonb,
  p_rate_key text, p_rate_limit integer, p_rate_window_start timestamptz, p_rate_now timestamptz,
  OUT outcome text, OUT duplicate_of text, OUT window_oldest timestamptz)
LANGUAGE sql SET search_path FROM CURRENT AS $fn$
  SELECT a.outcome, a.duplicate_of, a.window_oldest FROM agentrun_accept_one(p_id, p_team_uid, p_factory_uid, p_webhook_uid,
    p_identity, p_size, p_received_at, p_payload, p_runs, p_attachments, p_rate_key, p_rate_limit, p_rate_window_start,
    p_rate_now, true) a
$fn$;

-- Accepts awaiting evaluation (no runs), one per array index, in order; one row per element (ord
-- is its 1-based index). All arrays have the length of p_ids; the rate arrays hold NULL for an
-- element without an admission. The payloads come as one bytea, one after another, each
-- p_payload_lengths long (NULL: no payload): sent binary, where a bytea[] parameter goes as text
-- with every byte in hex.
CREATE FUNCTION agentrun_accept_deliveries(
  p_ids text[], p_team_uids text[], p_factory_uids text[], p_webhook_uids text[], p_identities text[], p_sizes integer[],
  p_received_ats timestamptz[], p_payloads bytea, p_payload_lengths integer[],
  p_rate_keys text[], p_rate_limits integer[], p_rate_window_starts timestamptz[], p_rate_nows timestamptz[],
  OUT ord integer, OUT outcome text, OUT duplicate_of text, OUT window_oldest timestamptz)
RETURNS SETOF record
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
  v_first text;
  v_at integer := 1;
  v_payload bytea;
BEGIN
  FOR i IN 1..coalesce(array_length(p_ids, 1), 0) LOOP
    v_payload := CASE WHEN p_payload_lengths[i] IS NOT NULL THEN substring(p_payloads FROM v_at FOR p_payload_lengths[i]) END;
    v_at := v_at + coalesce(p_payload_lengths[i], 0);
    SELECT a.outcome, a.duplicate_of, a.window_oldest INTO outcome, duplicate_of, window_oldest
      FROM agentrun_accept_one(p_ids[i], p_team_uids[i], p_factory_uids[i], p_webhook_uids[i], p_identities[i], p_sizes[i],
        p_received_ats[i], v_payload, NULL, NULL, p_rate_keys[i], p_rate_limits[i], p_rate_window_starts[i], p_rate_nows[i],
        false) a;
    IF outcome = 'accepted' AND v_first IS NULL THEN
      v_first := p_ids[i];
    END IF;
    ord := i;
    RETURN NEXT;
  END LOOP;
  IF v_first IS NOT NULL THEN
    PERFORM pg_notify(agentrun_notify_channel(), json_build_object('type', 'delivery.accepted', 'deliveryId', v_first)::text);
  END IF;
END
$fn$;
`;
