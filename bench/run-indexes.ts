import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * What each index of `runs` costs a run's INSERT (docs/production.md, "What each index serves").
 *
 * The table is the store's own (its migrations), preloaded with PRELOAD runs shaped like a webhook
 * delivery's: a factory, an automation, a config with name, model, environment and skill, so every
 * partial index takes the row (the costliest case; a run without them skips those indexes). Then,
 * in rounds, a batch of BATCH runs is inserted in one statement with every index, and once with
 * each index dropped, inside a transaction that is rolled back (so the next round meets the same
 * table). An index's cost is the difference: the time per run (server side) and the WAL bytes per
 * run. The least over ROUNDS rounds: noise (other work, a checkpoint's full-page images) only adds.
 *
 * Then whether the run's two kinds of UPDATE are HOT (heap-only: no index touched): a heartbeat
 * (`lease_expires_at`) and a state change (`state`, `updated_at`), counted by
 * `pg_stat_xact_user_tables` in the transaction that made them.
 */
const PRELOAD = 100_000;
const BATCH = 2_000;
const ROUNDS = 5;

export const runIndexesGroup: BenchGroup = {
  name: 'indexes',
  description: 'what each index of runs costs an INSERT (time and WAL per run), and which UPDATEs stay HOT, PostgreSQL store',
  run: () => inScratchSchema('bench_idx', measure),
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
    /** One batch inserted in a rolled-back transaction, with `drop` dropped first: µs and WAL bytes per run. */
    const batch = async (drop: string[]): Promise<{ us: number; wal: number }> => {
      await client.query('BEGIN');
      try {
        for (const name of drop) await client.query(`DROP INDEX ${schema}.${name}`);
        const before = (await client.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]?.lsn;
        const t = performance.now();
        await client.query(insertSql(schema), [next, next + BATCH - 1]);
        const ms = performance.now() - t;
        const wal = await client.query<{ bytes: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS bytes`, [before]);
        next += BATCH;
        return { us: (ms * 1000) / BATCH, wal: Number(wal.rows[0]?.bytes) / BATCH };
      } finally {
        await client.query('ROLLBACK');
      }
    };

    const variants: { label: string; drop: string[] }[] = [
      { label: 'all', drop: [] },
      { label: 'none', drop: indexes.map((i) => i.name) },
      ...indexes.map((i) => ({ label: i.name, drop: [i.name] })),
    ];
    const samples = new Map<string, { us: number[]; wal: number[] }>(variants.map((v) => [v.label, { us: [], wal: [] }]));
    await batch([]); // warm up
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of variants) {
        const s = await batch(v.drop);
        samples.get(v.label)?.us.push(s.us);
        samples.get(v.label)?.wal.push(s.wal);
      }
      await client.query(`VACUUM ${runs}`); // the rolled-back rows out of the way
    }
    const least = (label: string, key: 'us' | 'wal') => Math.min(...(samples.get(label)?.[key] ?? [Number.NaN]));
    const figures: Record<string, number> = {
      'indexes.count': indexes.length + 1,
      'indexes.insert_us_per_run': least('all', 'us'),
      'indexes.insert_wal_bytes_per_run': least('all', 'wal'),
      'indexes.heap_only_us_per_run': least('none', 'us'),
      'indexes.heap_only_wal_bytes_per_run': least('none', 'wal'),
    };
    const rows = indexes.map((i) => ({
      index: i.name,
      us_per_run: least('all', 'us') - least(i.name, 'us'),
      wal_bytes_per_run: least('all', 'wal') - least(i.name, 'wal'),
      definition: i.def.replace(/^CREATE INDEX \S+ ON \S+ USING btree /, ''),
    }));
    console.table(
      rows.map((r) => ({ ...r, us_per_run: Number(r.us_per_run.toFixed(2)), wal_bytes_per_run: Math.round(r.wal_bytes_per_run) })),
    );
    for (const r of rows) figures[`indexes.${r.index}_us`] = r.us_per_run;

    Object.assign(figures, await hotUpdates(client, runs));
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
