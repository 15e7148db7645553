import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';
import { measureStats } from './run-stats.js';

/**
 * What each index of `runs` costs a run's INSERT (docs/production.md, "What each index serves").
 *
 * The table is the store's own (its migrations), preloaded with PRELOAD runs shaped like a webhook
 * delivery's: a factory, an automation, a config with name, model, environment and skill, so every
 * partial index takes the row (the costliest case; a run without them skips those indexes). Then,
 * in rounds, a batch of BATCH runs is inserted in one statement with every index, and once with
 * each index dropped, inside a transaction that is rolled back (so the next round meets the same
 * table). An index's cost is the difference in shared buffers the INSERT touched per run (steady:
 * its own work, not other sessions'); the server's time per run (EXPLAIN ANALYZE) is given for
 * the whole sets, as one index's share of it drowns in a shared machine's noise. The least over
 * ROUNDS rounds: noise only adds.
 *
 * Then whether the run's two kinds of UPDATE are HOT (heap-only: no index touched): a heartbeat
 * (`lease_expires_at`) and a state change (`state`, `updated_at`), counted by
 * `pg_stat_xact_user_tables` in the transaction that made them.
 */
const PRELOAD = 100_000;
/**
 * What `runs` had before migration 0025 (0001, 0017) and no longer has: the second phase adds these
 * (the first two under other names, beside their partial successors) to compare both sets in one run.
 */
const DROPPED_BY_0025 = [
  'CREATE INDEX old_environment_created ON {runs} (team_uid, environment_id, created_at, id)',
  'CREATE INDEX old_skill_created ON {runs} (team_uid, skill_spec, created_at, id)',
  'CREATE INDEX old_state_created ON {runs} (team_uid, state, created_at, id)',
  'CREATE INDEX old_name_created ON {runs} (team_uid, config_name, created_at, id)',
  'CREATE INDEX old_model_updated ON {runs} (team_uid, model_id, updated_at, id)',
  'CREATE INDEX old_model_created ON {runs} (team_uid, model_id, created_at, id)',
  'CREATE INDEX old_creator_created ON {runs} (team_uid, creator_uid, created_at, id)',
  'CREATE INDEX old_source_created ON {runs} (team_uid, source, created_at, id)',
  'CREATE INDEX old_environment_updated ON {runs} (team_uid, environment_id, updated_at, id)',
  'CREATE INDEX old_skill_updated ON {runs} (team_uid, skill_spec, updated_at, id)',
  'CREATE INDEX old_factory_created ON {runs} (team_uid, factory_uid, created_at, id) WHERE factory_uid IS NOT NULL',
  'CREATE INDEX old_automation_created ON {runs} (team_uid, automation_id, created_at, id) WHERE automation_id IS NOT NULL',
];
/** What 0025 added: dropped in the second phase to measure the set before it. */
const ADDED_BY_0025 = ['runs_environment_created', 'runs_skill_created', 'runs_inbox'];
const BATCH = 2_000;
const ROUNDS = 5;

export const runIndexesGroup: BenchGroup = {
  name: 'indexes',
  description:
    'what each index of runs costs an INSERT (time and buffers per run), which UPDATEs stay HOT, and the stats aggregates at 1M runs and 1M deliveries, PostgreSQL store',
  // INDEXES_PART=runs or =stats measures one half alone.
  run: async () => ({
    ...(process.env.INDEXES_PART === 'stats' ? {} : await inScratchSchema('bench_idx', measure)),
    ...(process.env.INDEXES_PART === 'runs' ? {} : await inScratchSchema('bench_stats', measureStats)),
  }),
};

const insertSql = (schema: string) => `
INSERT INTO ${schema}.runs (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config,
                  conversation_id, factory_uid, trigger)
SELECT gen_random_uuid()::text, (ARRAY['acme','globex','team-3','team-4'])[1 + i % 4], 'Triage errors in ingest',
       'Triage errors in ingest. Keep the change small and add a test. Delivery #' || i || '.', 'QUEUED',
       now() - (i % 100000) * interval '1 second', now() - (i % 100000) * interval '1 second',
       'WEBHOOK', jsonb_build_object('type', 'service_account', 'uid', 'factory-' || (i % 50)),
       jsonb_build_object('name', 'triage-' || (i % 12), 'model_id', 'claude-sonnet-4', 'environment_id', 'env_' || (i % 20),
                          'skill_spec', 'acme/skills:triage-' || (i % 9)),
       gen_random_uuid()::text, 'fac_' || (i % 50), jsonb_build_object('automation_id', 'aut_' || (i % 200))
FROM generate_series($1::int, $2::int) AS g(i)`;

