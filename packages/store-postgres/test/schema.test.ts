import { readFile } from 'node:fs/promises';
import { makeDelivery, makeRun } from '@agentrun/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, describeSchema, MIGRATIONS, migrate } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('schema');
});
afterAll(() => database?.close());

describe('migrations', () => {
  // On PostgreSQL and on PGlite (a newer server) alike: describeSchema prints what both agree on.
  it('produce exactly the committed schema dump (regenerate: npm run schema:dump -w @agentrun/store-postgres)', async () => {
    const committed = await readFile(new URL('../schema.txt', import.meta.url), 'utf8');
    expect(await describeSchema(database.db, { schema: database.schema })).toBe(committed);
  });

  it('are recorded once each, and migrating again applies nothing', async () => {
    expect(await migrate(database.db, { schema: database.schema })).toEqual({ applied: [] });
    const { rows } = await sql<{ id: string }>`SELECT id FROM ${database.table('agentrun_migrations')} ORDER BY id`.execute(database.db);
    expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
  });

  // migrations/index.ts: a function resolves names by the caller's search_path unless it pins its
  // own, and the caller is the host. A later migration's function (a trigger's too) must say
  // SET search_path FROM CURRENT.
  it('leave no function of the schema without its search_path pinned to the schema', async () => {
    const { rows } = await sql<{ name: string; config: string[] | null }>`
      SELECT p.proname AS name, p.proconfig AS config FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = ${database.schema} ORDER BY p.proname`.execute(database.db);
    expect(rows.length).toBeGreaterThan(0);
    const unpinned = rows.filter((r) => !(r.config ?? []).includes(`search_path=${database.schema}, pg_temp`)).map((r) => r.name);
    expect(unpinned).toEqual([]);
  });

  // migrations/0006_rate_window_index_scans.ts: the admissions walk a key's deleted events until a
  // vacuum; only a plain index scan marks them dead, so a bitmap scan would read them all at every
  // admission (bench/README.md, "What was tried").
  it('run the rate admissions without bitmap scans', async () => {
    const { rows } = await sql<{ name: string; config: string[] | null }>`
      SELECT p.proname AS name, p.proconfig AS config FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = ${database.schema} AND p.proname IN ('agentrun_rate_admit', 'agentrun_accept_deliveries') ORDER BY p.proname`.execute(
      database.db,
    );
    expect(rows.map((r) => [r.name, (r.config ?? []).includes('enable_bitmapscan=off')])).toEqual([
      ['agentrun_accept_deliveries', true],
      ['agentrun_rate_admit', true],
    ]);
  });

  it('refuse, naming it, a schema whose migrations table holds only migrations this version does not know', async () => {
    const schema = `${database.schema}_old`;
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(database.db);
    try {
      await sql`CREATE TABLE ${sql.id(schema, 'agentrun_migrations')} (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
        database.db,
      );
      await sql`INSERT INTO ${sql.id(schema, 'agentrun_migrations')} (id) VALUES ('0001_runs'), ('0002_control_plane')`.execute(
        database.db,
      );
      await expect(migrate(database.db, { schema })).rejects.toThrow(
        `agentrun migrate: schema "${schema}" holds agentrun tables from an unpublished development build (its migrations 0001_runs, 0002_control_plane, … are not this version's ${MIGRATIONS[0]?.id}); drop the schema`,
      );
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schema}`.execute(database.db);
      expect(rows).toEqual([{ n: 2 }]); // the migrations table and its key, nothing applied
    } finally {
      await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(database.db);
    }
  });

  it('have unique, ordered ids', () => {
    const ids = MIGRATIONS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^\d{4}_[a-z0-9_]+$/);
  });
});

describe('migrate() with a role that may only read and write rows', () => {
  it('succeeds once the schema is up to date, and the store works for it', async ({ skip }) => {
    if (database.kind !== 'postgres' || !database.url) skip('needs a PostgreSQL server to create a role');
    const { default: pg } = await import('pg');
    const { Kysely, PostgresDialect } = await import('kysely');
    const role = `agentrun_rw_${process.pid}`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT USAGE ON SCHEMA ${database.schema} TO ${role}`);
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${database.schema} TO ${role}`);
      const url = new URL(database.url as string);
      url.username = role;
      const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 1 }) }) });
      try {
        expect(await migrate(db, { schema: database.schema })).toEqual({ applied: [] });
        // Rows and the ingress functions (EXECUTE is PUBLIC's by default) with those rights only.
        const store = createPostgresStore({ db, schema: database.schema });
        const run = makeRun();
        await store.runs.create({ run, attachments: [] });
        expect(await store.deliveries.accept({ delivery: makeDelivery({ identity: 'sha256:rw' }), runs: [] })).toEqual({ accepted: true });
        expect((await store.runs.get(run.id))?.id).toBe(run.id);
      } finally {
        await db.destroy();
      }
    } finally {
      await admin.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${database.schema} FROM ${role}`);
      await admin.query(`REVOKE ALL ON SCHEMA ${database.schema} FROM ${role}`);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
  });
});
