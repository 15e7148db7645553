/**
 * The stats' rollups (docs/stores.md, "Stats"): every write that changes what a stats read counts
 * appends a delta row in its own transaction (triggers here; inserts only, so concurrent writers
 * never wait on a counter row), the maintenance task folds the deltas into rollups at the grain of
 * each range's step (stats.ts `compact`), and a read sums the rollups of its range and the deltas
 * not folded yet: exact and immediate at any time, and bounded by the range's buckets rather than
 * the rows counted.
 *
 * A run counts under (team, minute of `created_at`, state, harness, config name, duration bucket);
 * the duration bucket is -1 unless the run is in a terminal state and started, else core's
 * `durationBucket(updated_at - started_at)` (stats/histogram.ts: the bounds below are its
 * `DURATION_HISTOGRAM_BOUNDS_MS`, which test/stats-rollups.test.ts holds equal). A delivery counts
 * under (team, factory, webhook, minute of `received_at`, label): an accepted delivery whose
 * `run_ids` is empty (evaluated, started no run: migrations/0004_delivery_details.ts) is filtered out.
 */

// The keys, spelled once and inlined where they are used: a function with a pinned search_path
// (as every function here must have) is never inlined, so a call per row would cost a function
// call with its settings saved and restored. Only an ended run's duration calls one.
const TERMINAL = "('SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED')";
/** The minute a time falls in, aligned to the epoch (the minute grain of the deltas). */
const minuteOf = (at: string) => `date_bin('1 minute', ${at}, timestamptz '1970-01-01 00:00:00+00')`;
const harnessOf = (r: string) => `coalesce(${r}.config -> 'harness' ->> 'type', 'oz')`;
const nameOf = (r: string) => `coalesce(${r}.config ->> 'name', '')`;
/** -1, or the duration bucket of a run in a terminal state that started (core's `durationBucket`). */
const durationBucketOf = (r: string) =>
  `(CASE WHEN ${r}.state IN ${TERMINAL} AND ${r}.started_at IS NOT NULL THEN agentrun_stats_duration_bucket(${r}.started_at, ${r}.updated_at) ELSE -1 END)::smallint`;
/** core's `deliveryStatLabel`. */
const labelOf = (r: string) =>
  `CASE WHEN ${r}.status = 'Accepted' THEN CASE WHEN ${r}.run_ids = '{}' THEN 'Filtered out' ELSE 'Accepted' END WHEN ${r}.status = 'Duplicate' THEN 'Duplicate' ELSE 'Rejected' END`;

/** Trigger runs_stats_inserted: +1 per key of the runs a statement inserted, one insert per statement. */
export const RUNS_STATS_INSERTED = `
CREATE FUNCTION agentrun_stats_runs_inserted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO stats_run_deltas (team_uid, minute, state, harness, config_name, duration_bucket, n)
  SELECT r.team_uid, ${minuteOf('r.created_at')}, r.state, ${harnessOf('r')}, ${nameOf('r')}, ${durationBucketOf('r')}, count(*)
  FROM added r GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END
$fn$;
`;

/** Trigger runs_stats_changed: a run whose key changed (its state, or when a run in a terminal state started or ended): -1 under the old key, +1 under the new, in one insert. */
export const RUN_STATS_CHANGED = `
CREATE FUNCTION agentrun_stats_run_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
  old_bucket smallint := ${durationBucketOf('OLD')};
  new_bucket smallint := ${durationBucketOf('NEW')};
BEGIN
  IF OLD.state IS DISTINCT FROM NEW.state OR old_bucket <> new_bucket THEN
    INSERT INTO stats_run_deltas (team_uid, minute, state, harness, config_name, duration_bucket, n)
    SELECT NEW.team_uid, ${minuteOf('NEW.created_at')}, k.state, ${harnessOf('NEW')}, ${nameOf('NEW')}, k.bucket, k.n
    FROM (VALUES (OLD.state, old_bucket, -1), (NEW.state, new_bucket, 1)) AS k (state, bucket, n);
  END IF;
  RETURN NULL;
END
$fn$;
`;

/** Trigger deliveries_stats_inserted: +1 per key of the deliveries a statement logged. */
export const DELIVERIES_STATS_INSERTED = `
CREATE FUNCTION agentrun_stats_deliveries_inserted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO stats_delivery_deltas (team_uid, factory_uid, webhook_uid, minute, label, n)
  SELECT d.team_uid, d.factory_uid, d.webhook_uid, ${minuteOf('d.received_at')}, ${labelOf('d')}, count(*)
  FROM added d GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END
$fn$;
`;

