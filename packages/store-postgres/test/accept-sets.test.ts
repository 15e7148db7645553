import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT_REFERENCE } from './support/accept-reference.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// agentrun_accept_deliveries takes a batch as sets (one statement per step for the whole batch,
// the rate admissions of a key computed in memory) and agentrun_rate_admit writes the count once
// (migrations/baseline/ingress.ts). The proof that they answer as the plain per-element forms do:
// those, installed here under other names (support/accept-reference.ts), and the store's answer
// the same and leave the same rows for random batches over random states.
let db: TestDatabase;
let client: pg.PoolClient;
let pool: pg.Pool;
beforeAll(async () => {
  db = await openTestDatabase('accept_sets');
  if (!db.newPool) return;
  pool = db.newPool(1);
  client = await pool.connect();
  await client.query(`SET search_path TO ${db.schema}, pg_temp`);
  await client.query(ACCEPT_REFERENCE);
}, 30_000);
afterAll(async () => {
  client?.release();
  await pool?.end();
  await db?.close();
});

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T0 + ms).toISOString();
// Keys of this file's own: a key's advisory lock spans the database, not the schema, and other
// files admit under 'rate:w0' too. The reference takes its locks unsorted, which against another
// transaction's two keys could deadlock.
const TAG = Math.random().toString(36).slice(2, 10);
const KEYS = [`rate:${TAG}:w0`, `rate:${TAG}:w1`, `rate:${TAG}:w2`];

interface Element {
  webhook: number;
  identity: number;
  payload: number | null;
  key: number | null;
  limit: number | null;
  windowMs: number;
  nowMs: number;
  /** Microseconds past the millisecond: the events' column keeps milliseconds. */
  nowUs: number;
}

const element = fc.record<Element>({
  webhook: fc.integer({ min: 0, max: 1 }),
  identity: fc.integer({ min: 0, max: 4 }),
  payload: fc.option(fc.integer({ min: 0, max: 40 }), { freq: 6 }),
  key: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 5 }),
  limit: fc.option(fc.integer({ min: 0, max: 5 }), { freq: 12 }),
  windowMs: fc.constantFrom(400, 1000, 5000),
  // On a grid of 100 ms, so that events fall on window starts and on each other.
  nowMs: fc.integer({ min: 0, max: 30 }).map((n) => n * 100),
  nowUs: fc.constantFrom(0, 0, 0, 499, 500, 999),
});

const state = fc.record({
  // Per key: its events (ms) and its stored count as events + drift, or no count.
  keys: fc.array(
    fc.record({
      events: fc.array(
        fc.integer({ min: -60, max: 25 }).map((n) => n * 100),
        { maxLength: 6 },
      ),
      drift: fc.option(fc.constantFrom(0, 0, 1, -1, 3)),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  // Accepted deliveries already there: (webhook, identity).
  accepted: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 4 })), {
    maxLength: 4,
    selector: ([w, i]) => `${w}:${i}`,
  }),
});

type State = typeof state extends fc.Arbitrary<infer S> ? S : never;

async function seed(s: State): Promise<void> {
  for (const [k, { events, drift }] of s.keys.entries()) {
    for (const ms of events) await client.query('INSERT INTO rate_limit_events (key, at) VALUES ($1, $2)', [KEYS[k], at(ms)]);
    if (drift !== null) await client.query('INSERT INTO rate_limit_counts (key, n) VALUES ($1, $2)', [KEYS[k], events.length + drift]);
  }
  for (const [n, [w, i]] of s.accepted.entries()) {
    await client.query(
      `INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
       VALUES ($1, 'team-1', 'f1', $2, $3, 1, $4, 'Accepted', '\\x41')`,
      [`old-${n}`, `w${w}`, `id-${i}`, at(-100)],
    );
  }
}

