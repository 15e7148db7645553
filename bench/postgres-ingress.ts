import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { type BackendCpu, backendCpu, cpuBetween, withApplicationName } from './backend-cpu.js';
import { bodyTemplate, cpuSeconds, load, startServer, stopServer } from './ingress.js';
import { measureFloors } from './ingress-floor.js';
import { type IngressTarget, PG_EVALUATE_ENV, PG_POOL_ENV, PG_SCHEMA_ENV, PG_URL_ENV } from './ingress-server.js';
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
 * Then, on the same server (whose evaluator makes the runs after each 202, docs/webhooks.md "When
 * runs start"): `postgres.evaluated_vs_pgbench`, deliveries per second whose runs all exist over a
 * sustained PG_EVALUATED_SECONDS of load at the same connections, with the backlog left at the end
 * (`postgres.evaluation_backlog`: deliveries accepted and not yet evaluated); where the time goes,
 * per accepted delivery over that window (accept and evaluation both): statements the server sent
 * and transactions committed, and the backends' active time (pg_stat_database.active_time, the
 * whole database: on a shared server other sessions count too), and the server process's own CPU
 * (`postgres.server_cpu_us_per_delivery`: user + system, Fastify, pipeline, `pg` and evaluation,
 * the figure a busy machine blurs least); and `postgres.ingress_p99_ms`,
 * the ingress's p99 with PG_P99_CONNECTIONS (50) connections; and, idle, the time from a 202 to
 * the delivery's runs existing (`postgres.evaluation_latency_ms`, median of 20; `…_max_ms`).
 *
 * Knobs (environment): PG_INGRESS_CONNECTIONS (16), PG_INGRESS_SECONDS (10), PG_INGRESS_WARMUP (3),
 * PG_EVALUATED_SECONDS (30), PG_P99_CONNECTIONS (50), DATABASE_URL (else the local server the tests
 * use; without one the group is skipped), PG_INGRESS_EVALUATE (`0`: the server's evaluator stays
 * off, so the sustained window measures the accept alone, its costs divided by the deliveries
 * accepted, written as `postgres.accept_*`; nothing is evaluated, so the evaluated figures and the
 * idle latency are not measured).
 */
