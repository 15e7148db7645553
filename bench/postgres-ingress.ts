import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { type BackendCpu, backendCpu, cpuBetween, withApplicationName } from './backend-cpu.js';
import { bodyTemplate, cpuSeconds, deliveryHeaders, load, startServer, stopServer } from './ingress.js';
import { createFloorTables, measureFloors } from './ingress-floor.js';
import { peerGraphileSchema } from './ingress-peer.js';
import { type IngressServerReady, type IngressTarget, PG_EVALUATE_ENV, PG_POOL_ENV, PG_SCHEMA_ENV, PG_URL_ENV } from './ingress-server.js';
import { connectAdmin, DEFAULT_DATABASE_URL, redact, scratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * The webhook ingress on PostgreSQL beside what it is measured against, in one run on one database
 * (bench/README.md, "postgres-ingress: the webhook ingress on PostgreSQL"): 1 KB distinct bodies
 * signed with Standard Webhooks, 100 webhooks with 4 automations per factory of which 2 match, the
 * rate limit lifted, autocannon with CONNECTIONS connections over a pool of as many. Each server
 * runs in a child process; their tables live in a scratch schema (the peer's graphile-worker in one
 * beside it), dropped at the end, even on failure.
 *
 * - **agentrun, the peer and the floor route** (ingress-peer.ts: the ingress a team would write on
 *   Fastify and graphile-worker; ingress-floor.ts: a bare Fastify route that inserts the body),
 *   serving at once, each measured in ROUNDS sustained windows of PG_EVALUATED_SECONDS, the order
 *   reversed every other round, every side's backlog evaluated and every table vacuumed before each
 *   window: deliveries accepted per second, evaluated per second (every run made), and the backlog
 *   at the end of the window, also as seconds of arrivals (`…_backlog_s`). Where a delivery's
 *   time goes, accept and evaluation both (the backlog's evaluation included): the statements the
 *   server sent, the database's commits and active time (pg_stat_database: every session of the
 *   database), its WAL (pg_stat_wal: the whole server), the server process's CPU and its backends'
 *   (by `application_name`, from /proc), and autocannon's. Then each one's p99 with
 *   P99_CONNECTIONS, and agentrun's idle time from a 202 to the delivery's runs (median and max
 *   of 20).
 * - **pgbench** inserting one 1 KB row per transaction with CONNECTIONS clients, and the
 *   database's floors (ingress-floor.ts): the least SQL an accept needs, run by pgbench.
 *
 * The ratios are `postgres.ingress_vs_peer`, `postgres.evaluated_vs_peer`,
 * `postgres.ingress_vs_floor_route`, `postgres.ingress_p99_vs_floor_p99` and `…_vs_pgbench`.
 *
 * Knobs (environment): PG_INGRESS_CONNECTIONS (16), PG_INGRESS_SECONDS (10: pgbench, the floors,
 * the p99), PG_INGRESS_WARMUP (3), PG_EVALUATED_SECONDS (30), PG_INGRESS_ROUNDS (2),
 * PG_P99_CONNECTIONS (50), PEER_CONCURRENCY (16), DATABASE_URL (else the local server the tests
 * use; without one the group is skipped), PG_INGRESS_EVALUATE (`0`: neither side evaluates, so the
 * windows measure the accept alone, written as `postgres.accept_*`).
 */
const CONNECTIONS = Number(process.env.PG_INGRESS_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.PG_INGRESS_SECONDS ?? 10);
const WARMUP = Number(process.env.PG_INGRESS_WARMUP ?? 3);
const PGBENCH = process.env.PGBENCH ?? 'pgbench';
const EVALUATED_SECONDS = Number(process.env.PG_EVALUATED_SECONDS ?? 30);
const P99_CONNECTIONS = Number(process.env.PG_P99_CONNECTIONS ?? 50);
const EVALUATE = process.env[PG_EVALUATE_ENV] !== '0';
const ROUNDS = Number(process.env.PG_INGRESS_ROUNDS ?? 2);

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
    const measured = await beside(baseUrl, schema, admin, backends);
    const { agentrun, peer } = measured;
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
      url: baseUrl,
      schema,
      dir,
      pgbench: PGBENCH,
      connections: CONNECTIONS,
      seconds: SECONDS,
      progress,
    });
    const { floor } = measured;
    const floorFigures = {
      'postgres.floor_sql_vs_pgbench': floors.sqlTps / tps,
      'postgres.floor_sql_batched_vs_pgbench': floors.sqlBatchedDeliveriesPerSecond / tps,
      'postgres.floor_fastify_insert_per_s': floor.acceptedPerSecond,
      'postgres.floor_fastify_insert_vs_pgbench': floor.acceptedPerSecond / tps,
      'postgres.floor_fastify_insert_p99_ms': measured.floorP99Ms,
    };
    const { costs } = measured;
    // With the evaluator off, the same figures of the accept alone: postgres.accept_*.
    const name = (figure: string) => (EVALUATE ? `postgres.${figure}` : `postgres.accept_${figure.replace(/^ingress_/, '')}`);
    return {
      [name('ingress_per_s')]: agentrun.acceptedPerSecond,
      [name('ingress_vs_peer')]: agentrun.acceptedPerSecond / peer.acceptedPerSecond,
      [name('ingress_vs_floor_route')]: agentrun.acceptedPerSecond / floor.acceptedPerSecond,
      [name('ingress_vs_pgbench')]: agentrun.acceptedPerSecond / tps,
      [name('ingress_p99_ms')]: measured.p99Ms,
      [name('ingress_p99_vs_floor_p99')]: measured.p99Ms / measured.floorP99Ms,
      [name('peer_per_s')]: peer.acceptedPerSecond,
      [name('peer_p99_ms')]: measured.peerP99Ms,
      ...(EVALUATE
        ? {
            'postgres.evaluated_per_s': agentrun.evaluatedPerSecond,
            'postgres.evaluated_vs_peer': agentrun.evaluatedPerSecond / peer.evaluatedPerSecond,
            'postgres.evaluated_vs_pgbench': agentrun.evaluatedPerSecond / tps,
            'postgres.evaluation_backlog': agentrun.backlog,
            'postgres.evaluation_backlog_s': agentrun.backlog / agentrun.acceptedPerSecond,
            'postgres.peer_evaluated_per_s': peer.evaluatedPerSecond,
            'postgres.peer_evaluation_backlog_s': peer.backlog / peer.acceptedPerSecond,
            'postgres.evaluation_latency_ms': measured.evaluationLatencyMs,
            'postgres.evaluation_latency_max_ms': measured.evaluationLatencyMaxMs,
          }
        : {}),
      'postgres.pgbench_tps': tps,
      [name('statements_per_delivery')]: costs.statementsPerDelivery,
      [name('commits_per_delivery')]: costs.commitsPerDelivery,
      [name('backend_ms_per_delivery')]: costs.backendMsPerDelivery,
      [name('server_cpu_us_per_delivery')]: costs.serverCpuUsPerDelivery,
      [name('backend_cpu_us_per_delivery')]: costs.backendCpuUsPerDelivery,
      [name('loadgen_cpu_us_per_delivery')]: costs.loadgenCpuUsPerDelivery,
      [name('wal_kib_per_delivery')]: costs.walBytesPerDelivery / 1024,
      [name('peer_wal_kib_per_delivery')]: measured.peerCosts.walBytesPerDelivery / 1024,
      [name('peer_server_cpu_us_per_delivery')]: measured.peerCosts.serverCpuUsPerDelivery,
      [name('peer_backend_cpu_us_per_delivery')]: measured.peerCosts.backendCpuUsPerDelivery,
      'postgres.pgbench_backend_cpu_us_per_insert': pgbenchBackendUs,
      ...floorFigures,
    };
  } finally {
    for (const s of [schema, peerGraphileSchema(schema)]) {
      await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch((error) => console.error(`could not drop ${s}:`, error));
    }
    await admin.end();
    await backends.close();
    await rm(dir, { recursive: true, force: true });
    progress(`dropped schema ${schema}`);
  }
}