/** Trigger deliveries_stats_changed: an accepted delivery evaluated without starting a run, from Accepted to Filtered out. */
export const DELIVERY_STATS_CHANGED = `
CREATE FUNCTION agentrun_stats_delivery_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO stats_delivery_deltas (team_uid, factory_uid, webhook_uid, minute, label, n)
  SELECT NEW.team_uid, NEW.factory_uid, NEW.webhook_uid, ${minuteOf('NEW.received_at')}, k.label, k.n
  FROM (VALUES (${labelOf('OLD')}, -1), (${labelOf('NEW')}, 1)) AS k (label, n);
  RETURN NULL;
END
$fn$;
`;

export const up = `
-- The callbacks' read (stats-sql.ts \`callbacks\`): an endpoint's attempts in a range, counted by
-- outcome and the newest failure, as three ranges of one index (index-only for the counts), not a
-- walk of the endpoint's whole log. The endpoint is the delivery's, copied on each attempt.
ALTER TABLE callback_attempts ADD COLUMN endpoint_id text;
UPDATE callback_attempts a SET endpoint_id = d.endpoint_id FROM callback_deliveries d WHERE d.id = a.delivery_id;
ALTER TABLE callback_attempts ALTER COLUMN endpoint_id SET NOT NULL;
CREATE INDEX callback_attempts_endpoint ON callback_attempts (endpoint_id, ok, at);
-- Which run key a run is counted under: a pure function of its row, one rule for every trigger.
-- The duration bucket of a run that started at p_started_at and ended at p_updated_at.
CREATE FUNCTION agentrun_stats_duration_bucket(p_started_at timestamptz, p_updated_at timestamptz)
RETURNS smallint LANGUAGE sql IMMUTABLE SET search_path FROM CURRENT AS $fn$
  SELECT width_bucket(greatest(0, floor((extract(epoch FROM p_updated_at) - extract(epoch FROM p_started_at)) * 1000))::bigint,
      ARRAY[100, 119, 141, 168, 200, 238, 283, 336, 400, 476, 566, 673, 800, 951, 1131, 1345, 1600, 1903, 2263, 2691, 3200,
        3805, 4525, 5382, 6400, 7611, 9051, 10763, 12800, 15222, 18102, 21527, 25600, 30444, 36204, 43054, 51200, 60887,
        72408, 86108, 102400, 121775, 144815, 172216, 204800, 243550, 289631, 344431, 409600, 487099, 579262, 688862,
        819200, 974198, 1158524, 1377725, 1638400, 1948397, 2317048, 2755449, 3276800, 3896794, 4634095, 5510899,
        6553600, 7793588, 9268190, 11021797, 13107200, 15587175, 18536380, 22043595, 26214400, 31174351, 37072760,
        44087190, 52428800, 62348702, 74145520, 88174380, 104857600, 124697404, 148291040, 176348760, 209715200,
        249394808, 296582080, 352697520, 419430400, 498789616, 593164160, 705395040, 838860800, 997579232,
        1186328320, 1410790079, 1677721600]::bigint[])::smallint
$fn$;

-- The deltas: append-only, no key, read by team and minute, emptied by each fold.
CREATE TABLE stats_run_deltas (
  team_uid         text NOT NULL,
  minute           timestamptz(3) NOT NULL,
  state            text NOT NULL,
  harness          text NOT NULL,
  config_name      text NOT NULL,
  duration_bucket  smallint NOT NULL,
  n                integer NOT NULL
);
CREATE INDEX stats_run_deltas_team ON stats_run_deltas (team_uid, minute);

CREATE TABLE stats_delivery_deltas (
  team_uid     text NOT NULL,
  factory_uid  text NOT NULL,
  webhook_uid  text NOT NULL,
  minute       timestamptz(3) NOT NULL,
  label        text NOT NULL,
  n            integer NOT NULL
);
CREATE INDEX stats_delivery_deltas_team ON stats_delivery_deltas (team_uid, minute);

-- The rollups, one set of rows per grain (step_seconds: 60, 900, 7200, the ranges' steps; the
-- durations also 3600 and 86400, as a durations read sums its whole range and so reads the
-- coarsest blocks that tile it), each bucket starting at a multiple of its step since the epoch.
-- Written only by the fold.
CREATE TABLE stats_run_counts (
  team_uid      text NOT NULL,
  step_seconds  integer NOT NULL,
  bucket        timestamptz(3) NOT NULL,
  state         text NOT NULL,
  n             integer NOT NULL,
  -- INCLUDE: a read is an index-only scan where the fold has not touched the page since the last vacuum.
  PRIMARY KEY (team_uid, step_seconds, bucket, state) INCLUDE (n)
);
-- Durations by one grouping at a time ('harness' or 'name'), so a read sums only its own.
CREATE TABLE stats_run_durations (
  team_uid         text NOT NULL,
  step_seconds     integer NOT NULL,
  bucket           timestamptz(3) NOT NULL,
  grouped_by       text NOT NULL,
  key              text COLLATE "C" NOT NULL,
  duration_bucket  smallint NOT NULL,
  n                integer NOT NULL,
  PRIMARY KEY (team_uid, step_seconds, grouped_by, bucket, key, duration_bucket) INCLUDE (n)
);
CREATE TABLE stats_delivery_counts (
  team_uid      text NOT NULL,
  step_seconds  integer NOT NULL,
  bucket        timestamptz(3) NOT NULL,
  factory_uid   text NOT NULL,
  webhook_uid   text COLLATE "C" NOT NULL,
  label         text NOT NULL,
  n             integer NOT NULL,
  PRIMARY KEY (team_uid, step_seconds, bucket, webhook_uid, label) INCLUDE (factory_uid, n)
);

${RUNS_STATS_INSERTED}
CREATE FUNCTION agentrun_stats_runs_deleted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO stats_run_deltas (team_uid, minute, state, harness, config_name, duration_bucket, n)
  SELECT r.team_uid, ${minuteOf('r.created_at')}, r.state, ${harnessOf('r')}, ${nameOf('r')}, ${durationBucketOf('r')}, -count(*)
  FROM gone r GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END
$fn$;

${RUN_STATS_CHANGED}
CREATE TRIGGER runs_stats_inserted AFTER INSERT ON runs REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_stats_runs_inserted();
CREATE TRIGGER runs_stats_deleted AFTER DELETE ON runs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_stats_runs_deleted();
-- Only a change of state, or of the times of a run in a terminal state, can change its key.
CREATE TRIGGER runs_stats_changed AFTER UPDATE OF state, started_at, updated_at ON runs FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state OR (NEW.state IN ('SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED')
    AND (OLD.started_at IS DISTINCT FROM NEW.started_at OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)))
  EXECUTE FUNCTION agentrun_stats_run_changed();

${DELIVERIES_STATS_INSERTED}
CREATE FUNCTION agentrun_stats_deliveries_deleted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO stats_delivery_deltas (team_uid, factory_uid, webhook_uid, minute, label, n)
  SELECT d.team_uid, d.factory_uid, d.webhook_uid, ${minuteOf('d.received_at')}, ${labelOf('d')}, -count(*)
  FROM gone d GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END
$fn$;

${DELIVERY_STATS_CHANGED}
CREATE TRIGGER deliveries_stats_inserted AFTER INSERT ON deliveries REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_stats_deliveries_inserted();
CREATE TRIGGER deliveries_stats_deleted AFTER DELETE ON deliveries REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION agentrun_stats_deliveries_deleted();
-- Only a change of label: an evaluation that started runs (run_ids from NULL to some) leaves it Accepted.
CREATE TRIGGER deliveries_stats_changed AFTER UPDATE OF status, run_ids ON deliveries FOR EACH ROW
  WHEN ((${labelOf('OLD')}) IS DISTINCT FROM (${labelOf('NEW')}))
  EXECUTE FUNCTION agentrun_stats_delivery_changed();

-- What the runs and deliveries already stored count, as deltas the first fold takes in.
INSERT INTO stats_run_deltas (team_uid, minute, state, harness, config_name, duration_bucket, n)
SELECT r.team_uid, ${minuteOf('r.created_at')}, r.state, ${harnessOf('r')}, ${nameOf('r')}, ${durationBucketOf('r')}, count(*)
FROM runs r GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO stats_delivery_deltas (team_uid, factory_uid, webhook_uid, minute, label, n)
SELECT d.team_uid, d.factory_uid, d.webhook_uid, ${minuteOf('d.received_at')}, ${labelOf('d')}, count(*)
FROM deliveries d GROUP BY 1, 2, 3, 4, 5;
`;
