/**
 * What a delivery's page shows (docs/webhooks.md, "What a delivery keeps"): the request an
 * accepted delivery came in (its headers, secrets masked before they reach the store, and the
 * peer's address) as `request`, and the runs its evaluation started as `run_ids` (NULL while it
 * awaits evaluation; empty: it matched nothing). Both are written by the statements that already
 * run: the accept functions take the request as one more argument, and the evaluation's completion
 * sets the run ids in the UPDATE that marks a delivery evaluated (ingress-sql.ts).
 *
 * Deliveries evaluated before it get the ids of the runs naming them (`trigger.delivery_id`).
 *
 * The accept functions are the baseline's (migrations/baseline/ingress.ts, whose comments hold),
 * with the request added: a function's arguments are its identity, so the old ones go first.
 */

export const ACCEPT_ONE = `
CREATE FUNCTION agentrun_accept_one(
  p_id text, p_team_uid text, p_factory_uid text, p_webhook_uid text, p_identity text, p_size integer,
  p_received_at timestamptz, p_payload bytea, p_runs jsonb, p_attachments jsonb,
  p_rate_key text, p_rate_limit integer, p_rate_window_start timestamptz, p_rate_now timestamptz, p_notify boolean,
  p_request jsonb,
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
    -- A resend's runs are its evaluation, done: their ids are its run_ids at once.
    INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload, evaluation_due_at,
        request, run_ids)
      VALUES (p_id, p_team_uid, p_factory_uid, p_webhook_uid, p_identity, p_size, p_received_at, 'Accepted', p_payload,
        CASE WHEN p_runs IS NULL THEN p_received_at END, p_request,
        CASE WHEN p_runs IS NOT NULL THEN ARRAY(SELECT r.run ->> 'id' FROM jsonb_array_elements(p_runs) WITH ORDINALITY AS r (run, pos)
          ORDER BY r.pos) END)
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
`;

/** The accept of one delivery alone (`deliveries.accept` with runs, a batch of one): NOTIFYs. */
export const ACCEPT_DELIVERY = `
CREATE FUNCTION agentrun_accept_delivery(
  p_id text, p_team_uid text, p_factory_uid text, p_webhook_uid text, p_identity text, p_size integer,
  p_received_at timestamptz, p_payload bytea, p_runs jsonb, p_attachments jsonb,
  p_rate_key text, p_rate_limit integer, p_rate_window_start timestamptz, p_rate_now timestamptz, p_request jsonb,
  OUT outcome text, OUT duplicate_of text, OUT window_oldest timestamptz)
LANGUAGE sql SET search_path FROM CURRENT AS $fn$
  SELECT a.outcome, a.duplicate_of, a.window_oldest FROM agentrun_accept_one(p_id, p_team_uid, p_factory_uid, p_webhook_uid,
    p_identity, p_size, p_received_at, p_payload, p_runs, p_attachments, p_rate_key, p_rate_limit, p_rate_window_start,
    p_rate_now, true, p_request) a
$fn$;
`;