/** One server under load: agentrun's, the peer's or the floor route's, its deliveries' table, and its connections' name. */
interface Side {
  name: 'agentrun' | 'peer' | 'floor';
  child: ChildProcess;
  ready: IngressServerReady;
  counter: { n: number };
  app: string;
  /** The deliveries accepted and those awaiting evaluation. */
  table: string;
  pendingWhere: string;
  /** The deliveries awaiting evaluation, counted without reading the whole log (settle polls it). */
  pendingCount: string;
}

/** What one sustained window measured of a side. */
interface Window {
  acceptedPerSecond: number;
  evaluatedPerSecond: number;
  backlog: number;
  costs: Costs;
}

interface Costs {
  statementsPerDelivery: number;
  commitsPerDelivery: number;
  backendMsPerDelivery: number;
  serverCpuUsPerDelivery: number;
  /** The CPU of the side's backends (its pool, evaluation included), per delivery evaluated. */
  backendCpuUsPerDelivery: number;
  /** This process's CPU (autocannon's load) per delivery accepted. */
  loadgenCpuUsPerDelivery: number;
  /** WAL per delivery, and its full-page images (a page's first change after each checkpoint writes it whole). */
  walBytesPerDelivery: number;
  walFpiPerDelivery: number;
}

/**
 * agentrun and the peer, both serving at once on the same database with pools of the same size,
 * measured in ROUNDS sustained windows each, alternating who goes first; then each one's p99 with
 * P99_CONNECTIONS and agentrun's idle latency. The figures of a side are the medians of its rounds.
 */
