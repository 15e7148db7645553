import { createServer, type Server, type Socket } from 'node:net';
import { inspect } from 'node:util';
import { type AgentRunHandler, createAgentRunHandler } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPostgresStore, isUnavailableError, type PostgresStore, survivePoolErrors } from '../src/index.js';
import { openTestDatabase } from './support/database.js';
import { sleep, waitUntil } from './support/wait.js';

// In one process: which errors mean "the database is unavailable", that every path of the handler
// (run API, management API, webhook ingress, API-key authentication) answers them 503 problem+json
// with Retry-After, and that the pool the store owns survives connections the server closes, idle
// or in the middle of a transaction (docs/production.md, "When the database goes away"). The
// child-process tests are in database-faults.test.ts.
const db = await openTestDatabase('database_faults_store');
afterAll(() => db.close());
if (!db.multiConnection) console.warn('[database-faults-store.test] terminate tests skipped: need a PostgreSQL server');

/** An error as node-postgres reports a server's error: a message and a SQLSTATE `code`. */
const pgError = (code: string, message = `error ${code}`) => Object.assign(new Error(message), { code });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('isUnavailableError', () => {
  it.each([
    ['a refused connection', socketError('ECONNREFUSED')],
    ['a reset connection', socketError('ECONNRESET')],
    ['a connection timing out', socketError('ETIMEDOUT')],
    ['an unknown host', socketError('ENOTFOUND')],
    ['SQLSTATE 08006 connection_failure', pgError('08006')],
    ['SQLSTATE 08001 could not connect', pgError('08001')],
    ['SQLSTATE 57P01 admin_shutdown (pg_terminate_backend)', pgError('57P01', 'terminating connection due to administrator command')],
    ['SQLSTATE 57P02 crash_shutdown', pgError('57P02')],
    ['SQLSTATE 57P03 cannot_connect_now', pgError('57P03', 'the database system is starting up')],
    ['SQLSTATE 53300 too_many_connections', pgError('53300')],
    ["node-postgres' lost connection", new Error('Connection terminated unexpectedly')],
    ["node-postgres' pool timeout", new Error('timeout exceeded when trying to connect')],
    ['a cause chain ending in a refused connection', new Error('query failed', { cause: socketError('ECONNREFUSED') })],
    ['every address refused', new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')], '')],
  ])('is true for %s', (_, error) => {
    expect(isUnavailableError(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['invalid text', pgError('22P02', 'invalid input syntax for type uuid')],
    ['a syntax error', pgError('42601', 'syntax error at or near "SELEC"')],
    ['a serialization failure', pgError('40001')],
    ['a statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a non-error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('is false for %s', (_, error) => {
    expect(isUnavailableError(error)).toBe(false);
  });
});

/** Every path that reaches the store, as a client sends it. */
const REQUESTS: { what: string; method: string; path: string; body?: unknown; headers?: Record<string, string> }[] = [
  { what: 'run API: list', method: 'GET', path: '/api/v1/agent/runs' },
  { what: 'run API: create', method: 'POST', path: '/api/v1/agent/run', body: { prompt: 'hello' } },
  {
    what: 'run API: create with a key',
    method: 'POST',
    path: '/api/v1/agent/run',
    body: { prompt: 'hello' },
    headers: { 'idempotency-key': 'k1' },
  },
  { what: 'run API: get', method: 'GET', path: '/api/v1/agent/runs/00000000-0000-4000-8000-000000000000' },
  { what: 'run API: cancel', method: 'POST', path: '/api/v1/agent/runs/00000000-0000-4000-8000-000000000000/cancel' },
  { what: 'management: list factories', method: 'GET', path: '/api/v1/factories' },
  { what: 'management: create a factory', method: 'POST', path: '/api/v1/factories', body: { name: 'Acme' } },
  {
    what: 'management: create with a key',
    method: 'POST',
    path: '/api/v1/factories',
    body: { name: 'Acme' },
    headers: { 'idempotency-key': 'k2' },
  },
  { what: 'management: list secrets', method: 'GET', path: '/api/v1/team/secrets' },
  { what: 'webhook ingress', method: 'POST', path: '/webhooks/w/wh_unknown', body: { action: 'opened' } },
];

const send = (handler: AgentRunHandler, r: (typeof REQUESTS)[number], auth: Record<string, string> = {}) =>
  handler(
    new Request(`http://agentrun.test${r.path}`, {
      method: r.method,
      headers: { ...auth, ...r.headers, ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
    }),
  );

async function expectUnavailable(res: Response): Promise<void> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 503 });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(JSON.parse(text)).toMatchObject({ status: 503, error: 'unavailable', retryable: true });
}

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a database that cannot be reached: every path answers 503 problem+json with Retry-After', () => {
  const stores: PostgresStore[] = [];
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  const handlerOn = (store: PostgresStore, onError: (error: unknown) => void, withApiKeys = false) =>
    createAgentRunHandler({
      store,
      secretKey: new Uint8Array(32),
      onError,
      ...(withApiKeys ? {} : { authenticate: async () => testPrincipal() }),
    });

  it('refused connections: 503 on the run API, the management API, the ingress and API-key checks; logged once, without the password', async () => {
    const password = 'hunter2-do-not-print';
    const store = createPostgresStore({ connectionString: `postgres://agentrun:${password}@127.0.0.1:${await closedPort()}/agentrun` });
    stores.push(store);
    const logged: unknown[] = [];
    const handler = handlerOn(store, (error) => logged.push(error));
    for (const r of REQUESTS) await expectUnavailable(await send(handler, r));
    // With API keys, the key lookup is the first query: 503 too, not 401 or 500.
    await expectUnavailable(
      await send(
        handlerOn(store, () => {}, true),
        REQUESTS[0] as (typeof REQUESTS)[number],
        { authorization: 'Bearer ar_x' },
      ),
    );
    // One line per 10 s, not one per request; what it logs names no credential.
    expect(logged).toHaveLength(1);
    expect(isUnavailableError(logged[0])).toBe(true);
    expect(inspect(logged[0], { depth: 5 })).not.toContain(password);
  });

  it('a server that accepts but never answers: the pool gives up after connectionTimeoutMillis, answered 503', async () => {
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const store = createPostgresStore({ connectionString: `postgres://agentrun@127.0.0.1:${port}/agentrun`, connectionTimeoutMillis: 200 });
    stores.push(store);
    const handler = handlerOn(store, () => {});
    for (const r of REQUESTS.filter((r) => r.what.endsWith('list') || r.what === 'webhook ingress')) {
      await expectUnavailable(await send(handler, r));
    }
  });
});