const CONNECTIONS = Number(process.env.PG_INGRESS_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.PG_INGRESS_SECONDS ?? 10);
const WARMUP = Number(process.env.PG_INGRESS_WARMUP ?? 3);
const PGBENCH = process.env.PGBENCH ?? 'pgbench';
const EVALUATED_SECONDS = Number(process.env.PG_EVALUATED_SECONDS ?? 30);
const P99_CONNECTIONS = Number(process.env.PG_P99_CONNECTIONS ?? 50);
const EVALUATE = process.env[PG_EVALUATE_ENV] !== '0';

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
  const backends = await backendCpu(baseUrl);
  try {
    progress(`schema ${schema} on ${redact(baseUrl)}`);
    const measured = await ingressPerSecond(baseUrl, schema, admin, backends); // the server's migrate() creates the schema
    const ingress = measured.perSecond;
    progress(`ingress: ${ingress.toFixed(0)} accepted deliveries/s`);

    await admin.query(
      `CREATE TABLE ${schema}.bench_rows (id text PRIMARY KEY, team_uid text NOT NULL, payload text NOT NULL, created_at timestamptz NOT NULL)`,
    );
    const script = join(dir, 'insert.sql');
    await writeFile(
      script,
      `INSERT INTO ${schema}.bench_rows (id, team_uid, payload, created_at) VALUES (gen_random_uuid()::text, 'acme', repeat('x', 1024), now());\n`,
    );
    const pgbenchApp = `${schema}_pgbench`;
    const polled = pollBackends(backends, pgbenchApp);
    const { stdout } = await promisify(execFile)(
      PGBENCH,
      ['-n', '-c', String(CONNECTIONS), '-j', '2', '-T', String(SECONDS), '-f', script, withApplicationName(baseUrl, pgbenchApp)],
      { maxBuffer: 1 << 20 },
    );
    const pgbenchBackend = await polled.stop();
    const tps = Number(/^tps = ([\d.]+)/m.exec(stdout)?.[1]);
    if (!Number.isFinite(tps) || tps <= 0) throw new Error(`no "tps = …" in the pgbench output:\n${stdout}`);
    // The backends' CPU up to the last poll, over the inserts made by then (at the measured rate).
    const pgbenchBackendUs = (pgbenchBackend.ms * 1000) / (tps * pgbenchBackend.seconds);
    progress(`pgbench: ${tps.toFixed(0)} single-row INSERT transactions/s, ${pgbenchBackendUs.toFixed(0)} µs backend CPU per insert`);
    const floors = await measureFloors({
      admin,
      url: baseUrl,
      schema,
      dir,
      pgbench: PGBENCH,
      connections: CONNECTIONS,
      seconds: SECONDS,
      p99Connections: P99_CONNECTIONS,
      progress,
    });
    const floorFigures = {
      'postgres.floor_sql_vs_pgbench': floors.sqlTps / tps,
      'postgres.floor_sql_batched_vs_pgbench': floors.sqlBatchedDeliveriesPerSecond / tps,
      'postgres.floor_fastify_insert_vs_pgbench': floors.fastifyInsertPerSecond / tps,
      'postgres.floor_fastify_insert_p99_ms': floors.fastifyInsertP99Ms,
    };
    if (!EVALUATE) {
      return {
        'postgres.accept_per_s': ingress,
        'postgres.pgbench_tps': tps,
        'postgres.accept_vs_pgbench': ingress / tps,
        'postgres.accept_statements_per_delivery': measured.statementsPerDelivery,
        'postgres.accept_commits_per_delivery': measured.commitsPerDelivery,
        'postgres.accept_server_cpu_us_per_delivery': measured.serverCpuUsPerDelivery,
        'postgres.accept_backend_cpu_us_per_delivery': measured.backendCpuUsPerDelivery,
        'postgres.accept_loadgen_cpu_us_per_delivery': measured.loadgenCpuUsPerDelivery,
        'postgres.pgbench_backend_cpu_us_per_insert': pgbenchBackendUs,
        'postgres.accept_p99_ms': measured.p99Ms,
        ...floorFigures,
      };
    }
    return {
      'postgres.ingress_per_s': ingress,
      'postgres.pgbench_tps': tps,
      'postgres.ingress_vs_pgbench': ingress / tps,
      'postgres.evaluated_per_s': measured.evaluatedPerSecond,
      'postgres.evaluated_vs_pgbench': measured.evaluatedPerSecond / tps,
      'postgres.evaluation_backlog': measured.backlog,
      'postgres.statements_per_delivery': measured.statementsPerDelivery,
      'postgres.commits_per_delivery': measured.commitsPerDelivery,
      'postgres.backend_ms_per_delivery': measured.backendMsPerDelivery,
      'postgres.server_cpu_us_per_delivery': measured.serverCpuUsPerDelivery,
      'postgres.backend_cpu_us_per_delivery': measured.backendCpuUsPerDelivery,
      'postgres.loadgen_cpu_us_per_delivery': measured.loadgenCpuUsPerDelivery,
      'postgres.pgbench_backend_cpu_us_per_insert': pgbenchBackendUs,
      ...floorFigures,
      'postgres.ingress_p99_ms': measured.p99Ms,
      'postgres.evaluation_latency_ms': measured.evaluationLatencyMs,
      'postgres.evaluation_latency_max_ms': measured.evaluationLatencyMaxMs,
    };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch((error) => console.error(`could not drop ${schema}:`, error));
    await admin.end();
    await backends.close();
    await rm(dir, { recursive: true, force: true });
    progress(`dropped schema ${schema}`);
  }
}

interface Measured {
  evaluationLatencyMs: number;
  evaluationLatencyMaxMs: number;
  perSecond: number;
  evaluatedPerSecond: number;
  backlog: number;
  statementsPerDelivery: number;
  commitsPerDelivery: number;
  backendMsPerDelivery: number;
  serverCpuUsPerDelivery: number;
  /** The CPU of the server's backends (its pool, evaluation included), per delivery evaluated. */
  backendCpuUsPerDelivery: number;
  /** This process's CPU (autocannon's load) per delivery accepted. */
  loadgenCpuUsPerDelivery: number;
  p99Ms: number;
}