async function beside(url: string, schema: string, admin: pg.Client, backends: BackendCpu) {
  const started = performance.now();
  const env = (app: string) => ({
    ...process.env,
    [PG_URL_ENV]: withApplicationName(url, app),
    [PG_SCHEMA_ENV]: schema,
    [PG_POOL_ENV]: String(CONNECTIONS),
  });
  const sides: Side[] = [];
  // What each side's deliveries table is, and what of it awaits evaluation (the floor route evaluates nothing).
  const tables = {
    agentrun: {
      table: `${schema}.deliveries WHERE status = 'Accepted'`,
      pendingWhere: 'evaluation_due_at IS NOT NULL',
      pendingCount: `SELECT count(*)::int AS n FROM ${schema}.deliveries WHERE evaluation_due_at IS NOT NULL`,
    },
    peer: {
      table: `${schema}.peer_deliveries`,
      pendingWhere: 'evaluated_at IS NULL',
      pendingCount: `SELECT count(*)::int AS n FROM ${peerGraphileSchema(schema)}._private_jobs`,
    },
    floor: { table: `${schema}.floor_rows`, pendingWhere: 'false', pendingCount: 'SELECT 0 AS n' },
  };
  try {
    for (const [name, variant] of [
      ['agentrun', 'fastify-postgres'],
      ['peer', 'fastify-peer'],
      ['floor', 'fastify-pg-insert'],
    ] as const) {
      const app = `${schema}_${name}`;
      // In the schema agentrun's server made (its store migrates it).
      if (name === 'floor') await createFloorTables(admin, schema);
      const { child, ready } = await startServer(variant, env(app));
      // The floor route takes any path and ignores the headers: it is sent agentrun's signed deliveries.
      const targets = name === 'floor' ? (sides[0] as Side).ready.targets : ready.targets;
      sides.push({ name, child, ready: { ...ready, targets }, counter: { n: 0 }, app, ...tables[name] });
      progress(
        `${name} ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${targets.length} webhooks, ${ready.automations} automations`,
      );
    }
    const [agentrun, peer, floor] = sides as [Side, Side, Side];
    for (const side of sides)
      if (WARMUP > 0) check(`${side.name} warm-up`, await load(side.ready.port, side.ready.targets, WARMUP, side.counter, CONNECTIONS));
    const windows: Record<Side['name'], Window[]> = { agentrun: [], peer: [], floor: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate the order, so no side always meets a warmer (or busier) server.
      for (const side of r % 2 === 0 ? [agentrun, peer, floor] : [floor, peer, agentrun])
        windows[side.name].push(await sustained(side, sides, admin, backends, schema));
    }
    const p99 = async (side: Side) => {
      await settleAll(admin, sides);
      await vacuum(admin, schema);
      const result = await load(side.ready.port, side.ready.targets, SECONDS, side.counter, P99_CONNECTIONS);
      check(`${side.name} p99`, result);
      progress(`${side.name} with ${P99_CONNECTIONS} connections: ${result.requests.average.toFixed(0)}/s, p99 ${result.latency.p99} ms`);
      return result.latency.p99;
    };
    const p99Ms = await p99(agentrun);
    const peerP99Ms = await p99(peer);
    const floorP99Ms = await p99(floor);
    await settleAll(admin, sides);
    await vacuum(admin, schema);
    const latencies = EVALUATE ? await idleLatencies(agentrun, admin, schema) : { median: Number.NaN, max: Number.NaN };
    if (EVALUATE) progress(`agentrun idle, 202 to runs: median ${latencies.median.toFixed(1)} ms, max ${latencies.max.toFixed(1)} ms`);
    const summary = (name: Side['name']) => ({
      acceptedPerSecond: median(windows[name].map((w) => w.acceptedPerSecond)),
      evaluatedPerSecond: median(windows[name].map((w) => w.evaluatedPerSecond)),
      backlog: median(windows[name].map((w) => w.backlog)),
    });
    const costsOf = (name: Side['name']): Costs => {
      const keys = Object.keys(windows[name][0]?.costs ?? {}) as (keyof Costs)[];
      return Object.fromEntries(keys.map((k) => [k, median(windows[name].map((w) => w.costs[k]))])) as unknown as Costs;
    };
    return {
      agentrun: summary('agentrun'),
      peer: summary('peer'),
      floor: summary('floor'),
      costs: costsOf('agentrun'),
      peerCosts: costsOf('peer'),
      p99Ms,
      peerP99Ms,
      floorP99Ms,
      evaluationLatencyMs: latencies.median,
      evaluationLatencyMaxMs: latencies.max,
    };
  } finally {
    for (const side of sides) await stopServer(side.child);
  }
}

