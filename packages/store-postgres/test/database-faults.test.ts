import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/database.js';
import { createOwnCluster, type OwnCluster, ownClusterUnavailable } from './support/own-cluster.js';
import { type ManagedProcess, type ServerProcess, startServerProcess, useProcesses } from './support/processes.js';
import { sleep, waitUntil } from './support/wait.js';

// The reference server (a child process, so an unhandled error would end it) survives its
// database: terminated connections, idle or busy, and a database stopped under load. During an
// outage every answer is a 503 problem with Retry-After, never a 500; when the database is back,
// serving resumes by itself (docs/production.md, "When the database goes away").
const db = await openTestDatabase('database_faults');
afterAll(() => db.close());
const noCluster = ownClusterUnavailable();
if (!db.multiConnection) console.warn('[database-faults.test] skipped: needs a PostgreSQL server');
if (noCluster && process.env.CI === 'true') throw new Error(`CI=true and no cluster can be made for the outage test: ${noCluster}`);

const apiKey = `ar_faults-${Math.random().toString(36).slice(2)}`;
const auth = { authorization: `Bearer ${apiKey}` };
// Webhooks need sealed secrets: the same key for every server of the file.
const env = { AGENTRUN_SECRET_KEY: randomBytes(32).toString('base64') };

/** A factory and a bearer-token webhook (no automations: deliveries start no runs) on `server`. */
interface Fixture {
  factory: string;
  ingress: string;
  token: string;
}

async function fixture(server: ServerProcess): Promise<Fixture> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const factory = (await post('/factories', { name: 'Faults' })).uid as string;
  const created = await post(`/factories/${factory}/webhooks`, { name: 'faults', auth_mode: 'token' });
  return { factory, ingress: `${server.url}/webhooks/w/${created.webhook.uid}`, token: created.secret };
}

/** One kind of request the load sends, and the status it answers while the database is up. */
interface Kind {
  what: string;
  ok: number[];
  send(server: ServerProcess, f: Fixture, i: number): Promise<Response>;
}

const json = (body: unknown) => ({ method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const RUN_LIST: Kind = { what: 'run API: list', ok: [200], send: (s) => fetch(`${s.url}/api/v1/agent/runs?limit=5`, { headers: auth }) };
const RUN_CREATE: Kind = {
  what: 'run API: create',
  ok: [200],
  send: (s, _, i) => fetch(`${s.url}/api/v1/agent/run`, json({ prompt: `load ${i}` })),
};
const FACTORY_LIST: Kind = { what: 'management: list', ok: [200], send: (s) => fetch(`${s.url}/api/v1/factories`, { headers: auth }) };
const WEBHOOK_LIST: Kind = {
  what: 'management: webhooks',
  ok: [200],
  send: (s, f) => fetch(`${s.url}/api/v1/factories/${f.factory}/webhooks`, { headers: auth }),
};
const SECRET_PUT: Kind = {
  what: 'management: write',
  ok: [200, 201],
  send: (s, _, i) =>
    fetch(`${s.url}/api/v1/team/secrets/FAULTS_${i % 3}`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ value: `v${i}` }),
    }),
};
const DELIVERY: Kind = {
  what: 'webhook ingress',
  ok: [202],
  send: (_, f, i) => fetch(f.ingress, { method: 'POST', headers: { authorization: `Bearer ${f.token}` }, body: `{"n":${i}}` }),
};

interface Tally {
  statuses: Map<string, number>;
  bad: string[];
}

/** A 503 problem+json `unavailable`, retryable, with Retry-After: what an outage must answer. */
function isUnavailableAnswer(res: Response, text: string): boolean {
  if (res.status !== 503 || !res.headers.get('content-type')?.startsWith('application/problem+json')) return false;
  if (!(Number(res.headers.get('retry-after')) > 0)) return false;
  const body = JSON.parse(text);
  return body.error === 'unavailable' && body.retryable === true;
}