/** Accepts as sets, as the baseline's, each element's request stored with it. */
export const ACCEPT_DELIVERIES = `
-- Accepts awaiting evaluation (no runs), one per array index, in order; one row per element (ord
-- is its 1-based index). All arrays have the length of p_ids; the rate arrays hold NULL for an
-- element without an admission. The payloads come as one bytea, one after another, each
-- p_payload_lengths long (NULL: no payload): sent binary, where a bytea[] parameter goes as text
-- with every byte in hex. p_requests: a JSON array, the request each element keeps (null: none).
CREATE FUNCTION agentrun_accept_deliveries(
  p_ids text[], p_team_uids text[], p_factory_uids text[], p_webhook_uids text[], p_identities text[], p_sizes integer[],
  p_received_ats timestamptz[], p_payloads bytea, p_payload_lengths integer[],
  p_rate_keys text[], p_rate_limits integer[], p_rate_window_starts timestamptz[], p_rate_nows timestamptz[], p_requests jsonb,
  OUT ord integer, OUT outcome text, OUT duplicate_of text, OUT window_oldest timestamptz)
RETURNS SETOF record
LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
DECLARE
  v_count integer := coalesce(array_length(p_ids, 1), 0);
  -- Per element: still to be written (admitted, or without an admission), and its answer.
  v_proceed boolean[];
  v_outcome text[];
  v_duplicate_of text[];
  v_oldest timestamptz[];
  -- The admission of one key, in memory.
  k record;
  i integer;
  v_at integer;
  v_gone_count integer;
  v_gone integer;
  v_n integer;
  v_added_oldest timestamptz;
  v_window_oldest timestamptz;
  v_admitted boolean;
  v_first boolean;
  v_event_keys text[] := '{}';
  v_event_ats timestamptz[] := '{}';
  v_count_keys text[] := '{}';
  v_count_ns integer[] := '{}';
  -- The deliveries.
  v_inserted integer[];
  v_rest integer[];
  v_found text[];
  v_duplicates integer[] := '{}';
  v_payload bytea;
  v_again text;
  v_again_of text;
  v_first_accepted integer;
BEGIN
  IF v_count = 0 THEN
    RETURN;
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'agentrun: READ COMMITTED required (the session runs %)', current_setting('transaction_isolation');
  END IF;
  v_proceed := array_fill(true, ARRAY[v_count]);
  v_outcome := array_fill(NULL::text, ARRAY[v_count]);
  v_duplicate_of := array_fill(NULL::text, ARRAY[v_count]);
  v_oldest := array_fill(NULL::timestamptz, ARRAY[v_count]);

  -- Every key's lock, in the order the keys first appear (OFFSET 0 keeps the sort below the calls).
  PERFORM pg_advisory_xact_lock(hashtext('agentrun.rate:' || l.key))
    FROM (SELECT e.key, min(e.pos) AS first FROM unnest(p_rate_keys) WITH ORDINALITY AS e (key, pos)
      WHERE e.key IS NOT NULL GROUP BY e.key ORDER BY first OFFSET 0) l;

  -- Per key: its elements in order, and (for a key admitted in memory) the events its latest
  -- window start removes, its stored count, and what stays: the count of that (only for a key
  -- without a count) and the oldest of it.
  FOR k IN
    WITH e AS (
      SELECT e.key, e.pos::integer AS pos, e.lim, e.ws, e.now,
        min(e.now::timestamptz(3)) OVER (PARTITION BY e.key ORDER BY e.pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS added_before
      FROM unnest(p_rate_keys, p_rate_limits, p_rate_window_starts, p_rate_nows) WITH ORDINALITY AS e (key, lim, ws, now, pos)
      WHERE e.key IS NOT NULL
    ), keys AS (
      SELECT e.key, min(e.pos) AS first, max(e.ws) AS ws_max, array_agg(e.pos ORDER BY e.pos) AS positions,
        bool_and(e.lim IS NOT NULL AND e.ws IS NOT NULL AND e.now IS NOT NULL AND (e.added_before > e.ws) IS NOT FALSE) AS in_memory
      FROM e GROUP BY e.key
    ), gone AS (
      DELETE FROM rate_limit_events ev USING keys
        WHERE keys.in_memory AND ev.key = keys.key AND ev.at <= keys.ws_max
        RETURNING ev.key, ev.at
    )
    SELECT keys.key, keys.in_memory, keys.positions, c.n AS stored,
      (SELECT array_agg(g.at ORDER BY g.at) FROM gone g WHERE g.key = keys.key) AS gone,
      CASE WHEN keys.in_memory AND c.n IS NULL THEN
        (SELECT count(*)::integer FROM rate_limit_events ev WHERE ev.key = keys.key AND ev.at > keys.ws_max) END AS kept,
      CASE WHEN keys.in_memory THEN
        (SELECT min(ev.at) FROM rate_limit_events ev WHERE ev.key = keys.key AND ev.at > keys.ws_max) END AS kept_oldest
    FROM keys LEFT JOIN rate_limit_counts c ON c.key = keys.key
    ORDER BY keys.first
  LOOP
    IF NOT k.in_memory THEN
      FOREACH i IN ARRAY k.positions LOOP
        SELECT a.admitted, a.window_oldest INTO v_admitted, v_window_oldest
          FROM agentrun_rate_admit(k.key, p_rate_limits[i], p_rate_window_starts[i], p_rate_nows[i]) a;
        v_oldest[i] := v_window_oldest;
        IF NOT v_admitted THEN
          v_proceed[i] := false;
          v_outcome[i] := 'rate_limited';
        END IF;
      END LOOP;
      CONTINUE;
    END IF;
    -- What agentrun_rate_admit would do for each element in turn: the events that left the
    -- element's window are gone (the oldest first; none of the batch's own, by the choice of
    -- in_memory); a key without a count is counted after the first element's delete.
    v_gone_count := coalesce(array_length(k.gone, 1), 0);
    v_at := 1;
    v_added_oldest := NULL;
    v_first := true;
    FOREACH i IN ARRAY k.positions LOOP
      v_gone := 0;
      WHILE v_at <= v_gone_count AND k.gone[v_at] <= p_rate_window_starts[i] LOOP
        v_at := v_at + 1;
        v_gone := v_gone + 1;
      END LOOP;
      IF v_first AND k.stored IS NULL THEN
        v_n := v_gone_count - v_at + 1 + k.kept;
      ELSIF v_first THEN
        v_n := k.stored - v_gone;
      ELSE
        v_n := v_n - v_gone;
      END IF;
      v_first := false;
      v_window_oldest := least(CASE WHEN v_at <= v_gone_count THEN k.gone[v_at] ELSE k.kept_oldest END, v_added_oldest);
      IF v_window_oldest IS NULL AND v_n <> 0 THEN
        v_n := 0;
      END IF;
      v_oldest[i] := v_window_oldest;
      IF v_n < p_rate_limits[i] THEN
        v_n := v_n + 1;
        v_event_keys := v_event_keys || k.key;
        v_event_ats := v_event_ats || p_rate_nows[i];
        v_added_oldest := least(v_added_oldest, p_rate_nows[i]::timestamptz(3));
      ELSE
        v_proceed[i] := false;
        v_outcome[i] := 'rate_limited';
      END IF;
    END LOOP;
    IF k.stored IS NULL OR v_n <> k.stored THEN
      v_count_keys := v_count_keys || k.key;
      v_count_ns := v_count_ns || v_n;
    END IF;
  END LOOP;
  IF cardinality(v_count_keys) > 0 OR cardinality(v_event_keys) > 0 THEN
    WITH events AS (INSERT INTO rate_limit_events (key, at) SELECT * FROM unnest(v_event_keys, v_event_ats))
    INSERT INTO rate_limit_counts (key, n) SELECT * FROM unnest(v_count_keys, v_count_ns)
      ON CONFLICT (key) DO UPDATE SET n = EXCLUDED.n;
  END IF;

  -- The first admitted element of each identity, as Accepted awaiting evaluation. Meeting a
  -- concurrent accept of the same identity, the insert waits for it on the unique index; once
  -- that commits, DO NOTHING applies and the read below (a new snapshot) sees the winner.
  WITH e AS (
    SELECT e.*, CASE WHEN e.len IS NOT NULL THEN
        substring(p_payloads FROM (sum(coalesce(e.len, 0)) OVER (ORDER BY e.pos) - coalesce(e.len, 0) + 1)::integer FOR e.len) END AS payload,
        nullif(p_requests -> (e.pos::integer - 1), 'null'::jsonb) AS request
      FROM unnest(p_ids, p_team_uids, p_factory_uids, p_webhook_uids, p_identities, p_sizes, p_received_ats, p_payload_lengths)
        WITH ORDINALITY AS e (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, len, pos)
  ), firsts AS (
    SELECT DISTINCT ON (e.webhook_uid, e.identity) e.* FROM e WHERE v_proceed[e.pos] ORDER BY e.webhook_uid, e.identity, e.pos
  ), inserted AS (
    INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload, evaluation_due_at, request)
      SELECT f.id, f.team_uid, f.factory_uid, f.webhook_uid, f.identity, f.size, f.received_at, 'Accepted', f.payload, f.received_at, f.request
      FROM firsts f ORDER BY f.pos
      ON CONFLICT (webhook_uid, identity) WHERE status = 'Accepted' DO NOTHING
      RETURNING id
  )
  SELECT array_agg(f.pos::integer ORDER BY f.pos) INTO v_inserted FROM firsts f JOIN inserted USING (id);
  v_inserted := coalesce(v_inserted, '{}');
  FOREACH i IN ARRAY v_inserted LOOP
    v_outcome[i] := 'accepted';
  END LOOP;

  -- Every other admitted element is a duplicate of the accepted delivery of its identity.
  IF cardinality(v_inserted) < cardinality(array_positions(v_proceed, true)) THEN
    SELECT array_agg(e.pos::integer ORDER BY e.pos), array_agg(d.id ORDER BY e.pos) INTO v_rest, v_found
      FROM unnest(p_webhook_uids, p_identities) WITH ORDINALITY AS e (webhook_uid, identity, pos)
      LEFT JOIN deliveries d ON d.webhook_uid = e.webhook_uid AND d.identity = e.identity AND d.status = 'Accepted'
      WHERE v_proceed[e.pos] AND e.pos <> ALL (v_inserted);
    FOR j IN 1..coalesce(array_length(v_rest, 1), 0) LOOP
      i := v_rest[j];
      IF v_found[j] IS NOT NULL THEN
        v_outcome[i] := 'duplicate';
        v_duplicate_of[i] := v_found[j];
        v_duplicates := v_duplicates || i;
      ELSE
        -- The original was swept between the insert and the read: the per-element path tries again.
        v_payload := CASE WHEN p_payload_lengths[i] IS NOT NULL THEN substring(p_payloads
          FROM (SELECT coalesce(sum(l), 0)::integer + 1 FROM unnest(p_payload_lengths[1:i - 1]) l) FOR p_payload_lengths[i]) END;
        SELECT a.outcome, a.duplicate_of INTO v_again, v_again_of
          FROM agentrun_accept_one(p_ids[i], p_team_uids[i], p_factory_uids[i], p_webhook_uids[i], p_identities[i], p_sizes[i],
            p_received_ats[i], v_payload, NULL, NULL, NULL, NULL, NULL, NULL, false, nullif(p_requests -> (i - 1), 'null'::jsonb)) a;
        v_outcome[i] := v_again;
        v_duplicate_of[i] := v_again_of;
      END IF;
    END LOOP;
    IF cardinality(v_duplicates) > 0 THEN
      INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
        SELECT e.id, e.team_uid, e.factory_uid, e.webhook_uid, e.identity, e.size, e.received_at, 'Duplicate', NULL
        FROM unnest(p_ids, p_team_uids, p_factory_uids, p_webhook_uids, p_identities, p_sizes, p_received_ats)
          WITH ORDINALITY AS e (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, pos)
        WHERE e.pos = ANY (v_duplicates) ORDER BY e.pos;
    END IF;
  END IF;

  -- One NOTIFY, naming the first delivery accepted (0026).
  v_first_accepted := array_position(v_outcome, 'accepted');
  IF v_first_accepted IS NOT NULL THEN
    PERFORM pg_notify(agentrun_notify_channel(), json_build_object('type', 'delivery.accepted', 'deliveryId', p_ids[v_first_accepted])::text);
  END IF;
  RETURN QUERY SELECT g, v_outcome[g], v_duplicate_of[g], v_oldest[g] FROM generate_series(1, v_count) g;
END
$fn$;
`;

