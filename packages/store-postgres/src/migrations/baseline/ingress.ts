/**
 * The webhook ingress: the delivery log, the rate-limit windows, and the writes of the hot path as
 * functions, so that each is one statement, one round trip and one commit (ingress.ts).
 *
 * A delivery's payload is `bytea`, not `jsonb` or `text`: it is the exact bytes received (a
 * signature was verified over them, and the dashboard shows them), and JSON may carry `\u0000`,
 * which neither `jsonb` nor `text` can hold. It is stored once per delivery: a run's
 * `event-payload.json` made by its evaluation names the delivery (runs.ts, `run_attachments`).
 *
 * Accept in one write, evaluate afterwards (docs/webhooks.md, "When runs start"): the accept
 * stores the delivery alone, awaiting evaluation (`evaluation_due_at`: when it may next be
 * claimed, its arrival then the end of each claim's lease; NULL once evaluated and for every entry
 * not accepted), and NOTIFYs `delivery.accepted`; any process's evaluator claims it (SKIP LOCKED,
 * with a lease) and creates its runs in the statement that marks it evaluated (ingress-sql.ts).
 *
 * The functions need READ COMMITTED (PostgreSQL's default): there each statement inside a
 * function takes a fresh snapshot, so a count after the advisory lock sees every admission that
 * held the lock before, and the lookup after a conflicting insert sees the delivery that won.
 * Under a stricter level they raise `agentrun: READ COMMITTED required`, and the store runs them
 * again inside a transaction that sets it.
 */

/**
 * A rate admission in constant time, whatever the limit: `rate_limit_counts` holds, per key, how
 * many events the key has in `rate_limit_events`. The admission deletes the key's events that
 * left the window, under the key's advisory lock, so after that delete the key's events are
 * exactly its window: the count falls by the rows deleted and rises by the one inserted. A key
 * seen for the first time (or whose count a host removed) is counted once from its events; a
 * count that drifted anyway (events deleted by hand) is reset when its key's window is next empty.
 */
export const RATE_ADMIT = `
-- Count one event of a sliding-window limit if fewer than p_limit are in (p_window_start, p_now];
-- otherwise refuse. Admissions of one key take turns under an advisory lock until commit, across
-- every process sharing the database, and prune the key's expired events, so a key holds at
-- most p_limit rows. window_oldest: the oldest event still in the window (for Retry-After).
CREATE FUNCTION agentrun_rate_admit(p_key text, p_limit integer, p_window_start timestamptz, p_now timestamptz,
  OUT admitted boolean, OUT window_oldest timestamptz)
LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
DECLARE
  v_gone integer;
  v_stored integer;
  v_kept integer;
  v_n integer;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'agentrun: READ COMMITTED required (the session runs %)', current_setting('transaction_isolation');
  END IF;
  -- A hash collision only makes two keys wait for each other. The lock comes first, in a
  -- statement of its own: the next statement's snapshot must see what the last holder committed.
  PERFORM pg_advisory_xact_lock(hashtext('agentrun.rate:' || p_key));
  -- The statement's snapshot does not see its own delete, but its reads only look at events the
  -- delete keeps (after the window start).
  WITH gone AS (DELETE FROM rate_limit_events WHERE key = p_key AND at <= p_window_start RETURNING 1)
  SELECT (SELECT count(*) FROM gone), c.n,
      CASE WHEN c.n IS NULL THEN (SELECT count(*) FROM rate_limit_events e WHERE e.key = p_key AND (e.at <= p_window_start) IS NOT TRUE) END,
      (SELECT min(at) FROM rate_limit_events e WHERE e.key = p_key AND e.at > p_window_start)
    INTO v_gone, v_stored, v_kept, window_oldest
    FROM (SELECT) one LEFT JOIN rate_limit_counts c ON c.key = p_key;
  -- A key seen for the first time (or whose count a host removed) is counted from its events.
  v_n := CASE WHEN v_stored IS NULL THEN v_kept ELSE v_stored - v_gone END;
  -- An empty window is a count of 0 whatever was kept (0030).
  IF window_oldest IS NULL AND v_n <> 0 THEN
    v_n := 0;
  END IF;
  admitted := v_n < p_limit;
  IF admitted THEN
    v_n := v_n + 1;
  END IF;
  IF admitted OR v_stored IS NULL OR v_n <> v_stored THEN
    WITH event AS (INSERT INTO rate_limit_events (key, at) SELECT p_key, p_now WHERE admitted)
    INSERT INTO rate_limit_counts (key, n) VALUES (p_key, v_n) ON CONFLICT (key) DO UPDATE SET n = EXCLUDED.n;
  END IF;
END
$fn$;
`;

/**
 * One accept (steps 6, 8 and 9 of docs/webhooks.md, "Answers, log labels and limits"): the rate
 * admission if p_rate_key is given (refused: nothing is written, outcome 'rate_limited'); then
 * either the delivery as Accepted, outcome 'accepted', or, when an accepted delivery of this
 * webhook has the identity, the entry as Duplicate without payload, outcome 'duplicate' with the
 * original's id. Accepted with p_runs NULL (the ingress), it awaits evaluation and NOTIFYs
 * `delivery.accepted` when p_notify; given runs (a resend, which answers with them: rows of runs as
 * JSON) and their attachments (run_id, file_name, mime_type and data_hex, where a null data_hex is
 * the delivery's payload), it creates them at once.
 */
export const ACCEPT_ONE = `
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
`;

