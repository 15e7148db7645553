import type { Store } from '@agentrun/core';
import { makeDelivery, makeRun, makeWebhook, testPrincipal } from '@agentrun/core/testing';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, DEFAULT_SCHEMA, describeSchema, MIGRATIONS, migrate } from '../src/index.js';
import { openTestDatabase, scratchSchema, type TestDatabase } from './support/database.js';

// agentrun as a guest in a host's database (docs/production.md, "Where the tables go: the `schema`
// option"): its objects in a schema of its own whatever the connections' search_path, beside host
// tables of the same names; two schemas, two independent stores. Needs a server: pools with
// search paths of their own, several connections.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('guest');
});
afterAll(() => db?.close());

const NEEDS_SERVER = 'needs a PostgreSQL server: pools with search paths of their own';

/** Schemas and pools a test made; dropped and ended after it. */
const schemas: string[] = [];
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
  if (schemas.length === 0) return; // the tests that need no server made none
  const admin = new pg.Client({ connectionString: db.url as string });
  await admin.connect();
  for (const s of schemas.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await admin.end();
});

const newSchema = (label: string) => {
  const schema = scratchSchema(label);
  schemas.push(schema);
  return schema;
};
/** A pool whose sessions have `searchPath`, as a host may configure its own. */
const poolOn = (searchPath: string, max = 4) => {
  const pool = new pg.Pool({ connectionString: db.url as string, max, options: `-c search_path=${searchPath}` });
  pools.push(pool);
  return pool;
};
const kysely = (pool: pg.Pool) => new Kysely({ dialect: new PostgresDialect({ pool }) });
const query = async <R extends pg.QueryResultRow>(pool: pg.Pool, text: string, values: unknown[] = []) =>
  (await pool.query<R>(text, values)).rows;

/** Tables, sequences and functions of a schema, by kind and name. */
async function objectsIn(pool: pg.Pool, schema: string): Promise<string[]> {
  const rows = await query<{ o: string }>(
    pool,
    `SELECT CASE c.relkind WHEN 'r' THEN 'table ' WHEN 'S' THEN 'sequence ' WHEN 'i' THEN 'index ' ELSE c.relkind::text || ' ' END || c.relname AS o
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
     UNION ALL
     SELECT 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
     ORDER BY 1`,
    [schema],
  );
  return rows.map((r) => r.o);
}

/** Every kind of write and read a server makes, through `store`; what it wrote, to read back. */
async function exercise(store: Store) {
  const run = makeRun();
  await store.runs.create({
    run,
    attachments: [{ runId: run.id, fileName: 'a.txt', mimeType: 'text/plain', data: new Uint8Array([1, 2]) }],
  });
  const claimed = await store.runs.claimNext({
    workerId: 'w',
    leaseExpiresAt: '2026-01-01T00:10:00.000Z',
    now: '2026-01-01T00:00:01.000Z',
  });
  await store.apiKeys.create({ hash: `hash-${run.id}`, prefix: 'ar_x', principal: testPrincipal(), createdAt: run.createdAt });
  const webhook = makeWebhook();
  await store.webhooks.create({ webhook, maxPerFactory: 20 });
  // The ingress functions: accept writes a run through jsonb_populate_recordset(NULL::runs, …).
  const delivery = makeDelivery({ webhookUid: webhook.uid, identity: `sha256:${run.id}` });
  const deliveryRun = makeRun({ source: 'WEBHOOK' });
  const admit = { key: `k-${run.id}`, limit: 5, windowMs: 60_000, now: '2026-01-01T00:00:00.000Z' };
  const accepted = await store.deliveries.accept({ delivery, runs: [{ run: deliveryRun, attachments: [] }], admit });
  const duplicate = await store.deliveries.accept({
    delivery: makeDelivery({ webhookUid: webhook.uid, identity: delivery.identity }),
    runs: [],
  });
  const admitted = await store.rateLimits.admit(admit);
  expect({ claimed: claimed?.id, accepted, duplicate, admitted }).toEqual({
    claimed: run.id,
    accepted: { accepted: true },
    duplicate: { accepted: false, duplicateOf: delivery.id },
    admitted: { allowed: true },
  });
  expect(
    (await store.runs.list({ teamUid: run.teamUid, filter: {}, sortBy: 'created_at', order: 'asc', limit: 10 })).map((r) => r.id),
  ).toEqual(expect.arrayContaining([run.id, deliveryRun.id]));
  expect(await store.runs.getAttachment(run.teamUid, run.id, 'a.txt')).toMatchObject({ data: new Uint8Array([1, 2]) });
  expect((await store.apiKeys.findByHash(`hash-${run.id}`))?.prefix).toBe('ar_x');
  expect((await store.webhooks.getByUid(webhook.uid))?.uid).toBe(webhook.uid);
  return { run, deliveryRun, delivery, webhook };
}

