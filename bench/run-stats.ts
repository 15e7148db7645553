import { STATS_RANGE_NAMES, type StatsRange, statsWindow } from '@agentrun/core/api';
import type { StatsSpan, StatsStore } from '@agentrun/core/store';
import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';

/**
 * The stats aggregates at a million runs and a million deliveries (docs/stores.md, "Stats"), on
 * the store's own tables: the rows are inserted with INSERT … SELECT generate_series through the
 * store's triggers (so the deltas are the ones a store writes), folded once by the maintenance
 * fold, then each aggregate is read for each range: the least and the median wall time of CALLS
 * reads through the store, and the server's time and shared buffers of one (EXPLAIN ANALYZE of the
 * very statement the store sent). Then what the delta triggers cost the writes that fire them: a
 * run insert, a state change, a delivery insert, each BATCH rows in a rolled-back transaction, from
 * EXPLAIN ANALYZE's trigger times.
 */
const RUNS = 1_000_000;
const DELIVERIES = 1_000_000;
const CHUNK = 200_000;
const CALLS = 9;
const BATCH = 2_000;
const TEAM = 'acme';
/**
 * STATS_ONLY=callbacks (or =deliveries) seeds the callback log (the deliveries) alone, reads only
 * its aggregates (which read nothing else) and prints their plans.
 */
const ONLY = process.env.STATS_ONLY;
const ONLY_CALLBACKS = ONLY === 'callbacks';