/** The arguments of agentrun_accept_deliveries for a batch. */
function argumentsOf(batch: Element[]): unknown[] {
  const payloads = batch.map((e, n) => (e.payload === null ? null : Buffer.alloc(e.payload, n + 1)));
  const now = (e: Element) => `${at(e.nowMs).slice(0, -1)}${String(e.nowUs).padStart(3, '0')}Z`;
  return [
    batch.map((_, n) => `d-${n}`),
    batch.map(() => 'team-1'),
    batch.map(() => 'f1'),
    batch.map((e) => `w${e.webhook}`),
    batch.map((e) => `id-${e.identity}`),
    batch.map((e) => e.payload ?? 0),
    batch.map((e) => at(e.nowMs)),
    Buffer.concat(payloads.filter((p) => p !== null)),
    payloads.map((p) => p?.byteLength ?? null),
    batch.map((e) => (e.key === null ? null : KEYS[e.key])),
    batch.map((e) => (e.key === null ? null : e.limit)),
    batch.map((e) => (e.key === null ? null : at(e.nowMs - e.windowMs))),
    batch.map((e) => (e.key === null ? null : now(e))),
    JSON.stringify(
      batch.map((e, n) => (e.payload === null ? null : { headers: [['x-n', String(n)]], omitted_headers: 0, remote_address: null })),
    ),
  ];
}

/** What one function answered and left behind. */
async function outcome(fn: string, args: unknown[]) {
  const answers = await client.query(
    `SELECT ord, outcome, duplicate_of, window_oldest::text FROM ${fn}($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
      $6::integer[], $7::timestamptz[], $8::bytea, $9::integer[], $10::text[], $11::integer[], $12::timestamptz[], $13::timestamptz[],
      $14::jsonb) ORDER BY ord`,
    args,
  );
  const deliveries = await client.query(
    `SELECT id, webhook_uid, identity, size, received_at::text, status, encode(payload, 'hex') AS payload, evaluation_due_at::text,
       request FROM deliveries ORDER BY id`,
  );
  const events = await client.query('SELECT key, at::text FROM rate_limit_events ORDER BY key, at');
  const counts = await client.query('SELECT key, n FROM rate_limit_counts ORDER BY key');
  return { answers: answers.rows, deliveries: deliveries.rows, events: events.rows, counts: counts.rows };
}

describe('agentrun_accept_deliveries as sets', () => {
  it('answers and writes as its elements one after another would, for random batches and states', async ({ skip }) => {
    if (!db.multiConnection) skip('needs a PostgreSQL server');
    let limited = 0;
    await fc.assert(
      fc.asyncProperty(state, fc.array(element, { minLength: 1, maxLength: 14 }), async (s, batch) => {
        await client.query('BEGIN');
        try {
          await seed(s);
          await client.query('SAVEPOINT seeded');
          const args = argumentsOf(batch);
          const before = await outcome('ref_accept_deliveries', args);
          await client.query('ROLLBACK TO SAVEPOINT seeded');
          const after = await outcome('agentrun_accept_deliveries', args);
          expect(after).toEqual(before);
          if (before.answers.some((a) => a.outcome === 'rate_limited')) limited++;
        } finally {
          await client.query('ROLLBACK');
        }
      }),
      { numRuns: 400 },
    );
    // The batches did reach the limits (the property would otherwise say little about admission).
    expect(limited).toBeGreaterThan(40);
  }, 120_000);

  it('admits one at a time as the plain admission does, with one write of the count', async ({ skip }) => {
    if (!db.multiConnection) skip('needs a PostgreSQL server');
    await fc.assert(
      fc.asyncProperty(state, fc.array(element, { minLength: 1, maxLength: 8 }), async (s, calls) => {
        await client.query('BEGIN');
        try {
          await seed(s);
          const run = async (fn: string) => {
            const answers = [];
            for (const c of calls) {
              const key = KEYS[c.key ?? 0];
              const { rows } = await client.query(`SELECT admitted, window_oldest::text FROM ${fn}($1, $2, $3, $4)`, [
                key,
                c.limit,
                at(c.nowMs - c.windowMs),
                at(c.nowMs),
              ]);
              answers.push(rows[0]);
            }
            const events = await client.query('SELECT key, at::text FROM rate_limit_events ORDER BY key, at');
            const counts = await client.query('SELECT key, n FROM rate_limit_counts ORDER BY key');
            return { answers, events: events.rows, counts: counts.rows };
          };
          await client.query('SAVEPOINT seeded');
          const before = await run('ref_rate_admit');
          await client.query('ROLLBACK TO SAVEPOINT seeded');
          expect(await run('agentrun_rate_admit')).toEqual(before);
        } finally {
          await client.query('ROLLBACK');
        }
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
