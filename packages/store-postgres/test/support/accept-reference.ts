/**
 * The reference the set-based accepts are held to (accept-sets.test.ts): the plain, per-element
 * forms of the ingress's writes, installed beside the store's functions under names of their own.
 *
 * - `ref_rate_admit`: one admission as plainly as it can be written: delete the key's events that
 *   left the window, move the stored count by what went, count from the events when there is
 *   none, and write the event and the count one statement each.
 * - `ref_accept_deliveries`: a batch as its elements one after another through the store's
 *   per-element accept (`agentrun_accept_one`, the same as a lone accept), then one NOTIFY naming
 *   the first delivery accepted.
 *
 * `agentrun_accept_one` admits through the store's `agentrun_rate_admit`, which the second
 * property holds to `ref_rate_admit`; so the first, holding the store's batch to this loop, holds
 * it to the plain forms throughout.
 */
export const ACCEPT_REFERENCE = `
CREATE OR REPLACE FUNCTION ref_rate_admit(p_key text, p_limit integer, p_window_start timestamptz, p_now timestamptz,
  OUT admitted boolean, OUT window_oldest timestamptz)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
  v_gone integer;
  v_n integer;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'agentrun: READ COMMITTED required (the session runs %)', current_setting('transaction_isolation');
  END IF;
  -- A hash collision only makes two keys wait for each other.
  PERFORM pg_advisory_xact_lock(hashtext('agentrun.rate:' || p_key));
  WITH gone AS (DELETE FROM rate_limit_events WHERE key = p_key AND at <= p_window_start RETURNING 1)
  SELECT count(*) INTO v_gone FROM gone;
  UPDATE rate_limit_counts SET n = n - v_gone WHERE key = p_key RETURNING n INTO v_n;
  IF NOT FOUND THEN
    SELECT count(*) INTO v_n FROM rate_limit_events WHERE key = p_key;
    INSERT INTO rate_limit_counts (key, n) VALUES (p_key, v_n) ON CONFLICT (key) DO UPDATE SET n = EXCLUDED.n;
  END IF;
  SELECT min(at) INTO window_oldest FROM rate_limit_events WHERE key = p_key AND at > p_window_start;
  -- An empty window is a count of 0 whatever was kept: a count that drifted (events deleted by
  -- hand, say) mends itself the next time its window empties.
  IF window_oldest IS NULL AND v_n <> 0 THEN
    v_n := 0;
    UPDATE rate_limit_counts SET n = 0 WHERE key = p_key;
  END IF;
  admitted := v_n < p_limit;
  IF admitted THEN
    INSERT INTO rate_limit_events (key, at) VALUES (p_key, p_now);
    UPDATE rate_limit_counts SET n = n + 1 WHERE key = p_key;
  END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION ref_accept_deliveries(
  p_ids text[], p_team_uids text[], p_factory_uids text[], p_webhook_uids text[], p_identities text[], p_sizes integer[],
  p_received_ats timestamptz[], p_payloads bytea, p_payload_lengths integer[],
  p_rate_keys text[], p_rate_limits integer[], p_rate_window_starts timestamptz[], p_rate_nows timestamptz[], p_requests jsonb,
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
        false, nullif(p_requests -> (i - 1), 'null'::jsonb)) a;
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