/** The accept of one delivery alone (`deliveries.accept` with runs, a batch of one): NOTIFYs. */
export const ACCEPT_DELIVERY = `
CREATE FUNCTION agentrun_accept_delivery(
  p_id text, p_team_uid text, p_factory_uid text, p_webhook_uid text, p_identity text, p_size integer,
  p_received_at timestamptz, p_payload bytea, p_runs jsonb, p_attachments jsonb,
  p_rate_key text, p_rate_limit integer, p_rate_window_start timestamptz, p_rate_now timestamptz,
  OUT outcome text, OUT duplicate_of text, OUT window_oldest timestamptz)
LANGUAGE sql SET search_path FROM CURRENT AS $fn$
  SELECT a.outcome, a.duplicate_of, a.window_oldest FROM agentrun_accept_one(p_id, p_team_uid, p_factory_uid, p_webhook_uid,
    p_identity, p_size, p_received_at, p_payload, p_runs, p_attachments, p_rate_key, p_rate_limit, p_rate_window_start,
    p_rate_now, true) a
$fn$;
`;

/**
 * Accepts as sets (docs/production.md, "Group commit"): a batch costs a fixed handful of
 * statements, whatever its length, and answers as `agentrun_accept_one` would, element after
 * element (test/accept-sets.test.ts compares the two on random batches):
 *
 * - every key's advisory lock, in one statement, in the order the keys first appear (the sender
 *   sorts a batch by key, so batches take their locks in one order and cannot deadlock);
 * - per key one delete of the events that left the latest window start any element of the key
 *   has, read back with the key's count and oldest kept event in the same statement; then the
 *   elements of the key are admitted one after another in memory, exactly as
 *   `agentrun_rate_admit` would (each element's window start, limit and time, the deleted events
 *   counted as gone at the element whose window they left, `window_oldest` the oldest event in
 *   its window before its own is added); then one insert of every admitted event and one upsert
 *   of every changed count. A key whose elements lack a limit, a window start or a time, or where
 *   an event the batch adds would leave a later element's window, goes through
 *   `agentrun_rate_admit` element by element instead (never seen from the ingress: a window is
 *   seconds long, a batch milliseconds);
 * - one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING RETURNING` of the first admitted
 *   element of each identity; one read of the accepted delivery of every other admitted element
 *   (an identity inserted by this batch, or already accepted); one insert of their `Duplicate`
 *   entries. An element whose identity conflicted but whose accepted original cannot be found
 *   (swept meanwhile) goes through `agentrun_accept_one`, which tries again;
 * - one `delivery.accepted` NOTIFY, naming the first delivery accepted: the evaluator only needs
 *   a wake-up, and claims whatever awaits evaluation.
 */
export const ACCEPT_DELIVERIES = `
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
        substring(p_payloads FROM (sum(coalesce(e.len, 0)) OVER (ORDER BY e.pos) - coalesce(e.len, 0) + 1)::integer FOR e.len) END AS payload
      FROM unnest(p_ids, p_team_uids, p_factory_uids, p_webhook_uids, p_identities, p_sizes, p_received_ats, p_payload_lengths)
        WITH ORDINALITY AS e (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, len, pos)
  ), firsts AS (
    SELECT DISTINCT ON (e.webhook_uid, e.identity) e.* FROM e WHERE v_proceed[e.pos] ORDER BY e.webhook_uid, e.identity, e.pos
  ), inserted AS (
    INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload, evaluation_due_at)
      SELECT f.id, f.team_uid, f.factory_uid, f.webhook_uid, f.identity, f.size, f.received_at, 'Accepted', f.payload, f.received_at
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
            p_received_ats[i], v_payload, NULL, NULL, NULL, NULL, NULL, NULL, false) a;
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
CREATE TABLE deliveries (
  id                 text COLLATE "C" PRIMARY KEY,
  team_uid           text NOT NULL,
  factory_uid        text NOT NULL,
  webhook_uid        text NOT NULL,
  identity           text,
  size               integer NOT NULL,
  received_at        timestamptz(3) NOT NULL,
  status             text NOT NULL CHECK (status IN ('Accepted','Duplicate','Rejected (auth)','Rejected (invalid JSON)','Rejected (too large)')),
  payload            bytea,
  evaluation_due_at  timestamptz(3),
  -- An accepted entry without an identity would escape the unique index below (NULLs never
  -- conflict), and so could be accepted twice.
  CONSTRAINT deliveries_accepted_identity_set CHECK (status <> 'Accepted' OR identity IS NOT NULL)
);
-- At most one accepted delivery per webhook and identity: the arbiter of accept's
-- INSERT ... ON CONFLICT, so two racing identical deliveries cannot both be accepted.
-- Duplicates and rejected entries may repeat an identity.
CREATE UNIQUE INDEX deliveries_accepted_identity ON deliveries (webhook_uid, identity) WHERE status = 'Accepted';
-- A webhook's log, newest first, by keyset; also the per-webhook ranking of the retention sweep.
CREATE INDEX deliveries_webhook_received ON deliveries (webhook_uid, received_at DESC, id DESC);
-- Deliveries awaiting evaluation only: as small as the backlog.
CREATE INDEX deliveries_evaluation_due ON deliveries (evaluation_due_at) WHERE evaluation_due_at IS NOT NULL;

-- One row per admitted event of a sliding-window limit, and per key how many it has.
CREATE TABLE rate_limit_events (
  key  text NOT NULL,
  at   timestamptz(3) NOT NULL
);
-- Pruning, counting and finding the oldest event of a key's window.
CREATE INDEX rate_limit_events_key_at ON rate_limit_events (key, at);
CREATE TABLE rate_limit_counts (
  key text PRIMARY KEY,
  n integer NOT NULL
);
${RATE_ADMIT}${ACCEPT_ONE}${ACCEPT_DELIVERY}${ACCEPT_DELIVERIES}`;
