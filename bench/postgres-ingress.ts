import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load, startServer, stopServer } from './ingress.js';
import { PG_POOL_ENV, PG_SCHEMA_ENV, PG_URL_ENV } from './ingress-server.js';
import { connectAdmin, DEFAULT_DATABASE_URL, redact, scratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * Accepted webhook deliveries per second through Fastify and the PostgreSQL store (bearer auth, 1 KB
 * distinct bodies, 100 webhooks with 4 automations per factory of which 2 match, the rate limit
 * lifted), driven by autocannon with N connections over a pool of N, beside `pgbench` inserting one
 * row per transaction into a table of the same server with the same N clients: how far the
 * ingress is from the database's own insert rate. The server runs in a child process; schema and
 * table live in a scratch schema dropped at the end, even on failure.
 *
 * Knobs (environment): PG_INGRESS_CONNECTIONS (16), PG_INGRESS_SECONDS (10), PG_INGRESS_WARMUP (3),
 * DATABASE_URL (else the local server the tests use; without one the group is skipped).
 */
const CONNECTIONS = Number(process.env.PG_INGRESS_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.PG_INGRESS_SECONDS ?? 10);
const WARMUP = Number(process.env.PG_INGRESS_WARMUP ?? 3);
const PGBENCH = process.env.PGBENCH ?? 'pgbench';

export const postgresIngressGroup: BenchGroup = {
  name: 'postgres-ingress',
  description: `webhook deliveries/s through Fastify + PostgreSQL store vs pgbench single-row INSERTs (${CONNECTIONS} connections, ${SECONDS} s)`,
  run: () => measurePostgresIngress(process.env.DATABASE_URL || DEFAULT_DATABASE_URL),
};

export async function measurePostgresIngress(baseUrl: string): Promise<Record<string, number>> {
  const admin = await connectAdmin(baseUrl);
  if (!admin) return {};
  const schema = scratchSchema('bench_ingress');
  const dir = await mkdtemp(join(tmpdir(), 'agentrun-pgbench-'));
  try {
    progress(`schema ${schema} on ${redact(baseUrl)}`);
    const ingress = await ingressPerSecond(baseUrl, schema); // the server's migrate() creates the schema
    progress(`ingress: ${ingress.toFixed(0)} accepted deliveries/s`);

    await admin.query(
      `CREATE TABLE ${schema}.bench_rows (id text PRIMARY KEY, team_uid text NOT NULL, payload text NOT NULL, created_at timestamptz NOT NULL)`,
    );
    const script = join(dir, 'insert.sql');
    await writeFile(
      script,
      `INSERT INTO ${schema}.bench_rows (id, team_uid, payload, created_at) VALUES (gen_random_uuid()::text, 'acme', repeat('x', 1024), now());\n`,
    );
    const { stdout } = await promisify(execFile)(
      PGBENCH,
      ['-n', '-c', String(CONNECTIONS), '-j', '2', '-T', String(SECONDS), '-f', script, baseUrl],
      { maxBuffer: 1 << 20 },
    );
    const tps = Number(/^tps = ([\d.]+)/m.exec(stdout)?.[1]);
    if (!Number.isFinite(tps) || tps <= 0) throw new Error(`no "tps = …" in the pgbench output:\n${stdout}`);
    progress(`pgbench: ${tps.toFixed(0)} single-row INSERT transactions/s`);
    return {
      'postgres.ingress_per_s': ingress,
      'postgres.pgbench_tps': tps,
      'postgres.ingress_vs_pgbench': ingress / tps,
    };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch((error) => console.error(`could not drop ${schema}:`, error));
    await admin.end();
    await rm(dir, { recursive: true, force: true });
    progress(`dropped schema ${schema}`);
  }
}

async function ingressPerSecond(url: string, schema: string): Promise<number> {
  const started = performance.now();
  const { child, ready } = await startServer('fastify-postgres', {
    ...process.env,
    [PG_URL_ENV]: url,
    [PG_SCHEMA_ENV]: schema,
    [PG_POOL_ENV]: String(CONNECTIONS),
  });
  try {
    progress(
      `server ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${ready.targets.length} webhooks, ${ready.automations} automations`,
    );
    const counter = { n: 0 };
    if (WARMUP > 0) await load(ready.port, ready.targets, WARMUP, counter, CONNECTIONS);
    const result = await load(ready.port, ready.targets, SECONDS, counter, CONNECTIONS);
    if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
      throw new Error(`ingress: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
    progress(`ingress p99 ${result.latency.p99} ms, ${result.requests.total} deliveries`);
    return result.requests.average;
  } finally {
    await stopServer(child);
  }
}

const benchStart = performance.now();
function progress(message: string): void {
  console.log(`[postgres-ingress ${((performance.now() - benchStart) / 1000).toFixed(1).padStart(6)} s] ${message}`);
}
