import { statsWindow } from '@agentrun/core/api';
import { DURATION_HISTOGRAM_BOUNDS_MS, durationBucket } from '@agentrun/core/store';
import { makeRun } from '@agentrun/core/testing';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from '../src/index.js';
import { up } from '../src/migrations/0005_stats_rollups.js';
import { durationBlocks } from '../src/stats-sql.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// The stats' rollups (migrations/0005_stats_rollups.ts; docs/stores.md, "Stats"): the triggers
// count into core's histogram buckets, and the fold keeps each grain for as long as its range
// reads it. That every answer equals what the records say, before and after a fold, is the
// conformance suite's (core testing/stats-conformance.ts).
let db: TestDatabase;
let store: PostgresStore;
beforeAll(async () => {
  db = await openTestDatabase('stats_rollups');
  await db.freshStore();
  store = createPostgresStore({ db: db.db, schema: db.schema, listen: false });
});
afterAll(() => db?.close());

const table = (name: string) => sql.table(`${db.schema}.${name}`);
const count = async (name: string) =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${table(name)}`.execute(db.db)).rows[0]?.n ?? -1;

describe('stats rollups', () => {
  it("carry core's duration-histogram bounds", () => {
    const literal = /ARRAY\[([\d,\s]+)\]::bigint\[\]/.exec(up)?.[1] ?? '';
    expect(literal.split(',').map((s) => Number(s.trim()))).toEqual(DURATION_HISTOGRAM_BOUNDS_MS);
  });

  it("put a duration in core's bucket, at the bounds too", async () => {
    const bounds = DURATION_HISTOGRAM_BOUNDS_MS;
    const edges = bounds.flatMap((b) => [b - 1, b, b + 1]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 3_000_000_000 }), fc.constantFrom(0, ...edges)), { minLength: 1, maxLength: 50 }),
        async (ms) => {
          const start = Date.UTC(2026, 0, 1);
          const { rows } = await sql<{ b: number }>`
          SELECT ${sql.id(db.schema, 'agentrun_stats_duration_bucket')}(${new Date(start).toISOString()}::timestamptz,
            ${new Date(start).toISOString()}::timestamptz + make_interval(secs => d / 1000.0)) AS b
          FROM unnest(${ms}::bigint[]) WITH ORDINALITY AS u (d, o) ORDER BY o`.execute(db.db);
          expect(rows.map((r) => r.b)).toEqual(ms.map(durationBucket));
        },
      ),
      { numRuns: 20 },
    );
  });

  it('tile a durations read with aligned blocks, few of them', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('1h', '24h', '7d') as fc.Arbitrary<'1h' | '24h' | '7d'>,
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
        (range, now) => {
          const w = statsWindow(range, now);
          const blocks = durationBlocks(w.fromMs, w.toMs);
          let at = w.fromMs;
          for (const b of blocks) {
            const from = Date.parse(b.from);
            const to = Date.parse(b.to);
            expect(from).toBe(at);
            expect(from % (b.stepSeconds * 1000)).toBe(0);
            expect((to - from) % (b.stepSeconds * 1000)).toBe(0);
            at = to;
          }
          expect(at).toBe(w.toMs);
          const count = blocks.reduce((n, b) => n + (Date.parse(b.to) - Date.parse(b.from)) / (b.stepSeconds * 1000), 0);
          expect(count).toBeLessThanOrEqual({ '1h': 30, '24h': 30, '7d': 30 }[range]);
        },
      ),
    );
  });

  it('folds deltas into rollups, and drops what no range reads any more', async () => {
    const now = Date.UTC(2026, 2, 4, 12);
    const at = (agoMs: number) => new Date(now - agoMs).toISOString();
    for (const ago of [60_000, 3 * 3600_000, 3 * 86_400_000, 20 * 86_400_000])
      await store.runs.create({ run: makeRun({ teamUid: 'fold', createdAt: at(ago), updatedAt: at(ago) }), attachments: [] });
    expect(await count('stats_run_deltas')).toBe(4);
    await store.stats.compact({ now: at(0) });
    expect(await count('stats_run_deltas')).toBe(0);
    const grains = await sql<{ step_seconds: number; n: number }>`
      SELECT step_seconds, count(*)::int AS n FROM ${table('stats_run_counts')} WHERE team_uid = 'fold' GROUP BY 1 ORDER BY 1`.execute(
      db.db,
    );
    // The minute grain keeps 2 h, the quarter-hour 2 days, the two-hour 14 days; the 20-day-old run is in none.
    expect(grains.rows).toEqual([
      { step_seconds: 60, n: 1 },
      { step_seconds: 900, n: 2 },
      { step_seconds: 7200, n: 3 },
    ]);
    // An hour later the minute grain has let its run go.
    await store.stats.compact({ now: new Date(now + 2 * 3600_000).toISOString() });
    const left = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM ${table('stats_run_counts')} WHERE team_uid = 'fold' AND step_seconds = 60`.execute(db.db);
    expect(left.rows[0]?.n).toBe(0);
  });
});
