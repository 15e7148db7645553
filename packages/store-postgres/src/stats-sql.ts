import { type RawBuilder, sql } from 'kysely';
import type { Tables } from './tables.js';

// The stats' SQL (its methods: stats.ts; the tables and triggers: migrations/0005_stats_rollups.ts).
// A read sums the rollups of its range's grain and the deltas not folded yet, so it is exact at
// any time and reads about (buckets × keys) rows, whatever the number of runs or deliveries.

/** A span as the statements take it: `[from, to)` and the bucket width, both as the rollups store them. */
export interface SpanArgs {
  teamUid: string;
  from: string;
  to: string;
  stepSeconds: number;
}

/**
 * The grains the fold writes and how long each is kept: twice the longest range that reads it, so
 * a clock a little ahead of the readers' drops nothing they read. The counts use the ranges'
 * steps; the durations (a read sums its whole range) also the hour and the day: each grain
 * divides the next, so a range tiles with few blocks (`durationBlocks`).
 */
const STATS_GRAINS = [
  { stepSeconds: 60, keepMs: 2 * 3600_000, counts: true },
  { stepSeconds: 900, keepMs: 2 * 86_400_000, counts: true },
  { stepSeconds: 3600, keepMs: 2 * 86_400_000, counts: false },
  { stepSeconds: 7200, keepMs: 14 * 86_400_000, counts: true },
  { stepSeconds: 86_400, keepMs: 14 * 86_400_000, counts: false },
] as const;
const COUNT_GRAINS = STATS_GRAINS.filter((g) => g.counts);
const DURATION_GRAINS = STATS_GRAINS;

/**
 * Grains as the fold takes them: each with the oldest bucket it keeps at `now` (what `dropOld`
 * deletes, the fold never writes: folding days of minute deltas at once, as after the migration,
 * would otherwise write their minute rows only to delete them, and leave the table that many
 * pages long).
 */
const grainsAt = (grains: readonly { stepSeconds: number; keepMs: number }[], now: string) => sql`
  SELECT step, make_interval(secs => step) AS width, ${now}::timestamptz - make_interval(secs => keep) AS since
  FROM unnest(${grains.map((g) => g.stepSeconds)}::integer[], ${grains.map((g) => g.keepMs / 1000)}::integer[]) AS g (step, keep)`;
const BUCKET = sql`date_bin(width, minute, timestamptz '1970-01-01 00:00:00+00')`;

/**
 * `[from, to)` tiled greedily with the coarsest aligned blocks of the durations' grains, as
 * (grain, first block start, end) runs: the blocks of one grain are contiguous on each side of
 * the range's middle, so a grain gives at most two runs. 24 hours take about 25 blocks, not 96.
 */
export function durationBlocks(fromMs: number, toMs: number): { stepSeconds: number; from: string; to: string }[] {
  const runs: { stepSeconds: number; from: number; to: number }[] = [];
  let at = fromMs;
  while (at < toMs) {
    // The minute always fits: every range starts and ends on a minute.
    const g =
      [...DURATION_GRAINS].reverse().find(({ stepSeconds: s }) => at % (s * 1000) === 0 && at + s * 1000 <= toMs)?.stepSeconds ?? 60;
    const prev = runs[runs.length - 1];
    if (prev !== undefined && prev.stepSeconds === g && prev.to === at) prev.to += g * 1000;
    else runs.push({ stepSeconds: g, from: at, to: at + g * 1000 });
    at += g * 1000;
  }
  return runs.map((r) => ({ stepSeconds: r.stepSeconds, from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() }));
}

/** Deltas older than the longest grain keeps are dropped unfolded: no range reads them. */
const LONGEST_KEEP_MS = Math.max(...STATS_GRAINS.map((g) => g.keepMs));

/** The bucket of `t` (a timestamptz expression) in the span: 0 for the first. */
const bucketOf = (t: RawBuilder<unknown>, s: SpanArgs) =>
  sql`floor((extract(epoch FROM ${t}) - extract(epoch FROM ${s.from}::timestamptz)) / ${s.stepSeconds}::integer)::integer`;

export type RunCountRow = { state: string; i: number; n: number };
export type DurationRow = { key: string; b: number; n: number };
export type DeliveryCountRow = { factory_uid: string; webhook_uid: string; label: string; i: number; n: number };
export type QueueRow = { queued: boolean; worker_host: string | null; n: number; oldest: Date | string };
export type CallbackRow = {
  id: string;
  url: string;
  delivered: number;
  failed: number;
  last_failure_at: Date | string | null;
  last_error: string | null;
};

