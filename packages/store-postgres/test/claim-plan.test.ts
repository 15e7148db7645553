import { CLAIM, type ClaimRunInput } from '@agentrun/core/store';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatements } from '../src/runs-sql.js';
import { tablesIn } from '../src/tables.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// The claim reads only the queues it takes from (runs-sql.ts `nextRun`; docs/operations.md,
// "Worker hosts"): runs queued for a host with no worker, however many, ahead of the rest, are
// never read. Pinned by the plan PostgreSQL keeps for the prepared claim (its generic plan), run
// under EXPLAIN ANALYZE: what it read stays small (the whole backlog was ~40 buffers per 1,000
// runs and every one of them read and filtered out).
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('claim_plan');
});
afterAll(() => db?.close());

const BACKLOG = 3000;
const NOW = '2026-01-01T00:00:00.000Z';
const claimOf = (input: Pick<ClaimRunInput, 'host' | 'unrouted'>): ClaimRunInput => ({
  workerId: 'w1',
  now: NOW,
  leaseExpiresAt: '2026-01-01T00:05:00.000Z',
  ...input,
});

/** `n` queued runs for `host` (`''`: none), ids `<prefix>-<i>`, created a millisecond apart from `from` ms. */
async function queue(prefix: string, host: string, from: number, n: number) {
  await sql`INSERT INTO ${db.table('runs')} (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
    SELECT ${prefix} || '-' || g, 'team-1', 't', 'p', 'QUEUED', ${NOW}::timestamptz + g * interval '1 millisecond',
      ${NOW}::timestamptz, 'API', '{"uid":"user-1"}', jsonb_build_object('worker_host', ${host}::text), 'c'
    FROM generate_series(${from}::integer, ${from + n - 1}::integer) g`.execute(db.db);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** The claim the store sends for `input`, run once under EXPLAIN (ANALYZE, BUFFERS) with its generic plan, rolled back. */
async function explainClaim(input: ClaimRunInput) {
  const call = runStatements(db.db, tablesIn(db.schema)).claim(input, CLAIM, false);
  const literal = (v: unknown) => (v === null || v === undefined ? 'NULL' : `'${String(v).replaceAll("'", "''")}'`);
  let claimed: string | undefined;
  let plan: PlanNode | undefined;
  await db.db
    .transaction()
    .execute(async (tx) => {
      await sql`SET LOCAL plan_cache_mode = force_generic_plan`.execute(tx);
      await sql.raw(`PREPARE claim_plan AS ${call.statement.text}`).execute(tx);
      const explained = await sql
        .raw<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim_plan(${call.values.map(literal).join(', ')})`,
        )
        .execute(tx);
      plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan;
      const leased = await sql<{ id: string }>`SELECT id FROM ${db.table('runs')} WHERE lease_worker_id = 'w1'`.execute(tx);
      claimed = leased.rows[0]?.id;
      await sql`DEALLOCATE claim_plan`.execute(tx);
      throw new RolledBack();
    })
    .catch((error) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  if (!plan) throw new Error('no plan');
  const all = nodes(plan);
  return {
    claimed,
    buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
    filteredOut: Math.max(0, ...all.map((n) => n['Rows Removed by Filter'] ?? 0)),
    seqScans: all.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'runs').length,
  };
}
class RolledBack extends Error {}

describe('the claim with a backlog for a host with no worker ahead of the rest', () => {
  beforeAll(async () => {
    await db.freshStore();
    await queue('dead', 'dead', 0, BACKLOG);
    await queue('unrouted', '', BACKLOG, 10);
    await queue('a', 'a', BACKLOG + 5, 10);
    await sql`ANALYZE ${db.table('runs')}`.execute(db.db);
  });

  it.each([
    { worker: 'of host a taking unrouted runs too', input: { host: 'a' }, oldest: 'unrouted-3000' },
    { worker: 'of host a taking only its own', input: { host: 'a', unrouted: false }, oldest: `a-${BACKLOG + 5}` },
    { worker: 'of no host', input: {}, oldest: 'unrouted-3000' },
  ])('a worker $worker takes its oldest run without reading the backlog', async ({ input, oldest }) => {
    const plan = await explainClaim(claimOf(input));
    expect(plan.claimed).toBe(oldest);
    expect(plan.seqScans).toBe(0);
    expect(plan.filteredOut).toBeLessThanOrEqual(1);
    // Reading the backlog was over 100 (its index pages and every run's heap page).
    expect(plan.buffers).toBeLessThan(60);
  });
});

describe('a claim that takes from both queues', () => {
  it('locks only the run it takes: a concurrent claim takes the other queue’s oldest meanwhile', async ({ skip }) => {
    if (!db.newPool) skip('needs a PostgreSQL server (two connections)');
    await db.freshStore();
    await queue('a', 'a', 0, 1);
    await queue('unrouted', '', 1, 1);
    const pool = db.newPool?.(2);
    if (!pool) return;
    const first = await pool.connect();
    const second = await pool.connect();
    try {
      const runs = runStatements(db.db, tablesIn(db.schema));
      const send = async (client: typeof first, workerId: string) => {
        const call = runs.claim({ ...claimOf({ host: 'a' }), workerId }, CLAIM, false);
        const { rows } = await client.query<{ run: { id: string } }>(call.statement.text, call.values);
        return rows[0]?.run.id;
      };
      await first.query('BEGIN');
      expect(await send(first, 'w1')).toBe('a-0');
      // The first claim is not committed: its run stays locked, the other queue's is not.
      expect(await send(second, 'w2')).toBe('unrouted-1');
      await first.query('COMMIT');
      expect(await send(second, 'w3')).toBeUndefined();
    } finally {
      await first.query('ROLLBACK').catch(() => undefined);
      first.release();
      second.release();
      await pool.end();
    }
  });
});