async function measure(url: string, schema: string): Promise<Record<string, number>> {
  const store = createPostgresStore({ connectionString: url, schema });
  await store.migrate();
  await store.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const runs = `${schema}.runs`;
  try {
    await client.query(insertSql(schema), [1, PRELOAD]);
    await client.query(`VACUUM (ANALYZE) ${runs}`);
    const indexes = (
      await client.query<{ name: string; def: string }>(
        `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = $1::regclass AND NOT i.indisprimary ORDER BY c.relname`,
        [runs],
      )
    ).rows;
    console.log(`${PRELOAD} runs, ${indexes.length} indexes besides the primary key; ${ROUNDS} rounds of ${BATCH} inserts`);

    let next = PRELOAD + 1;
    /**
     * One batch inserted in a rolled-back transaction, with `drop` dropped first: per run, the
     * server's time and the shared buffers the INSERT touched (its own, not other sessions').
     */
    const batch = async (drop: string[]): Promise<{ us: number; buffers: number }> => {
      await client.query('BEGIN');
      try {
        for (const name of drop) await client.query(`DROP INDEX ${schema}.${name}`);
        const explained = await client.query<{ 'QUERY PLAN': ExplainJson }>(
          `EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) ${insertSql(schema)}`,
          [next, next + BATCH - 1],
        );
        next += BATCH;
        const [top] = explained.rows[0]?.['QUERY PLAN'] ?? [];
        if (!top) throw new Error('EXPLAIN gave no plan');
        const buffers = top.Plan['Shared Hit Blocks'] + top.Plan['Shared Read Blocks'];
        return { us: (top['Execution Time'] * 1000) / BATCH, buffers: buffers / BATCH };
      } finally {
        await client.query('ROLLBACK');
      }
    };

    const variants: { label: string; drop: string[] }[] = [
      { label: 'all', drop: [] },
      { label: 'none', drop: indexes.map((i) => i.name) },
      ...indexes.map((i) => ({ label: i.name, drop: [i.name] })),
    ];
    const samples = new Map<string, { us: number[]; buffers: number[] }>(
      [...variants.map((v) => v.label), 'before_0025', 'after_0025'].map((label) => [label, { us: [], buffers: [] }]),
    );
    const rounds = async (which: { label: string; drop: string[] }[]) => {
      for (let round = 0; round < ROUNDS; round++) {
        await client.query(`VACUUM ${runs}`); // the rolled-back rows out of the way
        await batch([]); // untimed: the first batch after VACUUM pays for what it left
        // Each round starts at another variant, so none is always the first.
        for (let k = 0; k < which.length; k++) {
          const v = which[(round + k) % which.length] as (typeof which)[number];
          const s = await batch(v.drop);
          samples.get(v.label)?.us.push(s.us);
          samples.get(v.label)?.buffers.push(s.buffers);
        }
      }
    };
    await rounds(variants);
    const hot = await hotUpdates(client, runs);
    // Both sets in one table: the old indexes added back, then each set measured without the other's.
    for (const def of DROPPED_BY_0025) await client.query(def.replace('{runs}', runs));
    const old = DROPPED_BY_0025.map((d) => /INDEX (\w+)/.exec(d)?.[1] as string);
    await rounds([
      { label: 'before_0025', drop: ADDED_BY_0025 },
      { label: 'after_0025', drop: old },
    ]);
    const least = (label: string, key: 'us' | 'buffers') => Math.min(...(samples.get(label)?.[key] ?? [Number.NaN]));
    const figures: Record<string, number> = {
      'indexes.count': indexes.length + 1,
      'indexes.insert_us_per_run': least('all', 'us'),
      'indexes.insert_buffers_per_run': least('all', 'buffers'),
      'indexes.before_0025_us_per_run': least('before_0025', 'us'),
      'indexes.after_0025_us_per_run': least('after_0025', 'us'),
      'indexes.before_0025_buffers_per_run': least('before_0025', 'buffers'),
      'indexes.after_0025_buffers_per_run': least('after_0025', 'buffers'),
      'indexes.heap_only_us_per_run': least('none', 'us'),
      'indexes.heap_only_buffers_per_run': least('none', 'buffers'),
    };
    const rows = indexes.map((i) => ({
      index: i.name,
      buffers_per_run: least('all', 'buffers') - least(i.name, 'buffers'),
      definition: i.def.replace(/^CREATE INDEX \S+ ON \S+ USING btree /, ''),
    }));
    console.table(rows.map((r) => ({ ...r, buffers_per_run: Number(r.buffers_per_run.toFixed(2)) })));
    for (const r of rows) {
      figures[`indexes.${r.index}_buffers`] = r.buffers_per_run;
    }

    Object.assign(figures, hot);
    return figures;
  } finally {
    await client.end();
  }
}

/**
 * The share of each kind of UPDATE that PostgreSQL made heap-only, on 1,000 queued runs: the claim
 * (state, updated_at, the lease), then the heartbeat on the same runs (lease_expires_at alone).
 */
async function hotUpdates(client: pg.Client, runs: string): Promise<Record<string, number>> {
  const which = `WHERE id IN (SELECT id FROM ${runs} ORDER BY id LIMIT 1000)`;
  const shapes = {
    state: `UPDATE ${runs} SET state = 'CLAIMED', updated_at = now(), lease_worker_id = 'w', lease_expires_at = now() + interval '30 seconds' ${which}`,
    heartbeat: `UPDATE ${runs} SET lease_expires_at = now() + interval '60 seconds' ${which}`,
  };
  const counts = async () => {
    const stats = await client.query<{ upd: string; hot: string }>(
      'SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables WHERE relid = $1::regclass',
      [runs],
    );
    return { upd: Number(stats.rows[0]?.upd ?? 0), hot: Number(stats.rows[0]?.hot ?? 0) };
  };
  const figures: Record<string, number> = {};
  await client.query('BEGIN');
  try {
    for (const [name, update] of Object.entries(shapes)) {
      const before = await counts();
      await client.query(update);
      const after = await counts();
      figures[`indexes.hot_share_${name}`] = (after.hot - before.hot) / (after.upd - before.upd);
    }
  } finally {
    await client.query('ROLLBACK');
  }
  return figures;
}

interface ExplainJson extends Array<{ 'Execution Time': number; Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }> {}