export function statsQueries(t: Tables) {
  return {
    /** Runs created in the span by bucket and current state. */
    runs: (s: SpanArgs): RawBuilder<RunCountRow> => sql`
      SELECT state, ${bucketOf(sql.ref('x.t'), s)} AS i, sum(n)::integer AS n FROM (
        SELECT bucket AS t, state, n FROM ${t.stats_run_counts}
          WHERE team_uid = ${s.teamUid} AND step_seconds = ${s.stepSeconds}::integer
            AND bucket >= ${s.from}::timestamptz AND bucket < ${s.to}::timestamptz
        UNION ALL
        SELECT minute, state, n FROM ${t.stats_run_deltas}
          WHERE team_uid = ${s.teamUid} AND minute >= ${s.from}::timestamptz AND minute < ${s.to}::timestamptz
      ) x GROUP BY 1, 2 HAVING sum(n) <> 0`,

    /** The duration histogram of the span's ended runs, by harness or config name: the rollups of the blocks tiling the span. */
    runDurations: (s: SpanArgs, by: 'harness' | 'name'): RawBuilder<DurationRow> => {
      const blocks = durationBlocks(Date.parse(s.from), Date.parse(s.to)).map(
        (b) => sql`
        SELECT key, duration_bucket, n FROM ${t.stats_run_durations}
          WHERE team_uid = ${s.teamUid} AND step_seconds = ${b.stepSeconds}::integer AND grouped_by = ${by}
            AND bucket >= ${b.from}::timestamptz AND bucket < ${b.to}::timestamptz`,
      );
      return sql`
      SELECT key, duration_bucket AS b, sum(n)::integer AS n FROM (${sql.join(
        blocks,
        sql`
        UNION ALL`,
      )}
        UNION ALL
        SELECT ${by === 'harness' ? sql.ref('harness') : sql.ref('config_name')}, duration_bucket, n FROM ${t.stats_run_deltas}
          WHERE team_uid = ${s.teamUid} AND minute >= ${s.from}::timestamptz AND minute < ${s.to}::timestamptz AND duration_bucket >= 0
      ) x GROUP BY 1, 2 HAVING sum(n) <> 0`;
    },

    /** Deliveries (and rate-limit refusals) received in the span, by webhook, label and bucket. */
    deliveries: (s: SpanArgs, webhookUid: string | undefined): RawBuilder<DeliveryCountRow> => {
      const only = webhookUid === undefined ? sql`` : sql` AND webhook_uid = ${webhookUid}`;
      return sql`
      SELECT factory_uid, webhook_uid, label, ${bucketOf(sql.ref('x.t'), s)} AS i, sum(n)::integer AS n FROM (
        SELECT bucket AS t, factory_uid, webhook_uid, label, n FROM ${t.stats_delivery_counts}
          WHERE team_uid = ${s.teamUid} AND step_seconds = ${s.stepSeconds}::integer
            AND bucket >= ${s.from}::timestamptz AND bucket < ${s.to}::timestamptz${only}
        UNION ALL
        SELECT minute, factory_uid, webhook_uid, label, n FROM ${t.stats_delivery_deltas}
          WHERE team_uid = ${s.teamUid} AND minute >= ${s.from}::timestamptz AND minute < ${s.to}::timestamptz${only}
      ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0`;
    },

    /**
     * The team's queued runs by host and its runs held by workers, on runs_state_updated (team,
     * state, …): it reads the runs in those states only, never the ended ones.
     */
    queue: (teamUid: string): RawBuilder<QueueRow> => sql`
      SELECT state = 'QUEUED' AS queued, CASE WHEN state = 'QUEUED' THEN worker_host END AS worker_host,
        count(*)::integer AS n, min(created_at) AS oldest
      FROM ${t.runs} WHERE team_uid = ${teamUid} AND state IN ('QUEUED', 'CLAIMED', 'PENDING', 'INPROGRESS', 'BLOCKED')
      GROUP BY 1, 2`,

    /**
     * Each endpoint of the team with its attempts in the span; the last failure's error is the
     * newest failed attempt's (by time, then the delivery's insertion order, then attempt number).
     * Each is a range of callback_attempts_endpoint (endpoint, outcome, time): the counts read only
     * the span's index entries, the last failure the newest of them (migrations/0005_stats_rollups.ts).
     */
    callbacks: (s: SpanArgs): RawBuilder<CallbackRow> => {
      const inSpan = sql`a.endpoint_id = e.id AND a.at >= ${s.from}::timestamptz AND a.at < ${s.to}::timestamptz`;
      return sql`
      SELECT e.id, e.url,
        (SELECT count(*) FROM ${t.callback_attempts} a WHERE ${inSpan} AND a.ok)::integer AS delivered,
        (SELECT count(*) FROM ${t.callback_attempts} a WHERE ${inSpan} AND NOT a.ok)::integer AS failed,
        f.at AS last_failure_at, f.error AS last_error
      FROM ${t.callback_endpoints} e
      LEFT JOIN LATERAL (
        SELECT a.at, a.error FROM ${t.callback_attempts} a JOIN ${t.callback_deliveries} d ON d.id = a.delivery_id
        WHERE ${inSpan} AND NOT a.ok ORDER BY a.at DESC, d.seq DESC, a.attempt DESC LIMIT 1
      ) f ON true
      WHERE e.team_uid = ${s.teamUid}`;
    },

    /** The refusals of webhooks' rate limits, one delta per (webhook, minute): the delivery log keeps none. */
    refusals: (rows: readonly { teamUid: string; factoryUid: string; webhookUid: string; receivedAt: string }[]) => sql`
      INSERT INTO ${t.stats_delivery_deltas} (team_uid, factory_uid, webhook_uid, minute, label, n)
      SELECT team_uid, factory_uid, webhook_uid, date_bin('1 minute', at, timestamptz '1970-01-01 00:00:00+00'), 'Rate limited', count(*)
      FROM unnest(${rows.map((r) => r.teamUid)}::text[], ${rows.map((r) => r.factoryUid)}::text[],
        ${rows.map((r) => r.webhookUid)}::text[], ${rows.map((r) => r.receivedAt)}::timestamptz[]) AS r (team_uid, factory_uid, webhook_uid, at)
      GROUP BY 1, 2, 3, 4`,

    /**
     * Fold every run delta committed so far into the rollups of each grain (deleting it: one
     * statement, so a read sees it either as a delta or in a rollup), and then the delivery deltas.
     * A delta older than any grain keeps is dropped unfolded.
     */
    foldRuns: (now: string): RawBuilder<{ n: number }> => sql`
      WITH gone AS (
        DELETE FROM ${t.stats_run_deltas} RETURNING team_uid, minute, state, harness, config_name, duration_bucket, n
      ), kept AS (
        SELECT * FROM gone WHERE minute >= ${now}::timestamptz - make_interval(secs => ${LONGEST_KEEP_MS / 1000}::integer)
      ), grains AS (${grainsAt(COUNT_GRAINS, now)}
      ), duration_grains AS (${grainsAt(DURATION_GRAINS, now)}
      ), counts AS (
        INSERT INTO ${t.stats_run_counts} AS c (team_uid, step_seconds, bucket, state, n)
        SELECT team_uid, step, ${BUCKET}, state, sum(n)
        FROM kept CROSS JOIN grains WHERE ${BUCKET} >= since GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
        ON CONFLICT (team_uid, step_seconds, bucket, state) DO UPDATE SET n = c.n + EXCLUDED.n
      ), durations AS (
        INSERT INTO ${t.stats_run_durations} AS c (team_uid, step_seconds, grouped_by, bucket, key, duration_bucket, n)
        SELECT team_uid, step, g.by, ${BUCKET},
          CASE g.by WHEN 'harness' THEN harness ELSE config_name END, duration_bucket, sum(n)
        FROM kept CROSS JOIN duration_grains CROSS JOIN (VALUES ('harness'), ('name')) AS g (by)
        WHERE duration_bucket >= 0 AND ${BUCKET} >= since GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0
        ON CONFLICT (team_uid, step_seconds, grouped_by, bucket, key, duration_bucket) DO UPDATE SET n = c.n + EXCLUDED.n
      )
      SELECT count(*)::integer AS n FROM gone`,

    foldDeliveries: (now: string): RawBuilder<{ n: number }> => sql`
      WITH gone AS (
        DELETE FROM ${t.stats_delivery_deltas} RETURNING team_uid, factory_uid, webhook_uid, minute, label, n
      ), kept AS (
        SELECT * FROM gone WHERE minute >= ${now}::timestamptz - make_interval(secs => ${LONGEST_KEEP_MS / 1000}::integer)
      ), grains AS (${grainsAt(COUNT_GRAINS, now)}
      ), counts AS (
        INSERT INTO ${t.stats_delivery_counts} AS c (team_uid, step_seconds, bucket, factory_uid, webhook_uid, label, n)
        SELECT team_uid, step, ${BUCKET}, factory_uid, webhook_uid, label, sum(n)
        FROM kept CROSS JOIN grains WHERE ${BUCKET} >= since GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0
        ON CONFLICT (team_uid, step_seconds, bucket, webhook_uid, label) DO UPDATE SET n = c.n + EXCLUDED.n
      )
      SELECT count(*)::integer AS n FROM gone`,

    /** Rollup rows no range reaches from `now` any more, and rows whose count came back to zero. */
    dropOld: (now: string): RawBuilder<{ n: number }> => {
      const old = sql.join(
        STATS_GRAINS.map(
          (g) =>
            sql`(step_seconds = ${g.stepSeconds}::integer AND bucket < ${now}::timestamptz - make_interval(secs => ${g.keepMs / 1000}::integer))`,
        ),
        sql` OR `,
      );
      return sql`
      WITH a AS (DELETE FROM ${t.stats_run_counts} WHERE n = 0 OR ${old} RETURNING 1),
        b AS (DELETE FROM ${t.stats_run_durations} WHERE n = 0 OR ${old} RETURNING 1),
        c AS (DELETE FROM ${t.stats_delivery_counts} WHERE n = 0 OR ${old} RETURNING 1)
      SELECT ((SELECT count(*) FROM a) + (SELECT count(*) FROM b) + (SELECT count(*) FROM c))::integer AS n`;
    },
  };
}