/** Send `kind` once and tally it: its ok status, or a 503 unavailable answer; anything else is bad. */
async function tallied(tally: Tally, kind: Kind, server: ServerProcess, f: Fixture, i: number): Promise<number> {
  const res = await kind.send(server, f, i);
  const text = await res.text();
  const key = `${kind.what} ${res.status}`;
  tally.statuses.set(key, (tally.statuses.get(key) ?? 0) + 1);
  if (!kind.ok.includes(res.status) && !isUnavailableAnswer(res, text) && tally.bad.length < 10)
    tally.bad.push(`${kind.what}: ${res.status} ${text}`);
  return res.status;
}

const count = (tally: Tally, status: number) =>
  [...tally.statuses].filter(([k]) => k.endsWith(` ${status}`)).reduce((n, [, c]) => n + c, 0);

/**
 * Requests from `workers` concurrent loops until `stop()`, over the run API and the management
 * API (with `writes`: run creations and secret writes, each a transaction, among them), plus one
 * loop of webhook deliveries, paced under the ingress rate limit (60 a minute per webhook).
 */
function load(server: ServerProcess, f: Fixture, { workers = 8, writes = true } = {}) {
  const tally: Tally = { statuses: new Map(), bad: [] };
  const kinds = writes ? [RUN_LIST, RUN_CREATE, FACTORY_LIST, SECRET_PUT, WEBHOOK_LIST] : [RUN_LIST, FACTORY_LIST, WEBHOOK_LIST];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i += workers) {
      await tallied(tally, kinds[i % kinds.length] as Kind, server, f, i).catch((error) =>
        tally.bad.push(`fetch failed: ${error.message}`),
      );
    }
  });
  const deliveries = (async () => {
    for (let i = 0; running && i < 50; i++) {
      await tallied(tally, DELIVERY, server, f, i).catch((error) => tally.bad.push(`fetch failed: ${error.message}`));
      await sleep(150);
    }
  })();
  return {
    tally,
    stop: async () => {
      running = false;
      await Promise.all([...loops, deliveries]);
      return tally;
    },
  };
}

/** Each kind once, as a client would: which kinds did not answer `expected` (ok, or a 503 unavailable). */
async function everyKind(server: ServerProcess, f: Fixture, expected: 'ok' | 'unavailable'): Promise<string[]> {
  const wrong: string[] = [];
  for (const kind of [RUN_LIST, RUN_CREATE, FACTORY_LIST, WEBHOOK_LIST, SECRET_PUT, DELIVERY]) {
    const res = await kind.send(server, f, 0);
    const text = await res.text();
    const right = expected === 'ok' ? kind.ok.includes(res.status) : isUnavailableAnswer(res, text);
    if (!right) wrong.push(`${kind.what}: ${res.status} ${text}`);
  }
  return wrong;
}

const runsAnswer = (server: ServerProcess) => fetch(`${server.url}/api/v1/agent/runs?limit=1`, { headers: auth }).then((r) => r.status);

describe.skipIf(!db.multiConnection)('the server survives terminated connections (shared server, own backends only)', () => {
  const procs = useProcesses();
  const appName = `agentrun_faults_${process.pid}`;
  const databaseUrl = () => {
    const u = new URL(db.url as string);
    u.searchParams.set('application_name', appName);
    return u.toString();
  };
  let admin: pg.Client;
  // One server for both cases: the first leaves it serving again, which it asserts.
  let server: ServerProcess;
  let f: Fixture;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: db.url as string });
    await admin.connect();
    server = await procs.server({ databaseUrl: databaseUrl(), schema: db.schema, apiKey, pollIntervalMs: 50, env });
    f = await fixture(server);
  }, 90_000);
  afterAll(() => admin?.end());

  /** pg_terminate_backend on the server process's backends only (by its application_name). */
  const terminateOurs = async () =>
    (await admin.query('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [appName]))
      .rows[0].n as number;

  it('keeps serving after its idle connections are terminated', async () => {
    expect(await everyKind(server, f, 'ok')).toEqual([]);
    await sleep(200); // the pool's connections are idle now
    expect(await terminateOurs()).toBeGreaterThan(0);
    await sleep(300); // the 'error' events of the idle connections arrive
    expect(server.exit).toBeUndefined();
    await waitUntil(
      () => everyKind(server, f, 'ok'),
      (wrong) => wrong.length === 0,
      'every kind of request to succeed again',
      10_000,
    );
    expect(server.output()).toMatch(/connection lost/);
    expect(server.output()).not.toContain('postgres://');
  }, 60_000);

  it('answers 2xx or 503 problem+json (never 500) on every path while its connections are terminated under load, then recovers', async () => {
    const traffic = load(server, f);
    for (let i = 0; i < 5; i++) {
      await sleep(150);
      await terminateOurs();
    }
    const tally = await traffic.stop();
    expect(tally.bad).toEqual([]);
    expect(count(tally, 200)).toBeGreaterThan(0);
    expect(server.exit).toBeUndefined();
    await waitUntil(
      () => everyKind(server, f, 'ok'),
      (wrong) => wrong.length === 0,
      'every kind of request to succeed again',
      10_000,
    );
  }, 60_000);
});

