import { makeRun } from '@agentrun/core/testing';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../src/db.js';
import { migrate } from '../src/migrate.js';
import { MIGRATIONS } from '../src/migrations/index.js';
import { createPostgresStore } from '../src/postgres-store.js';
import { RUN_COLUMNS, runToRow } from '../src/rows.js';
import { openTestDatabase, scratchSchema, type TestDatabase } from './support/database.js';

// Migration 0004 (migrations/0004_delivery_details.ts) on a schema that already holds deliveries:
// an evaluated one gets the runs naming it, one that matched nothing an empty list, one awaiting
// evaluation and a rejected entry none; the stats' rollups (0005, after it) count them from those
// lists, the one that matched nothing as filtered out, and the callback attempts by their endpoint.
let database: TestDatabase;
let db: Db | undefined;
let schema: string;
beforeAll(async () => {
  database = await openTestDatabase('delivery_details_migration');
  if (!database.url) return;
  schema = scratchSchema('delivery_details_upgrade');
  db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }) });
});
afterAll(async () => {
  if (db) {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
    await db.destroy();
  }
  await database?.close();
});

it("gives evaluated deliveries the runs naming them, leaves the others' unknown; the stats count from them", async ({ skip }) => {
  if (!db) return skip('needs a PostgreSQL server');
  await migrate(db, { schema, migrations: MIGRATIONS.filter((m) => m.id < '0004') });
  const t = (name: string) => sql.table(`${schema}.${name}`);
  const delivery = (id: string, status: string, due: string | null) =>
    sql`INSERT INTO ${t('deliveries')} (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload, evaluation_due_at)
      VALUES (${id}, 'team-1', 'f1', 'w1', ${status === 'Accepted' ? `h:${id}` : null}, 2, now(), ${status},
        ${status === 'Accepted' ? Buffer.from('{}') : null}, ${due}::timestamptz)`.execute(db as Db);
  await delivery('started', 'Accepted', null);
  await delivery('nothing', 'Accepted', null);
  await delivery('pending', 'Accepted', new Date().toISOString());
  await delivery('refused', 'Rejected (auth)', null);
  // A callback endpoint's attempts: 0005 gives each its delivery's endpoint, which the stats read by.
  await sql`INSERT INTO ${t('callback_endpoints')} (id, team_uid, url, secret_ciphertext, created_at, updated_at)
    VALUES ('cb1', 'team-1', 'https://hooks.example.com/1', 'sealed', now(), now())`.execute(db);
  await sql`INSERT INTO ${t('callback_deliveries')} (id, endpoint_id, team_uid, event_type, run_id, to_state, occurred_at, window_started_at, updated_at, status)
    VALUES ('cbd1', 'cb1', 'team-1', 'run.state_changed', 'run1', 'SUCCEEDED', now(), now(), now(), 'succeeded')`.execute(db);
  await sql`INSERT INTO ${t('callback_attempts')} (delivery_id, attempt, at, status_code, duration_ms, error, ok)
    VALUES ('cbd1', 1, now(), 500, 20, 'HTTP 500', false), ('cbd1', 2, now(), 200, 20, NULL, true)`.execute(db);
  const runs = [1, 2].map((n) =>
    makeRun({
      source: 'WEBHOOK',
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      trigger: { factory_uid: 'f1', automation_id: `a${n}`, webhook_uid: 'w1', delivery_id: 'started' },
    }),
  );
  await sql`INSERT INTO ${t('runs')} (${sql.raw(RUN_COLUMNS.join(', '))})
    SELECT ${sql.raw(RUN_COLUMNS.map((c) => `r.${c}`).join(', '))}
    FROM jsonb_populate_recordset(NULL::${t('runs')}, ${JSON.stringify(runs.map(runToRow))}::jsonb) r`.execute(db);

  await migrate(db, { schema });
  const store = createPostgresStore({ db, schema });
  const runIds = async (id: string) => (await store.deliveries.get('team-1', 'w1', id))?.runIds;
  expect(await runIds('started')).toEqual(runs.map((r) => r.id));
  expect(await runIds('nothing')).toEqual([]);
  expect(await runIds('pending')).toBeUndefined();
  expect(await runIds('refused')).toBeUndefined();

  const step = 7_200_000;
  const from = Math.floor(Date.now() / step) * step - step;
  const [counts] = await store.stats.deliveries({
    teamUid: 'team-1',
    from: new Date(from).toISOString(),
    to: new Date(from + 2 * step).toISOString(),
    stepSeconds: 7200,
  });
  const sums = Object.fromEntries(Object.entries(counts?.byLabel ?? {}).map(([label, n]) => [label, n.reduce((a, b) => a + b, 0)]));
  expect(sums).toEqual({ Accepted: 2, 'Filtered out': 1, Duplicate: 0, Rejected: 1, 'Rate limited': 0 });
  const callbacks = await store.stats.callbacks({
    teamUid: 'team-1',
    from: new Date(from).toISOString(),
    to: new Date(from + 2 * step).toISOString(),
    stepSeconds: 7200,
  });
  expect(callbacks.map(({ lastFailureAt: _at, ...c }) => c)).toEqual([
    { endpointId: 'cb1', url: 'https://hooks.example.com/1', delivered: 1, failed: 1, lastError: 'HTTP 500' },
  ]);
});
