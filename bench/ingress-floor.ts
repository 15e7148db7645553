import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';

/**
 * The floors under `postgres.ingress_vs_pgbench` (bench/README.md, "postgres-ingress: the webhook
 * ingress on PostgreSQL"): what any design that keeps the ingress's guarantees would reach on the same
 * machine, so the distance left to a target can be told apart from the distance to what is
 * possible. Each is a rate over pgbench's single-row INSERT rate measured in the same run.
 *
 * - **The database's floor** (`postgres.floor_sql_vs_pgbench`, and `…_batched_…`): pgbench itself
 *   running the least SQL an accept needs: the context read (the webhook's row by its key) and one
 *   write that makes the delivery durable with exact dedupe across processes (a unique index on its
 *   identity), puts it in the delivery log (an index on webhook and time) and writes what an exact
 *   sliding-window limit keeps (an event row, and a count per key updated under its row lock; the
 *   check itself, and the pruning of old events, left out). No plpgsql, no trigger, no NOTIFY, no
 *   evaluation: only the rows. One delivery per write, and FLOOR_BATCH per write (what group
 *   commit makes of concurrent accepts).
 * - **Node's floor** (`postgres.floor_fastify_insert_vs_pgbench`): a bare Fastify route that parses
 *   the same 1 KB body and runs pgbench's own INSERT through a `pg` pool of the same size, driven
 *   by autocannon as the ingress is: one round trip per request, no authentication, nothing else;
 *   and its p99 with as many connections as `postgres.ingress_p99_ms` is measured with
 *   (`postgres.floor_fastify_insert_p99_ms`). Its server (`fastify-pg-insert`) is measured by
 *   postgres-ingress.ts as a side of its own, in the same alternating windows as agentrun's.
 */

const BATCH = Number(process.env.FLOOR_BATCH ?? 16);
const KEYS = 100;

export interface Floors {
  sqlTps: number;
  sqlBatchedDeliveriesPerSecond: number;
}

/** The floor tables, in `schema` (the scratch schema the caller drops): made before the floor route's server starts. */
export async function createFloorTables(admin: pg.Client, schema: string): Promise<void> {
  await admin.query(`
    CREATE TABLE ${schema}.floor_webhooks (uid text PRIMARY KEY, team_uid text NOT NULL, secret text NOT NULL);
    INSERT INTO ${schema}.floor_webhooks SELECT 'w' || i, 'acme', md5(i::text) FROM generate_series(1, ${KEYS}) i;
    CREATE TABLE ${schema}.floor_deliveries (id text PRIMARY KEY, webhook_uid text NOT NULL, identity text NOT NULL,
      payload bytea NOT NULL, received_at timestamptz NOT NULL);
    CREATE UNIQUE INDEX ON ${schema}.floor_deliveries (webhook_uid, identity);
    CREATE INDEX ON ${schema}.floor_deliveries (webhook_uid, received_at DESC, id DESC);
    CREATE TABLE ${schema}.floor_events (key text NOT NULL, at timestamptz NOT NULL);
    CREATE INDEX ON ${schema}.floor_events (key, at);
    CREATE TABLE ${schema}.floor_counts (key text PRIMARY KEY, n integer NOT NULL);
    CREATE TABLE ${schema}.floor_rows (id text PRIMARY KEY, team_uid text NOT NULL, payload text NOT NULL, created_at timestamptz NOT NULL);
  `);
}

/**
 * The pgbench script of one transaction accepting `n` deliveries, each to another webhook (as a
 * batch of concurrent accepts spans many): the context read of their webhooks, then one statement
 * that admits them (their keys' counts, taken in key order so two batches cannot deadlock, and an
 * event each) and inserts them.
 */
function acceptScript(schema: string, n: number): string {
  const keys = `SELECT 'w' || ((:k + i) % ${KEYS} + 1) AS uid FROM generate_series(1, ${n}) i`;
  return `\\set k random(1, ${KEYS})
SELECT w.uid, w.team_uid, w.secret FROM ${schema}.floor_webhooks w JOIN (${keys}) b USING (uid);
WITH b AS (${keys}), counted AS (
  INSERT INTO ${schema}.floor_counts (key, n) SELECT 'rate:' || uid, 1 FROM b ORDER BY 1
  ON CONFLICT (key) DO UPDATE SET n = ${schema}.floor_counts.n + 1 RETURNING key
), events AS (
  INSERT INTO ${schema}.floor_events (key, at) SELECT key, now() FROM counted
)
INSERT INTO ${schema}.floor_deliveries (id, webhook_uid, identity, payload, received_at)
  SELECT gen_random_uuid()::text, uid, md5(random()::text), convert_to(repeat('x', 1024), 'UTF8'), now() FROM b
  ON CONFLICT (webhook_uid, identity) DO NOTHING;
`;
}

async function pgbench(pgbenchBin: string, url: string, script: string, connections: number, seconds: number): Promise<number> {
  const { stdout } = await promisify(execFile)(
    pgbenchBin,
    ['-n', '-c', String(connections), '-j', '2', '-T', String(seconds), '-f', script, url],
    { maxBuffer: 1 << 20 },
  );
  const tps = Number(/^tps = ([\d.]+)/m.exec(stdout)?.[1]);
  if (!Number.isFinite(tps) || tps <= 0) throw new Error(`no "tps = …" in the pgbench output:\n${stdout}`);
  return tps;
}

export async function measureFloors(options: {
  url: string;
  schema: string;
  dir: string;
  pgbench: string;
  connections: number;
  seconds: number;
  progress: (message: string) => void;
}): Promise<Floors> {
  const { url, schema, dir, connections, seconds, progress } = options;
  const one = join(dir, 'floor-one.sql');
  const batched = join(dir, 'floor-batched.sql');
  await writeFile(one, acceptScript(schema, 1));
  await writeFile(batched, acceptScript(schema, BATCH));
  const sqlTps = await pgbench(options.pgbench, url, one, connections, seconds);
  progress(`floor, SQL: ${sqlTps.toFixed(0)} accepts/s (context read + one write, one delivery per write)`);
  const sqlBatchedDeliveriesPerSecond = BATCH * (await pgbench(options.pgbench, url, batched, connections, seconds));
  progress(`floor, SQL batched: ${sqlBatchedDeliveriesPerSecond.toFixed(0)} accepts/s (${BATCH} per write)`);
  return { sqlTps, sqlBatchedDeliveriesPerSecond };
}