describe.skipIf(!db.multiConnection || noCluster !== undefined)(
  'the server survives its database stopping under load (own cluster)',
  () => {
    const procs = useProcesses();
    // One cluster for the cases: each has a schema of its own, and finds the cluster running.
    let cluster: OwnCluster;
    beforeAll(async () => {
      cluster = await createOwnCluster();
    }, 60_000);
    afterAll(() => cluster?.destroy());
    afterEach(() => cluster?.start());

    it('answers 503 with Retry-After on every path while the database is down, stays up, and recovers when it returns', async () => {
      const server = await procs.server({
        databaseUrl: cluster.url,
        schema: 'outage',
        apiKey,
        pollIntervalMs: 50,
        demoDurationMs: 100,
        env,
      });
      const f = await fixture(server);
      expect(await everyKind(server, f, 'ok')).toEqual([]);

      // No run creations under load: a queue of runs would hold up the run checked at the end.
      const traffic = load(server, f, { writes: false });
      await sleep(300);
      cluster.stop();
      await waitUntil(
        () => runsAnswer(server),
        (s) => s === 503,
        'a 503 while the database is down',
        15_000,
      );
      // Every path: run API, management API and webhook ingress, reads and writes.
      expect(await everyKind(server, f, 'unavailable')).toEqual([]);
      await sleep(500);
      expect(server.exit).toBeUndefined();
      cluster.start();
      await waitUntil(
        () => everyKind(server, f, 'ok'),
        (wrong) => wrong.length === 0,
        'every kind of request to succeed once the database is back',
        20_000,
      );
      await sleep(300);
      const tally = await traffic.stop();

      expect(tally.bad).toEqual([]);
      expect(count(tally, 503)).toBeGreaterThan(0);
      expect(count(tally, 200)).toBeGreaterThan(0);
      expect(tally.statuses.get(`${DELIVERY.what} 202`) ?? 0).toBeGreaterThan(0);
      expect(server.exit).toBeUndefined();
      // The worker survived the outage too: a new run is still carried to its end.
      const created = await RUN_CREATE.send(server, f, -1).then((r) => r.json());
      await waitUntil(
        () => fetch(`${server.url}/api/v1/agent/runs/${created.run_id}`, { headers: auth }).then((r) => r.json()),
        (run) => run.state === 'SUCCEEDED',
        'the run started after the outage to succeed',
        20_000,
      );
    }, 120_000);

    it('a server started while its database is down waits for it (no exit) and serves once it is up', async () => {
      cluster.stop();
      let child: ManagedProcess | undefined;
      const starting = startServerProcess(
        { databaseUrl: cluster.url, schema: 'late_start', apiKey, env },
        {
          onSpawn: (p) => {
            child = p;
          },
        },
      );
      try {
        await waitUntil(
          () => child?.output() ?? '',
          (out) => /waiting for the database/.test(out),
          'the server to say it waits for the database',
          30_000,
        );
        expect(child?.exit).toBeUndefined();
        cluster.start();
        const server = await starting;
        const f = await fixture(server);
        expect(await everyKind(server, f, 'ok')).toEqual([]);
      } finally {
        await starting.catch(() => {});
        await child?.stop();
      }
    }, 120_000);
  },
);
