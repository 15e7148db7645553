/**
 * The ingress's writes as functions, so that each is one statement, one round trip and one
 * commit: a delivery used to cost two transactions of several statements each (the rate
 * admission, then the accept), which left the database mostly waiting on the network.
 *
 * Both need READ COMMITTED (PostgreSQL's default): there each statement inside a function takes
 * a fresh snapshot, so a count after the advisory lock sees every admission that held the lock
 * before, and the lookup after a conflicting insert sees the delivery that won. Under a stricter
 * level they raise `agentrun: READ COMMITTED required`, and the store runs them again inside a
 * transaction that sets it.
 */
export const up = `
-- Count one event of a sliding-window limit if fewer than p_limit are in (p_window_start, p_now];
-- otherwise refuse. Admissions of one key take turns under an advisory lock until commit, across
-- every process sharing the database, and prune the key's expired events, so a key holds at
-- most p_limit rows. window_oldest: the oldest event still in the window (for Retry-After).
CREATE FUNCTION agentrun_rate_admit(p_key text, p_limit integer, p_window_start timestamptz, p_now timestamptz,
  OUT admitted boolean, OUT window_oldest timestamptz)
LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'agentrun: READ COMMITTED required (the session runs %)', current_setting('transaction_isolation');
  END IF;
  -- A hash collision only makes two keys wait for each other.
  PERFORM pg_advisory_xact_lock(hashtext('agentrun.rate:' || p_key));
  DELETE FROM rate_limit_events WHERE key = p_key AND at <= p_window_start;
  SELECT count(*) < p_limit, min(at) INTO admitted, window_oldest
    FROM rate_limit_events WHERE key = p_key AND at > p_window_start;
  IF admitted THEN
    INSERT INTO rate_limit_events (key, at) VALUES (p_key, p_now);
  END IF;
END
$fn$;

-- Accept a delivery (steps 6, 8 and 9 of docs/webhooks.md, "Answers, log labels and limits"): the
-- rate admission if p_rate_key is given (refused: nothing is written, outcome 'rate_limited'); then
-- either the delivery as Accepted with its runs (p_runs: rows of runs as JSON) and their
-- attachments (p_attachments: run_id, file_name, mime_type and data_hex, where a null data_hex is
-- the delivery's payload), outcome 'accepted'; or, when an accepted delivery of this webhook has
-- the identity, the entry as Duplicate without payload, outcome 'duplicate' with the original's id.
CREATE FUNCTION agentrun_accept_delivery(
  p_id text, p_team_uid text, p_factory_uid text, p_webhook_uid text, p_identity text, p_size integer,
  p_received_at timestamptz, p_payload bytea, p_runs jsonb, p_attachments jsonb,
  p_rate_key text, p_rate_limit integer, p_rate_window_start timestamptz, p_rate_now timestamptz,
  OUT outcome text, OUT duplicate_of text, OUT window_oldest timestamptz)
LANGUAGE plpgsql AS $fn$
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
    INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
      VALUES (p_id, p_team_uid, p_factory_uid, p_webhook_uid, p_identity, p_size, p_received_at, 'Accepted', p_payload)
      ON CONFLICT (webhook_uid, identity) WHERE status = 'Accepted' DO NOTHING
      RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN
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