export const up = `
ALTER TABLE deliveries ADD COLUMN request jsonb;
ALTER TABLE deliveries ADD COLUMN run_ids text[];
-- The deliveries evaluated before: their runs, as the runs name them (those deleted since are gone).
UPDATE deliveries d SET run_ids = coalesce(s.ids, '{}')
  FROM deliveries e LEFT JOIN (
    SELECT trigger ->> 'delivery_id' AS delivery_id, array_agg(id ORDER BY created_at, id) AS ids
    FROM runs WHERE trigger ->> 'delivery_id' IS NOT NULL GROUP BY 1
  ) s ON s.delivery_id = e.id
  WHERE d.id = e.id AND e.status = 'Accepted' AND e.evaluation_due_at IS NULL;
DROP FUNCTION agentrun_accept_deliveries(text[], text[], text[], text[], text[], integer[], timestamptz[], bytea, integer[], text[],
  integer[], timestamptz[], timestamptz[]);
DROP FUNCTION agentrun_accept_delivery(text, text, text, text, text, integer, timestamptz, bytea, jsonb, jsonb, text, integer,
  timestamptz, timestamptz);
DROP FUNCTION agentrun_accept_one(text, text, text, text, text, integer, timestamptz, bytea, jsonb, jsonb, text, integer, timestamptz,
  timestamptz, boolean);
${ACCEPT_ONE}${ACCEPT_DELIVERY}${ACCEPT_DELIVERIES}`;
