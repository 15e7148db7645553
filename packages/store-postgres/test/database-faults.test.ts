import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/database.js';
import { createOwnCluster, type OwnCluster, ownClusterUnavailable } from './support/own-cluster.js';
import { type ServerProcess, useProcesses } from './support/processes.js';
import { sleep, waitUntil } from './support/wait.js';

// Issue 9, point 1: the reference server (a child process, so an unhandled error would end it)
// survives its database: terminated connections, idle or busy, and a database stopped under load.
// During an outage every answer is a 503 problem with Retry-After, never a 500; when the database
// is back, serving resumes by itself.
const db = await openTestDatabase('database_faults');
afterAll(() => db.close());
const noCluster = ownClusterUnavailable();
if (!db.multiConnection) console.warn('[database-faults.test] skipped: needs a PostgreSQL server');
if (noCluster && process.env.CI === 'true') throw new Error(`CI=true and no cluster can be made for the outage test: ${noCluster}`);

const apiKey = `ar_faults-${Math.random().toString(36).slice(2)}`;
const auth = { authorization: `Bearer ${apiKey}` };

interface Tally {
  statuses: Map<number, number>;
  bad: string[];
}

/**
 * Requests from `workers` concurrent loops until `stop()`: every answer is tallied and checked.
 * With `writes`, every other request creates a run (a write in a transaction).
 */
function load(server: ServerProcess, { workers = 8, writes = true } = {}) {
  const tally: Tally = { statuses: new Map(), bad: [] };
  let running = true;
  const one = async (i: number) => {
    const res =
      !writes || i % 2 === 0
        ? await fetch(`${server.url}/api/v1/agent/runs?limit=5`, { headers: auth })
        : await fetch(`${server.url}/api/v1/agent/run`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ prompt: `load ${i}` }),
          });
    const text = await res.text();
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    const ok = res.status === 200;
    const unavailable =
      res.status === 503 &&
      res.headers.get('retry-after') !== null &&
      res.headers.get('content-type')?.startsWith('application/problem+json') &&
      JSON.parse(text).error === 'unavailable';
    if (!ok && !unavailable && tally.bad.length < 5) tally.bad.push(`${res.status} ${text}`);
  };
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i += workers) await one(i).catch((error) => tally.bad.push(`fetch failed: ${error.message}`));
  });
  return {
    tally,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return tally;
    },
  };
}

const runsAnswer = (server: ServerProcess) => fetch(`${server.url}/api/v1/agent/runs?limit=1`, { headers: auth }).then((r) => r.status);

describe.skipIf(!db.multiConnection)('the server survives terminated connections (shared server, own backends only)', () => {
  const procs = useProcesses();
  const appName = `agentrun_faults_${process.pid}`;
  let admin: pg.Client;
  let server: ServerProcess;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: db.url as string });
    await admin.connect();
  });
  afterAll(() => admin?.end());

  const terminateOurs = async () =>
    (await admin.query('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [appName]))
      .rows[0].n as number;

  it('keeps serving after its idle connections are terminated', async () => {
    const url = `${db.url}${(db.url as string).includes('?') ? '&' : '?'}application_name=${appName}`;
    server = await procs.server({ databaseUrl: url, apiKey, pollIntervalMs: 50 });
    expect(await runsAnswer(server)).toBe(200);
    await sleep(200); // the pool's connections are idle now
    expect(await terminateOurs()).toBeGreaterThan(0);
    await sleep(300); // the 'error' events of the idle connections arrive
    expect(server.exit).toBeUndefined();
    await waitUntil(
      () => runsAnswer(server),
      (s) => s === 200,
      'the server to answer 200 again',
      10_000,
    );
    expect(server.output()).toMatch(/connection lost/);
  }, 60_000);

  it('answers 200 or 503 (never 500) while its connections are terminated under load, then recovers', async () => {
    const url = `${db.url}${(db.url as string).includes('?') ? '&' : '?'}application_name=${appName}`;
    server = await procs.server({ databaseUrl: url, apiKey, pollIntervalMs: 50 });
    const traffic = load(server);
    for (let i = 0; i < 5; i++) {
      await sleep(150);
      await terminateOurs();
    }
    const tally = await traffic.stop();
    expect(tally.bad).toEqual([]);
    expect(tally.statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(server.exit).toBeUndefined();
    await waitUntil(
      () => runsAnswer(server),
      (s) => s === 200,
      'the server to answer 200 again',
      10_000,
    );
  }, 60_000);
});

describe.skipIf(!db.multiConnection || noCluster !== undefined)(
  'the server survives its database stopping under load (own cluster)',
  () => {
    const procs = useProcesses();
    let cluster: OwnCluster | undefined;
    afterEach(() => cluster?.destroy());

    it('answers 503 with Retry-After while the database is down, stays up, and recovers when it returns', async () => {
      cluster = await createOwnCluster();
      const server = await procs.server({ databaseUrl: cluster.url, apiKey, pollIntervalMs: 50, demoDurationMs: 100 });
      expect(await runsAnswer(server)).toBe(200);

      // Reads only: a queue of runs written under load would hold up the run checked at the end.
      const traffic = load(server, { writes: false });
      await sleep(300);
      cluster.stop();
      await waitUntil(
        () => runsAnswer(server),
        (s) => s === 503,
        'a 503 while the database is down',
        15_000,
      );
      await sleep(500);
      expect(server.exit).toBeUndefined();
      cluster.start();
      await waitUntil(
        () => runsAnswer(server),
        (s) => s === 200,
        'a 200 once the database is back',
        20_000,
      );
      await sleep(300);
      const tally = await traffic.stop();

      expect(tally.bad).toEqual([]);
      expect(tally.statuses.get(503) ?? 0).toBeGreaterThan(0);
      expect(tally.statuses.get(200) ?? 0).toBeGreaterThan(0);
      expect(server.exit).toBeUndefined();
      // The worker survived the outage too: a new run is still carried to its end.
      const created = await fetch(`${server.url}/api/v1/agent/run`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'after the outage' }),
      }).then((r) => r.json());
      await waitUntil(
        () => fetch(`${server.url}/api/v1/agent/runs/${created.run_id}`, { headers: auth }).then((r) => r.json()),
        (run) => run.state === 'SUCCEEDED',
        'the run started after the outage to succeed',
        20_000,
      );
    }, 120_000);
  },
);