describe.skipIf(!db.multiConnection)('connections the server closes (shared server, own backends only)', () => {
  // A name per test: a backend of the test before may still be listed while it exits.
  let appName = '';
  let tests = 0;
  beforeEach(() => {
    appName = `agentrun_faults_store_${process.pid}_${++tests}`;
  });
  const url = () => {
    const u = new URL(db.url as string);
    u.searchParams.set('application_name', appName);
    return u.toString();
  };
  let admin: pg.Client | undefined;
  const stores: PostgresStore[] = [];
  afterEach(() => Promise.all(stores.splice(0).map((s) => s.close())));
  afterAll(() => admin?.end());

  /** pg_terminate_backend on this file's own backends only (by application_name). */
  const terminateOurs = async (): Promise<number> => {
    if (!admin) {
      admin = new pg.Client({ connectionString: db.url as string });
      await admin.connect();
    }
    const result = await admin.query(
      'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
      [appName],
    );
    return result.rows[0].n as number;
  };

  it('idle connections terminated: onError hears it, the process lives, the next query reconnects', async () => {
    const lost: Error[] = [];
    const store = createPostgresStore({ connectionString: url(), schema: db.schema, poolSize: 3, onError: (error) => lost.push(error) });
    stores.push(store);
    // Three connections in the pool, then idle.
    await Promise.all([1, 2, 3].map(() => store.db.selectNoFrom(sql<number>`pg_sleep(0.05)`.as('slept')).execute()));
    const terminated = await terminateOurs();
    expect(terminated).toBe(3);
    await waitUntil(
      () => lost.length,
      (n) => n === terminated,
      "the pool's 'error' events, one per connection",
      10_000,
    );
    await sleep(200); // and no more: the socket's close is not a second report
    expect(lost).toHaveLength(terminated);
    expect(isUnavailableError(lost[0])).toBe(true);
    expect(await store.runs.get('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it("a host's own pool with survivePoolErrors: idle and checked-out connections terminated, each reported once, the pool goes on", async () => {
    const pool = new pg.Pool({ connectionString: url(), max: 2 });
    const lost: Error[] = [];
    survivePoolErrors(pool, (error) => lost.push(error));
    const store = createPostgresStore({ pool, schema: db.schema });
    const held = await pool.connect(); // checked out, between two queries
    let released = false;
    try {
      await store.runs.get('x'); // a second connection, idle in the pool after
      expect(await terminateOurs()).toBe(2);
      await waitUntil(
        () => lost.length,
        (n) => n === 2,
        'one report per terminated connection',
        10_000,
      );
      await sleep(200);
      expect(lost).toHaveLength(2);
      expect(lost.map((e) => (e as { code?: string }).code)).toEqual(['57P01', '57P01']);
      held.release(true);
      released = true;
      expect(await store.runs.get('00000000-0000-4000-8000-000000000000')).toBeUndefined();
    } finally {
      if (!released) held.release(true);
      await store.close(); // does not end a pool it was given
      await pool.end();
    }
  });

  it('the default onError prints one line without the connection string', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    try {
      const store = createPostgresStore({ connectionString: url(), schema: db.schema, poolSize: 1 });
      stores.push(store);
      await store.runs.get('x');
      expect(await terminateOurs()).toBe(1);
      await waitUntil(
        () => lines.length,
        (n) => n > 0,
        'the default onError line',
        10_000,
      );
      expect(lines[0]).toMatch(/^\[agentrun\] postgres: connection lost \(/);
      expect(lines.join('\n')).not.toContain(db.url as string);
      expect(lines.join('\n')).not.toContain('postgres://');
    } finally {
      spy.mockRestore();
    }
  });

  it('a connection terminated inside a transaction: the transaction fails as unavailable, the process lives, the store goes on', async () => {
    const lost: Error[] = [];
    const store = createPostgresStore({ connectionString: url(), schema: db.schema, poolSize: 2, onError: (error) => lost.push(error) });
    stores.push(store);
    const failed = await store.db
      .transaction()
      .execute(async (tx) => {
        await tx.selectNoFrom((eb) => eb.val(1).as('one')).execute();
        await terminateOurs();
        // The server's notice reaches the checked-out client between two queries: its own 'error'.
        await sleep(200);
        await tx.selectNoFrom((eb) => eb.val(2).as('two')).execute();
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toBeDefined();
    expect(store.isUnavailable?.(failed)).toBe(true);
    expect(await store.runs.get('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });
});