describe('the schema option', () => {
  it('keeps every object in its schema and leaves host tables of the same names (runs, api_keys) untouched', async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    const host = newSchema('host');
    const schema = newSchema('guest');
    const admin = poolOn('public', 1);
    await admin.query(`CREATE SCHEMA ${host}`);
    await admin.query(`CREATE TABLE ${host}.runs (id serial PRIMARY KEY, note text NOT NULL)`);
    await admin.query(`CREATE TABLE ${host}.api_keys (hash text PRIMARY KEY, owner text NOT NULL)`);
    await admin.query(`INSERT INTO ${host}.runs (note) VALUES ('the host''s own'), ('another')`);
    await admin.query(`INSERT INTO ${host}.api_keys VALUES ('h1', 'billing')`);
    const hostBefore = await objectsIn(admin, host);

    // The host's pool: its search_path leads to its own runs and api_keys first.
    const pool = poolOn(host);
    const store = createPostgresStore({ pool, schema });
    expect(store.schema).toBe(schema);
    expect((await store.migrate()).applied).toEqual(MIGRATIONS.map((m) => m.id));
    await exercise(store);

    expect(await objectsIn(admin, host)).toEqual(hostBefore);
    expect(await query(admin, `SELECT id, note FROM ${host}.runs ORDER BY id`)).toEqual([
      { id: 1, note: "the host's own" },
      { id: 2, note: 'another' },
    ]);
    expect(await query(admin, `SELECT * FROM ${host}.api_keys`)).toEqual([{ hash: 'h1', owner: 'billing' }]);
    expect(await objectsIn(admin, schema)).toEqual(
      expect.arrayContaining(['table runs', 'table api_keys', 'table agentrun_migrations', 'function agentrun_accept_delivery']),
    );
    expect(await query(admin, `SELECT count(*)::int AS n FROM ${schema}.runs`)).toEqual([{ n: 2 }]);
  });

  it('works on a pool whose search_path is public and creates nothing there', async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    const schema = newSchema('public_path');
    const pool = poolOn('public');
    const publicBefore = await objectsIn(pool, 'public');
    const store = createPostgresStore({ pool, schema });
    await store.migrate();
    await exercise(store);
    expect(await objectsIn(pool, 'public')).toEqual(publicBefore);
  });

  it("resolves the ingress functions' tables in its schema, not a session's temporary tables of the same names", async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    const schema = newSchema('temp_shadow');
    const pool = poolOn('public', 1); // one session: the temporary tables are on it
    const store = createPostgresStore({ pool, schema });
    await store.migrate();
    await pool.query(
      'CREATE TEMP TABLE runs (id text); CREATE TEMP TABLE deliveries (id text); CREATE TEMP TABLE rate_limit_events (key text)',
    );
    await exercise(store);
    expect(await query(pool, 'SELECT (SELECT count(*) FROM pg_temp.runs) + (SELECT count(*) FROM pg_temp.deliveries) AS n')).toEqual([
      { n: '0' },
    ]);
  });

  it('gives two schemas in one database two independent stores', async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    const [first, second] = [newSchema('first'), newSchema('second')];
    const pool = poolOn('public');
    const a = createPostgresStore({ pool, schema: first });
    const b = createPostgresStore({ pool, schema: second });
    await Promise.all([a.migrate(), b.migrate()]);

    const inA = await exercise(a);
    expect(await b.runs.get(inA.run.id)).toBeUndefined();
    expect(await b.runs.list({ teamUid: inA.run.teamUid, filter: {}, sortBy: 'created_at', order: 'asc', limit: 10 })).toEqual([]);
    expect(await b.apiKeys.findByHash(`hash-${inA.run.id}`)).toBeUndefined();
    expect(await b.webhooks.getByUid(inA.webhook.uid)).toBeUndefined();
    expect(await b.deliveries.find(inA.delivery.teamUid, inA.delivery.id)).toBeUndefined();
    // The same identity and keys again in B: nothing of A's is a duplicate there.
    await b.webhooks.create({ webhook: inA.webhook, maxPerFactory: 20 });
    expect(await b.deliveries.accept({ delivery: { ...inA.delivery }, runs: [] })).toEqual({ accepted: true });
    await b.runs.create({ run: makeRun(), attachments: [] });
    const claimedInB = await b.runs.claimNext({
      workerId: 'w',
      leaseExpiresAt: '2026-01-01T00:10:00.000Z',
      now: '2026-01-01T00:00:01.000Z',
    });
    expect(await a.runs.get(claimedInB?.id as string)).toBeUndefined();
    expect(await migrate(kysely(poolOn('public', 1)), { schema: second })).toEqual({ applied: [] });
  });

  it('defaults to the schema agentrun', () => {
    expect(DEFAULT_SCHEMA).toBe('agentrun');
    expect(createPostgresStore({ pool: new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }) }).schema).toBe('agentrun');
  });
});