export async function measureStats(url: string, schema: string): Promise<Record<string, number>> {
  /** The last statement the store sent, to explain it: each connection's queries are watched. */
  let last: { sql: string; parameters: readonly unknown[] } | undefined;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('connect', (connection) => {
    const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
    (connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [first, values] = args;
      const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
      if (text !== undefined)
        last = { sql: text, parameters: (Array.isArray(values) ? values : (first as { values?: unknown[] }).values) ?? [] };
      return query(...args);
    };
  });
  const store = createPostgresStore({ pool, schema, listen: false });
  await store.migrate();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const now = Date.now();
  const figures: Record<string, number> = {};
  try {
    const t0 = performance.now();
    await seed(client, schema, now);
    figures['stats.seed_s'] = (performance.now() - t0) / 1000;
    const deltas = await count(client, `${schema}.stats_run_deltas`);
    const t1 = performance.now();
    const folded = await store.stats.compact({ now: new Date(now).toISOString() });
    figures['stats.fold_ms'] = performance.now() - t1;
    console.log(
      `${RUNS} runs and ${DELIVERIES} deliveries of one team over 7 days (+ refusals, callback attempts) seeded in ${figures['stats.seed_s']?.toFixed(0)} s; ` +
        `fold of ${deltas} run deltas and the delivery deltas: ${folded} rows in ${figures['stats.fold_ms']?.toFixed(0)} ms`,
    );
    await client.query(`VACUUM (ANALYZE) ${schema}.runs, ${schema}.deliveries, ${schema}.stats_run_counts, ${schema}.stats_run_durations,
      ${schema}.stats_delivery_counts, ${schema}.stats_run_deltas, ${schema}.stats_delivery_deltas, ${schema}.callback_endpoints,
      ${schema}.callback_deliveries, ${schema}.callback_attempts`);

    const rows: Record<string, string | number>[] = [];
    const aggregates: [string, (s: StatsStore, span: StatsSpan) => Promise<unknown>][] = [
      ['runs', (s, span) => s.runs(span)],
      ['run-durations by harness', (s, span) => s.runDurations({ ...span, by: 'harness' })],
      ['run-durations by name', (s, span) => s.runDurations({ ...span, by: 'name' })],
      ['deliveries', (s, span) => s.deliveries(span)],
      ['deliveries of one webhook', (s, span) => s.deliveries({ ...span, webhookUid: 'wh_7' })],
      ['queue', (s, span) => s.queue(span.teamUid)],
      ['callbacks', (s, span) => s.callbacks(span)],
    ];
    for (const range of STATS_RANGE_NAMES) {
      const span = spanOf(range, now);
      for (const [name, read] of aggregates) {
        if ((name === 'queue' && range !== '1h') || (name === 'callbacks' && range === '1h')) continue;
        if (ONLY !== undefined && !name.startsWith(ONLY)) continue;
        const times: number[] = [];
        for (let i = 0; i < CALLS; i++) {
          const t = performance.now();
          await read(store.stats, span);
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        const plan = last ? await explain(client, last.sql, last.parameters) : undefined;
        if (ONLY !== undefined && last) {
          const { rows: lines } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${last.sql}`, [...last.parameters]);
          console.log(`${name} ${range}:\n${lines.map((l) => l['QUERY PLAN']).join('\n')}`);
        }
        const label = name === 'queue' ? 'queue (no range)' : `${name} ${range}`;
        rows.push({
          aggregate: label,
          least_ms: round(times[0] ?? Number.NaN),
          median_ms: round(times[Math.floor(times.length / 2)] ?? Number.NaN),
          server_ms: round(plan?.ms ?? Number.NaN),
          shared_buffers: plan?.buffers ?? Number.NaN,
        });
        const key = `stats.${label.replace(/[^a-z0-9]+/gi, '_').replace(/_$/, '')}`;
        figures[`${key}_least_ms`] = times[0] ?? Number.NaN;
        figures[`${key}_median_ms`] = times[Math.floor(times.length / 2)] ?? Number.NaN;
      }
    }
    console.table(rows);
    if (ONLY === undefined) Object.assign(figures, await triggerCosts(client, schema, now));
    return figures;
  } finally {
    await client.end();
    await store.close();
    await pool.end();
  }
}

const round = (ms: number) => Number(ms.toFixed(2));

const spanOf = (range: StatsRange, now: number): StatsSpan => {
  const w = statsWindow(range, now);
  return { teamUid: TEAM, from: new Date(w.fromMs).toISOString(), to: new Date(w.toMs).toISOString(), stepSeconds: w.stepMs / 1000 };
};

const count = async (client: pg.Client, table: string) => Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

/** Runs (mostly ended, 1 % queued, 1 % in progress; 12 config names, 4 harnesses), deliveries over 20 webhooks, refusals, callback attempts. */
async function seed(client: pg.Client, schema: string, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  if (!ONLY_CALLBACKS) await seedRunsAndDeliveries(client, schema, at);
  if (ONLY === 'deliveries') return;
  await client.query(
    `INSERT INTO ${schema}.callback_endpoints (id, team_uid, url, secret_ciphertext, created_at, updated_at)
     SELECT 'cb_' || i, '${TEAM}', 'https://hooks.example.com/' || i, 'sealed', $1::timestamptz, $1::timestamptz FROM generate_series(1, 3) AS i`,
    [at],
  );
  await client.query(
    `INSERT INTO ${schema}.callback_deliveries (id, endpoint_id, team_uid, event_type, run_id, to_state, occurred_at, window_started_at, updated_at, status)
     SELECT 'cbd_' || i, 'cb_' || (1 + i % 3), '${TEAM}', 'run.state_changed', 'run_' || i, 'SUCCEEDED', t, t, t, 'succeeded'
     FROM generate_series(1, 30000) AS i, LATERAL (SELECT $1::timestamptz - (random() + 0 * i) * interval '7 days' AS t) x`,
    [at],
  );
  await client.query(
    `INSERT INTO ${schema}.callback_attempts (delivery_id, endpoint_id, attempt, at, status_code, duration_ms, error, ok)
     SELECT d.id, d.endpoint_id, a, d.occurred_at + a * interval '1 second', CASE WHEN a = 1 AND d.endpoint_id = 'cb_1' THEN 500 ELSE 200 END, 20,
       CASE WHEN a = 1 AND d.endpoint_id = 'cb_1' THEN 'HTTP 500' END, NOT (a = 1 AND d.endpoint_id = 'cb_1')
     FROM ${schema}.callback_deliveries d, generate_series(1, 2) AS a`,
  );
}

/** The runs and deliveries, and the refusals (as the store counts them). */
async function seedRunsAndDeliveries(client: pg.Client, schema: string, at: string): Promise<void> {
  for (let from = 1; from <= (ONLY === 'deliveries' ? 0 : RUNS); from += CHUNK) {
    await client.query(
      `INSERT INTO ${schema}.runs (id, team_uid, title, prompt, state, created_at, updated_at, started_at, source, creator, config, conversation_id)
       SELECT 'run_' || i, '${TEAM}', 'Triage', 'Triage the error.', s.state, c, c + d, c, 'API',
         '{"type":"user","uid":"u1"}'::jsonb,
         jsonb_build_object('name', 'job-' || (i % 12), 'harness', jsonb_build_object('type', (ARRAY['oz', 'claude', 'codex', 'gemini'])[1 + i % 4]),
           'worker_host', CASE WHEN i % 300 = 0 THEN 'gpu' END),
         'conv_' || i
       FROM generate_series($1::int, $2::int) AS i,
         LATERAL (SELECT $3::timestamptz - (random() + 0 * i) * interval '7 days' AS c,
           make_interval(secs => exp(random() * ln(3600) + 0 * i)) AS d) x,
         LATERAL (SELECT CASE WHEN i % 100 = 0 THEN 'QUEUED' WHEN i % 100 = 1 THEN 'INPROGRESS'
           ELSE (ARRAY['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'])[1 + i % 6] END AS state) s`,
      [from, Math.min(RUNS, from + CHUNK - 1), at],
    );
  }
  for (let from = 1; from <= DELIVERIES; from += CHUNK) {
    await client.query(
      `INSERT INTO ${schema}.deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload, run_ids)
       SELECT 'dlv_' || i, '${TEAM}', 'fac_' || (i % 20 / 4), 'wh_' || (i % 20), 'id_' || i, 1024,
         $3::timestamptz - random() * interval '7 days',
         CASE i % 25 WHEN 0 THEN 'Duplicate' WHEN 1 THEN 'Rejected (auth)' WHEN 2 THEN 'Rejected (invalid JSON)' ELSE 'Accepted' END,
         NULL, CASE WHEN i % 25 < 3 THEN NULL WHEN i % 3 = 0 THEN '{}'::text[] ELSE ARRAY['run_' || i] END
       FROM generate_series($1::int, $2::int) AS i`,
      [from, Math.min(DELIVERIES, from + CHUNK - 1), at],
    );
  }
  // Refusals, as the store counts them (stats-sql.ts `refusals`): one delta per webhook and minute.
  await client.query(
    `INSERT INTO ${schema}.stats_delivery_deltas (team_uid, factory_uid, webhook_uid, minute, label, n)
     SELECT '${TEAM}', 'fac_' || (i % 20 / 4), 'wh_' || (i % 20), date_bin('1 minute', $1::timestamptz - (random() + 0 * i) * interval '7 days', timestamptz '1970-01-01 00:00:00+00'),
       'Rate limited', 1 + i % 5
     FROM generate_series(1, 20000) AS i`,
    [at],
  );
}

interface ExplainJson
  extends Array<{
    'Execution Time': number;
    Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
    Triggers?: { 'Trigger Name': string; Time: number; Calls: number }[];
  }> {}

async function explain(client: pg.Client, text: string, parameters: readonly unknown[]): Promise<{ ms: number; buffers: number }> {
  const { rows } = await client.query<{ 'QUERY PLAN': ExplainJson }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, [...parameters]);
  const [top] = rows[0]?.['QUERY PLAN'] ?? [];
  if (!top) throw new Error('EXPLAIN gave no plan');
  return { ms: top['Execution Time'], buffers: top.Plan['Shared Hit Blocks'] + top.Plan['Shared Read Blocks'] };
}

/**
 * What the stats triggers cost each write that fires them, per row, from EXPLAIN ANALYZE's trigger
 * times: BATCH run inserts in one statement (runs_stats_inserted), BATCH state changes
 * (runs_stats_changed, per row), BATCH delivery inserts (deliveries_stats_inserted); each in a
 * rolled-back transaction, the least of 5.
 */
async function triggerCosts(client: pg.Client, schema: string, now: number): Promise<Record<string, number>> {
  const at = new Date(now).toISOString();
  const shapes: Record<string, { sql: string; trigger: string }> = {
    run_insert: {
      sql: `INSERT INTO ${schema}.runs (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
        SELECT 'new_' || i || '_' || random(), '${TEAM}', 't', 'p', 'QUEUED', $1::timestamptz, $1::timestamptz, 'API', '{}'::jsonb,
          jsonb_build_object('name', 'job-' || (i % 12)), 'c' FROM generate_series(1, ${BATCH}) AS i`,
      trigger: 'runs_stats_inserted',
    },
    state_change: {
      sql: `UPDATE ${schema}.runs SET state = 'INPROGRESS', updated_at = $1::timestamptz
        WHERE id IN (SELECT id FROM ${schema}.runs WHERE team_uid = '${TEAM}' AND state = 'QUEUED' LIMIT ${BATCH})`,
      trigger: 'runs_stats_changed',
    },
    delivery_insert: {
      sql: `INSERT INTO ${schema}.deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
        SELECT 'new_' || i || '_' || random(), '${TEAM}', 'fac_0', 'wh_' || (i % 20), 'new_' || i || '_' || random(), 10,
          $1::timestamptz, 'Accepted', NULL FROM generate_series(1, ${BATCH}) AS i`,
      trigger: 'deliveries_stats_inserted',
    },
  };
  const figures: Record<string, number> = {};
  const rows: Record<string, string | number>[] = [];
  for (const [name, shape] of Object.entries(shapes)) {
    const per: { trigger: number; total: number; without: number }[] = [];
    for (let round = 0; round < 5; round++) {
      const once = async (disable: boolean) => {
        await client.query('BEGIN');
        try {
          if (disable)
            await client.query(
              `ALTER TABLE ${schema}.${shape.trigger.startsWith('runs') ? 'runs' : 'deliveries'} DISABLE TRIGGER ${shape.trigger}`,
            );
          const { rows: plan } = await client.query<{ 'QUERY PLAN': ExplainJson }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${shape.sql}`, [
            at,
          ]);
          const [top] = plan[0]?.['QUERY PLAN'] ?? [];
          const mine = top?.Triggers?.find((t) => t['Trigger Name'] === shape.trigger);
          return { total: (top?.['Execution Time'] ?? Number.NaN) * 1000, trigger: (mine?.Time ?? 0) * 1000 };
        } finally {
          await client.query('ROLLBACK');
        }
      };
      const on = await once(false);
      const off = await once(true);
      per.push({ trigger: on.trigger / BATCH, total: on.total / BATCH, without: off.total / BATCH });
    }
    const least = (k: 'trigger' | 'total' | 'without') => Math.min(...per.map((p) => p[k]));
    rows.push({
      write: `${name.replace('_', ' ')} (${BATCH} in one statement)`,
      trigger_us_per_row: round(least('trigger')),
      statement_us_per_row: round(least('total')),
      without_trigger_us_per_row: round(least('without')),
    });
    figures[`stats.trigger_${name}_us`] = least('trigger');
    figures[`stats.${name}_us`] = least('total');
    figures[`stats.${name}_without_trigger_us`] = least('without');
  }
  console.table(rows);
  return figures;
}
