/**
 * A rate admission in constant time, whatever the limit (docs/production.md, "The webhook
 * ingress: delivery log and rate limits"; issue 24). 0004's `agentrun_rate_admit` counted the
 * key's events in the window on every admission: as many rows as the limit allows, each on its
 * own heap page (a window's events interleave with every other key's), so a webhook with a high
 * limit paid for its whole window per delivery (1.7 ms for 500 events in the window, measured
 * with EXPLAIN ANALYZE, where the insert of the event itself costs a few µs).
 *
 * Now `rate_limit_counts` holds, per key, how many events the key has in `rate_limit_events`.
 * The admission still deletes the key's events that left the window, under the key's advisory
 * lock, so after that delete the key's events are exactly its window: the count falls by the rows
 * deleted and rises by the one inserted, and the answer is the one 0004 gave (the same
 * rows counted). `window_oldest` is the first index entry. A key seen for the first time (or whose
 * count a host removed) is counted once from its events. Nothing else writes rate events; a count
 * that drifted anyway (events deleted by hand) is reset when its key's window is next empty.
 */
export const up = `
CREATE TABLE rate_limit_counts (
  key text PRIMARY KEY,
  n integer NOT NULL
);
INSERT INTO rate_limit_counts (key, n) SELECT key, count(*) FROM rate_limit_events GROUP BY key;

CREATE OR REPLACE FUNCTION agentrun_rate_admit(p_key text, p_limit integer, p_window_start timestamptz, p_now timestamptz,
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
`;