describe('a bad schema name', () => {
  const bad: unknown[] = [
    'Agentrun',
    'agent-run',
    '1agentrun',
    '',
    'a'.repeat(64),
    'agentrun; DROP TABLE runs',
    '"agentrun"',
    'agentrun.runs',
    ' agentrun',
    'pg_agentrun',
    'information_schema',
    42,
    null,
  ];
  // No server is reached: each is refused before any connection.
  const unreachable = 'postgres://nobody@127.0.0.1:1/none';

  it('is a TypeError at construction, for every connection form', () => {
    const pool = new pg.Pool({ connectionString: unreachable });
    const forms = [{ connectionString: unreachable }, { pool }, { db: kysely(pool) }];
    for (const schema of bad) {
      for (const form of forms) {
        expect(() => createPostgresStore({ ...form, schema } as Parameters<typeof createPostgresStore>[0]), JSON.stringify(schema)).toThrow(
          TypeError,
        );
      }
    }
    expect(() => createPostgresStore({ connectionString: unreachable, schema: 'Agentrun' })).toThrow(
      'createPostgresStore: schema must be a plain SQL identifier (lower-case letters, digits and _, not starting with a digit, at most 63 characters), got "Agentrun"',
    );
    expect(() => createPostgresStore({ connectionString: unreachable, schema: 'pg_x' })).toThrow(/reserved by PostgreSQL/);
  });

  it('is a TypeError from migrate() and describeSchema(), before any query', async () => {
    const unused = kysely(new pg.Pool({ connectionString: unreachable }));
    for (const schema of bad) {
      await expect(migrate(unused, { schema } as { schema: string }), JSON.stringify(schema)).rejects.toThrow(TypeError);
      await expect(describeSchema(unused, { schema } as { schema: string })).rejects.toThrow(TypeError);
    }
  });

  it('leaves plain identifiers alone', () => {
    for (const schema of ['agentrun', '_x', 'a'.repeat(63), 'app_agentrun_2', 'public']) {
      expect(createPostgresStore({ connectionString: unreachable, schema }).schema).toBe(schema);
    }
  });
});