function check(what: string, result: { non2xx: number; errors: number; timeouts: number }): void {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${what}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
}

/**
 * One sustained window of a side: accepted and evaluated per second over EVALUATED_SECONDS at
 * CONNECTIONS, the backlog at its end, and what each delivery cost (accept and evaluation, the
 * backlog's evaluation included; with the evaluator off, per delivery accepted).
 */
async function sustained(side: Side, sides: readonly Side[], admin: pg.Client, backends: BackendCpu, schema: string): Promise<Window> {
  await settleAll(admin, sides);
  await vacuum(admin, schema);
  const before = await counters(admin, side);
  const cpuBefore = await cpuSeconds(side.child.pid);
  const backendBefore = await backends.read(side.app);
  const loadgenBefore = process.cpuUsage();
  const t0 = performance.now();
  const result = await load(side.ready.port, side.ready.targets, EVALUATED_SECONDS, side.counter, CONNECTIONS);
  const seconds = (performance.now() - t0) / 1000;
  const loadgen = process.cpuUsage(loadgenBefore);
  const after = await counters(admin, side);
  check(`${side.name} sustained`, result);
  const accepted = after.accepted - before.accepted;
  const window = {
    acceptedPerSecond: accepted / seconds,
    evaluatedPerSecond: (after.evaluated - before.evaluated) / seconds,
    backlog: after.pending,
  };
  const settled = await settle(admin, side);
  const done = EVALUATE ? settled.evaluated - before.evaluated : settled.accepted - before.accepted;
  const costs: Costs = {
    serverCpuUsPerDelivery: (((await cpuSeconds(side.child.pid)) - cpuBefore) * 1e6) / done,
    backendCpuUsPerDelivery: (cpuBetween(backendBefore, await backends.read(side.app)) * 1000) / done,
    loadgenCpuUsPerDelivery: (loadgen.user + loadgen.system) / accepted,
    statementsPerDelivery: (settled.statements - before.statements) / done,
    commitsPerDelivery: (settled.commits - before.commits) / done,
    backendMsPerDelivery: (settled.activeMs - before.activeMs) / done,
    walBytesPerDelivery: (settled.walBytes - before.walBytes) / done,
    walFpiPerDelivery: (settled.walFpi - before.walFpi) / done,
  };
  progress(
    `${side.name}, ${seconds.toFixed(1)} s: ${window.acceptedPerSecond.toFixed(0)} accepted/s, ${window.evaluatedPerSecond.toFixed(0)} evaluated/s, ` +
      `backlog ${window.backlog}; per delivery: ${costs.statementsPerDelivery.toFixed(2)} statements, ${costs.commitsPerDelivery.toFixed(2)} commits, ` +
      `${costs.serverCpuUsPerDelivery.toFixed(0)} µs server CPU, ${costs.backendCpuUsPerDelivery.toFixed(0)} µs its backends', ${costs.loadgenCpuUsPerDelivery.toFixed(0)} µs autocannon's, ` +
      `${(costs.walBytesPerDelivery / 1024).toFixed(1)} KiB of WAL (${costs.walFpiPerDelivery.toFixed(2)} full pages)`,
  );
  return { ...window, costs };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

interface Counters {
  accepted: number;
  evaluated: number;
  pending: number;
  statements: number;
  commits: number;
  activeMs: number;
  /** WAL written by the whole server, and its full-page images (pg_stat_wal). */
  walBytes: number;
  walFpi: number;
}

/** A side's delivery counts, and its statements so far and the database's commits and active time. */
async function counters(admin: pg.Client, side: Side): Promise<Counters> {
  type Row = {
    accepted: number;
    pending: number;
    commits: string;
    active_ms: number;
    wal_bytes: string;
    wal_fpi: string;
  };
  const { rows } = await admin.query<Row>(
    `SELECT count(*)::int AS accepted, count(*) FILTER (WHERE ${side.pendingWhere})::int AS pending,
      (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits,
      (SELECT active_time FROM pg_stat_database WHERE datname = current_database()) AS active_ms,
      (SELECT wal_bytes FROM pg_stat_wal) AS wal_bytes, (SELECT wal_fpi FROM pg_stat_wal) AS wal_fpi
     FROM ${side.table}`,
  );
  const row = rows[0] as Row;
  return {
    accepted: row.accepted,
    evaluated: row.accepted - row.pending,
    pending: row.pending,
    statements: await statementsOf(side.child),
    commits: Number(row.commits),
    activeMs: Number(row.active_ms),
    walBytes: Number(row.wal_bytes),
    walFpi: Number(row.wal_fpi),
  };
}

/**
 * VACUUM (ANALYZE) every table of the bench's schemas (every side's): what autovacuum does between
 * windows on a server that runs it. A database that runs without it (the test machines' does) keeps
 * every dead row version and index entry of the windows before, which the sides that update and
 * delete (agentrun's claims, evaluations and rate windows; the peer's jobs) would meet in every
 * later window, and the floor route, which only inserts, would not.
 */
async function vacuum(admin: pg.Client, schema: string): Promise<void> {
  const { rows } = await admin.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = ANY($1::text[])`,
    [[schema, peerGraphileSchema(schema)]],
  );
  if (rows.length > 0) await admin.query(`VACUUM (ANALYZE) ${rows.map((r) => r.name).join(', ')}`);
}

/** Wait until no side has anything awaiting evaluation: another's backlog would share the machine with what is measured. */
async function settleAll(admin: pg.Client, sides: readonly Side[]): Promise<void> {
  for (const side of sides) await settle(admin, side);
}

/** Wait until nothing of a side awaits evaluation (at most 60 s; not at all with the evaluator off); its counters then. */
async function settle(admin: pg.Client, side: Side): Promise<Counters> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const [row] = (await admin.query<{ n: number }>(side.pendingCount)).rows;
    if (row?.n === 0 || !EVALUATE || performance.now() > deadline) {
      // pg_stat_database is updated when a backend reports, about once a second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      return counters(admin, side);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * 20 deliveries one at a time to an idle agentrun: for each, the time from its 202 until the
 * database shows it evaluated (its runs are written in the same transaction), polled every
 * millisecond. Median and max, in ms.
 */
async function idleLatencies(side: Side, admin: pg.Client, schema: string) {
  const body = bodyTemplate();
  const target = side.ready.targets[0] as IngressTarget;
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const n = side.counter.n++;
    const res = await fetch(`http://127.0.0.1:${side.ready.port}${target.path}`, {
      method: 'POST',
      headers: deliveryHeaders(target, n, body(n)),
      body: body(n),
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