async function ingressPerSecond(url: string, schema: string, admin: pg.Client, backends: BackendCpu): Promise<Measured> {
  const started = performance.now();
  const serverApp = `${schema}_server`;
  const { child, ready } = await startServer('fastify-postgres', {
    ...process.env,
    [PG_URL_ENV]: withApplicationName(url, serverApp),
    [PG_SCHEMA_ENV]: schema,
    [PG_POOL_ENV]: String(CONNECTIONS),
  });
  const check = (what: string, result: { non2xx: number; errors: number; timeouts: number }) => {
    if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
      throw new Error(`${what}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
  };
  try {
    progress(
      `server ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${ready.targets.length} webhooks, ${ready.automations} automations`,
    );
    const counter = { n: 0 };
    if (WARMUP > 0) await load(ready.port, ready.targets, WARMUP, counter, CONNECTIONS);
    const result = await load(ready.port, ready.targets, SECONDS, counter, CONNECTIONS);
    check('ingress', result);
    progress(`ingress p99 ${result.latency.p99} ms, ${result.requests.total} deliveries`);

    // Sustained: accepted and evaluated over EVALUATED_SECONDS, and what each delivery cost.
    await settle(admin, schema);
    const before = await counters(admin, schema, child);
    const cpuBefore = await cpuSeconds(child.pid);
    const backendBefore = await backends.read(serverApp);
    const loadgenBefore = process.cpuUsage();
    const t0 = performance.now();
    const sustained = await load(ready.port, ready.targets, EVALUATED_SECONDS, counter, CONNECTIONS);
    const seconds = (performance.now() - t0) / 1000;
    const loadgen = process.cpuUsage(loadgenBefore);
    const after = await counters(admin, schema, child);
    check('sustained', sustained);
    const accepted = after.accepted - before.accepted;
    const evaluatedPerSecond = (after.evaluated - before.evaluated) / seconds;
    progress(
      `sustained ${seconds.toFixed(1)} s: ${(accepted / seconds).toFixed(0)} accepted/s, ${evaluatedPerSecond.toFixed(0)} evaluated/s, backlog ${after.pending}`,
    );
    // The figures per delivery include the evaluation of the backlog left by the ingress phase;
    // with the evaluator off, they are per delivery accepted.
    const measuredAfter = await settle(admin, schema, child);
    const done = EVALUATE ? measuredAfter.evaluated - before.evaluated : measuredAfter.accepted - before.accepted;
    const serverCpuUsPerDelivery = (((await cpuSeconds(child.pid)) - cpuBefore) * 1e6) / done;
    const backendCpuUsPerDelivery = (cpuBetween(backendBefore, await backends.read(serverApp)) * 1000) / done;
    const loadgenCpuUsPerDelivery = (loadgen.user + loadgen.system) / accepted;
    const statementsPerDelivery = (measuredAfter.statements - before.statements) / done;
    const commitsPerDelivery = (measuredAfter.commits - before.commits) / done;
    const backendMsPerDelivery = (measuredAfter.activeMs - before.activeMs) / done;
    progress(
      `per delivery ${EVALUATE ? 'evaluated' : 'accepted (evaluator off)'}: ${statementsPerDelivery.toFixed(2)} statements, ${commitsPerDelivery.toFixed(2)} commits, ${backendMsPerDelivery.toFixed(3)} ms backend time, ${serverCpuUsPerDelivery.toFixed(0)} µs server CPU, ${backendCpuUsPerDelivery.toFixed(0)} µs its backends' CPU, ${loadgenCpuUsPerDelivery.toFixed(0)} µs autocannon's`,
    );

    const p99 = await load(ready.port, ready.targets, SECONDS, counter, P99_CONNECTIONS);
    check('p99', p99);
    progress(`ingress with ${P99_CONNECTIONS} connections: ${p99.requests.average.toFixed(0)}/s, p99 ${p99.latency.p99} ms`);

    // Idle: from the 202 to the delivery's runs existing, one delivery at a time.
    await settle(admin, schema);
    const latencies = EVALUATE
      ? await idleLatencies(ready.port, ready.targets[0] as IngressTarget, admin, schema, counter)
      : { median: Number.NaN, max: Number.NaN };
    if (EVALUATE) progress(`idle, 202 to runs: median ${latencies.median.toFixed(1)} ms, max ${latencies.max.toFixed(1)} ms`);
    return {
      evaluationLatencyMs: latencies.median,
      evaluationLatencyMaxMs: latencies.max,
      perSecond: result.requests.average,
      evaluatedPerSecond,
      backlog: after.pending,
      statementsPerDelivery,
      commitsPerDelivery,
      backendMsPerDelivery,
      serverCpuUsPerDelivery,
      backendCpuUsPerDelivery,
      loadgenCpuUsPerDelivery,
      p99Ms: p99.latency.p99,
    };
  } finally {
    await stopServer(child);
  }
}

interface Counters {
  accepted: number;
  evaluated: number;
  pending: number;
  statements: number;
  commits: number;
  activeMs: number;
}

/** The delivery counts of the scratch schema, and the server's statements and the database's commits and active time so far. */
async function counters(admin: pg.Client, schema: string, child?: ChildProcess): Promise<Counters> {
  const { rows } = await admin.query<{ accepted: number; pending: number; commits: string; active_ms: number }>(
    `SELECT count(*)::int AS accepted, count(*) FILTER (WHERE evaluation_due_at IS NOT NULL)::int AS pending,
      (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits,
      (SELECT active_time FROM pg_stat_database WHERE datname = current_database()) AS active_ms
     FROM ${schema}.deliveries WHERE status = 'Accepted'`,
  );
  const row = rows[0] as { accepted: number; pending: number; commits: string; active_ms: number };
  return {
    accepted: row.accepted,
    evaluated: row.accepted - row.pending,
    pending: row.pending,
    statements: child ? await statementsOf(child) : 0,
    commits: Number(row.commits),
    activeMs: Number(row.active_ms),
  };
}

/** Wait until nothing awaits evaluation (at most 60 s; not at all with the evaluator off); the counters then. */
async function settle(admin: pg.Client, schema: string, child?: ChildProcess): Promise<Counters> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    // pg_stat_database is updated when a backend reports, about once a second.
    const now = await counters(admin, schema, child);
    if (now.pending === 0 || !EVALUATE || performance.now() > deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      return counters(admin, schema, child);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * 20 deliveries one at a time to an idle server: for each, the time from its 202 until the
 * database shows it evaluated (its runs are written in the same transaction), polled every
 * millisecond. Median and max, in ms.
 */
async function idleLatencies(port: number, target: IngressTarget, admin: pg.Client, schema: string, counter: { n: number }) {
  const body = bodyTemplate();
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`http://127.0.0.1:${port}${target.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: target.authorization },
      body: body(counter.n++),
    });
    const answered = performance.now();
    const { delivery_id } = (await res.json()) as { delivery_id: string };
    for (;;) {
      const { rows } = await admin.query(`SELECT 1 FROM ${schema}.deliveries WHERE id = $1 AND evaluation_due_at IS NULL`, [delivery_id]);
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    times.push(performance.now() - answered);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  times.sort((a, b) => a - b);
  return { median: times[10] as number, max: times[19] as number };
}

/**
 * Polls the CPU of the backends with this `application_name` every 200 ms while a workload whose
 * connections end with it runs (pgbench): its last reading is what they had spent by then, and
 * `seconds` the time from the start to that reading.
 */
function pollBackends(backends: BackendCpu, applicationName: string) {
  const t0 = performance.now();
  let last = { ms: Number.NaN, seconds: 0 };
  let polling = true;
  const loop = (async () => {
    while (polling) {
      const cpu = await backends.read(applicationName);
      if (cpu.size > 0) last = { ms: cpuBetween(new Map(), cpu), seconds: (performance.now() - t0) / 1000 };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      polling = false;
      await loop;
      return last;
    },
  };
}

/** Statements the bench server has sent so far (ingress-server.ts counts them). */
function statementsOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve((message as { statements: number }).statements));
    child.send('stats');
  });
}

const benchStart = performance.now();
function progress(message: string): void {
  console.log(`[postgres-ingress ${((performance.now() - benchStart) / 1000).toFixed(1).padStart(6)} s] ${message}`);
}
