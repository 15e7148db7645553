import type { ClaimRunInput } from '@agentrun/core/store';
import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * The claim with runs routed to a host no worker serves queued ahead of the rest
 * (docs/operations.md, "Worker hosts"; bench/README.md, "claim-routes: a host's backlog").
 *
 * Per case, the store's own table (its migrations) holds BACKLOG runs queued for host `dead`,
 * then QUEUE runs the claimer takes, younger; ANALYZEd. A worker of host `a` claims CLAIMS of them
 * one after another through `store.runs.claimNext` (its prepared statement, as a worker sends it):
 * the median time per claim, on this process's clock. Then the next claim, EXPLAINS times under
 * EXPLAIN (ANALYZE, BUFFERS) with the generic plan the prepared statement settles on, each rolled
 * back: the shared buffers it touched and the server's median time, the whole claim's and that of
 * its part that finds and locks the run (`find_`: the CTE `next`; `CLAIM_PLAN=1` prints the plan). Cases:
 * - `none`: no backlog, unrouted runs, a worker that takes unrouted runs too;
 * - `backlog`: the backlog ahead of unrouted runs, the same worker;
 * - `host_only`: the backlog ahead of runs for host `a`, a worker taking only those (`unrouted: false`).
 */
const BACKLOG = 5000;
const QUEUE = 1000;
const CLAIMS = 200;
const EXPLAINS = 15;

interface Case {
  name: string;
  backlog: number;
  /** The `worker_host` of the runs the claimer takes (`''`: none). */
  queueHost: string;
  claim: Pick<ClaimRunInput, 'host' | 'unrouted'>;
}

const CASES: Case[] = [
  { name: 'none', backlog: 0, queueHost: '', claim: { host: 'a' } },
  { name: 'backlog', backlog: BACKLOG, queueHost: '', claim: { host: 'a' } },
  { name: 'host_only', backlog: BACKLOG, queueHost: 'a', claim: { host: 'a', unrouted: false } },
];

export const claimRoutesGroup: BenchGroup = {
  name: 'claim-routes',
  description: `the claim with ${BACKLOG} runs queued for a host with no worker ahead of the rest: ms per claim, buffers`,
  run: () => inScratchSchema('bench_claim_routes', measure),
};

async function measure(baseUrl: string, schema: string): Promise<Record<string, number>> {
  // The claim's statement as the store sends it, kept to EXPLAIN it.
  let claimQuery: { text: string; values: unknown[] } | undefined;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { text?: string; values?: unknown[] } | undefined;
    if (config?.text?.includes('SKIP LOCKED') && config.text.includes('lease_worker_id'))
      claimQuery = { text: config.text, values: config.values ?? [] };
    return query.apply(this, args);
  } as never;
  const pool = new pg.Pool({ connectionString: baseUrl, max: 2 });
  const out: Record<string, number> = {};
  try {
    const store = createPostgresStore({ pool, schema, listen: false });
    await store.migrate();
    for (const c of CASES) {
      await pool.query(`TRUNCATE "${schema}".runs CASCADE`);
      await insertQueued(pool, schema, 'dead', 0, c.backlog);
      await insertQueued(pool, schema, c.queueHost, c.backlog, QUEUE);
      await pool.query(`ANALYZE "${schema}".runs`);
      const times: number[] = [];
      const input = { workerId: 'w1', now: at(0), leaseExpiresAt: at(600_000), ...c.claim };
      for (let i = 0; i < CLAIMS; i++) {
        const start = performance.now();
        const run = await store.runs.claimNext(input);
        times.push(performance.now() - start);
        if (!run) throw new Error(`${c.name}: the claim found no run`);
      }
      out[`${c.name}.claim_ms_p50`] = round(median(times));
      const plans = [];
      for (let i = 0; i < EXPLAINS; i++) plans.push(await explain(pool, claimQuery, i === 0));
      out[`${c.name}.claim_buffers`] = plans[0]?.buffers ?? 0;
      out[`${c.name}.claim_server_ms`] = round(median(plans.map((p) => p.ms)));
      out[`${c.name}.find_buffers`] = plans[0]?.findBuffers ?? 0;
      out[`${c.name}.find_ms`] = round(median(plans.map((p) => p.findMs)));
    }
  } finally {
    pg.Client.prototype.query = query as never;
    await pool.end();
  }
  return out;
}

/** `n` queued runs for `host` (`''`: none), created one millisecond apart from `from` ms. */
async function insertQueued(pool: pg.Pool, schema: string, host: string, from: number, n: number) {
  if (n === 0) return;
  await pool.query(
    `INSERT INTO "${schema}".runs (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
     SELECT 'run-' || $1 || '-' || g, 'team-1', 't', 'p', 'QUEUED', $2::timestamptz + g * interval '1 millisecond',
       $2::timestamptz, 'API', '{"uid":"user-1"}', jsonb_build_object('worker_host', $1::text), 'c'
     FROM generate_series($3::integer, $3::integer + $4::integer - 1) g`,
    [host, at(0), from, n],
  );
}

interface PlanNode {
  'Subplan Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  'Actual Total Time'?: number;
  Plans?: PlanNode[];
}

/** One claim under EXPLAIN (ANALYZE, BUFFERS), its generic plan, rolled back. */
async function explain(pool: pg.Pool, q: { text: string; values: unknown[] } | undefined, print: boolean) {
  if (!q) throw new Error('no claim was sent');
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE bench_claim AS ${q.text}`);
    const values = q.values.map((v) => (v === null || v === undefined ? 'NULL' : client.escapeLiteral(String(v))));
    const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode; 'Execution Time': number }[] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE bench_claim(${values.join(', ')})`,
    );
    const [top] = rows[0]?.['QUERY PLAN'] ?? [];
    if (!top) throw new Error('no plan');
    // CLAIM_PLAN=1: the plan itself, to read.
    if (print && process.env.CLAIM_PLAN) console.log(JSON.stringify(top.Plan, planKeys, 1));
    // The part that finds and locks the run: the CTE `next` (runs-sql.ts `nextRun`).
    const next = (top.Plan.Plans ?? []).find((n) => n['Subplan Name'] === 'CTE next');
    if (!next) throw new Error('no CTE next in the plan');
    return {
      buffers: (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0),
      findBuffers: (next['Shared Hit Blocks'] ?? 0) + (next['Shared Read Blocks'] ?? 0),
      findMs: next['Actual Total Time'] ?? 0,
      ms: top['Execution Time'],
    };
  } finally {
    await client.query('ROLLBACK');
    await client.query('DEALLOCATE bench_claim');
    client.release();
  }
}

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const round = (x: number) => Math.round(x * 1000) / 1000;

/** The fields of a plan node worth reading. */
const planKeys = (key: string, value: unknown) =>
  key === '' ||
  /^\d+$/.test(key) ||
  [
    'Node Type',
    'Index Name',
    'Relation Name',
    'Plans',
    'Actual Rows',
    'Actual Loops',
    'Shared Hit Blocks',
    'Shared Read Blocks',
    'Rows Removed by Filter',
    'Filter',
    'Index Cond',
  ].includes(key)
    ? value
    : undefined;
