import { createAgentRunHandler, createApiKey, type ListRunsResponse } from '@agentrun/core';
import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';
import { connectAdmin, DEFAULT_DATABASE_URL, redact, scratchSchema } from './pg-admin.js';
import { measurePostgresIngress } from './postgres-ingress.js';
import type { BenchGroup } from './run.js';

/**
 * The run API through the core handler on the PostgreSQL store, in a schema of its own (the
 * store's `schema` option; the connections keep the server's search_path) that is dropped at the end. Creates per second, then the latency of one filtered, sorted list page (the
 * first page, and a deep page reached by cursor) at 10,000 runs and again at 1,000,000 runs: with
 * keyset indexes the cost of a page must not grow with the table.
 *
 * `DATABASE_URL`, else the local server the tests use. Without a server the group is skipped.
 */

/** The team the lists ask about: it holds 40% of the runs, 72% of its finished runs SUCCEEDED (see loadSql). */
const TEAM = 'acme';
const BASE = 'http://bench.local/api/v1';
/** The measured query: one state, newest first by `updated_at`, a page of 20. */
const LIST_PATH = '/agent/runs?state=SUCCEEDED&sort_by=updated_at&limit=20';
/** The same without a filter: the team's runs, newest change first (the dashboard's first page). */
const UNFILTERED_PATH = '/agent/runs?sort_by=updated_at&limit=20';
/** Pages walked by cursor before the deep page is timed. */
const DEEP_PAGES = 25;
/** Timed requests per query and table size (after WARMUP untimed ones). */
const REPS = 1000;
const WARMUP = 50;
const SMALL = 10_000;
const LARGE = 1_000_000;
/** Rows per INSERT … SELECT when growing to LARGE (one progress line each). */
const LOAD_BATCH = 110_000;
/**
 * Creates: 16 requests in flight through the handler, over a pool of 16 connections (one per
 * in-flight request, as docs/production.md advises); no Idempotency-Key, no attachments, so no
 * transaction: the API-key lookup, then the INSERT. Measured last, on the 1M-row table.
 */
const CREATE_CONCURRENCY = 16;
const POOL_SIZE = 16;
const CREATES = 8_000;

export const postgresGroup: BenchGroup = {
  name: 'postgres',
  description: 'run API through the core handler, PostgreSQL store (creates; list pages at 10k and 1M runs; then postgres-ingress)',
  async run() {
    benchStart = performance.now();
    const baseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
    const admin = await connectAdmin(baseUrl);
    if (!admin) return {};
    const schema = scratchSchema('bench');
    let figures: Record<string, number>;
    try {
      progress(`schema ${schema} on ${redact(baseUrl)}`);
      figures = await measure(baseUrl, schema);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
      progress(`dropped schema ${schema}`);
    }
    // Then webhook deliveries through Fastify vs pgbench, in a scratch schema of their own (also
    // runnable alone: `npm run bench -- postgres-ingress`).
    return { ...figures, ...(await measurePostgresIngress(baseUrl)) };
  },
};

async function measure(url: string, schema: string): Promise<Record<string, number>> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  const capture = captureQueries(pool);
  // A pool we own: the store does not end it, we do.
  const store = createPostgresStore({ pool, schema });
  const runs = `${schema}.runs`;
  const handler = createAgentRunHandler({ store });
  try {
    await store.migrate(); // creates the schema
    const key = await createApiKey(store.apiKeys, { type: 'service_account', uid: 'bench', team_uid: TEAM });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const list = async (path: string): Promise<ListRunsResponse> => {
      const res = await handler(new Request(`${BASE}${path}`, { headers }));
      if (res.status !== 200) throw new Error(`list answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as ListRunsResponse;
    };

    /**
     * Walk DEEP_PAGES pages, then time the first page and the next (deep) page, one request at a
     * time (latency, not throughput). A request is the API-key lookup and the list statement.
     */
    const measureLists = async (label: string) => {
      let cursor: string | undefined;
      for (let page = 0; page < DEEP_PAGES; page++) {
        const body = await list(cursor ? `${LIST_PATH}&cursor=${cursor}` : LIST_PATH);
        if (!body.page_info.next_cursor) throw new Error(`only ${page + 1} pages of SUCCEEDED runs in ${TEAM} at ${label}`);
        cursor = body.page_info.next_cursor;
      }
      const deepPath = `${LIST_PATH}&cursor=${cursor}`;
      const first = await timeRequests(() => list(LIST_PATH));
      const deep = await timeRequests(() => list(deepPath));
      progress(
        `${label}: first page median ${first.median.toFixed(2)} ms, p95 ${first.p95.toFixed(2)} ms; ` +
          `page ${DEEP_PAGES + 1} median ${deep.median.toFixed(2)} ms, p95 ${deep.p95.toFixed(2)} ms`,
      );
      return { first, deep, deepPath };
    };

    // Bulk loads and EXPLAIN on a connection of their own, outside the handler's pool.
    const loader = new pg.Client({ connectionString: url });
    await loader.connect();
    try {
      await loader.query('SELECT setseed(0.42)'); // the same mix of values on every run
      await load(loader, schema, 1, SMALL);
      await settle(loader, runs);
      progress(`${await count(loader, runs)} runs`);
      const small = await measureLists('10k runs');
      const smallUnfiltered = await timeRequests(() => list(UNFILTERED_PATH));

      const started = performance.now();
      for (let from = SMALL + 1; from <= LARGE; from += LOAD_BATCH) {
        const to = Math.min(LARGE, from + LOAD_BATCH - 1);
        await load(loader, schema, from, to);
        progress(`loaded runs ${from}–${to} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
      await settle(loader, runs);
      const sizes = await loader.query<{ heap: string; indexes: string }>(
        `SELECT pg_size_pretty(pg_table_size($1)) AS heap, pg_size_pretty(pg_indexes_size($1)) AS indexes`,
        [runs],
      );
      progress(`${await count(loader, runs)} runs: table ${sizes.rows[0]?.heap}, its indexes ${sizes.rows[0]?.indexes}`);
      const large = await measureLists('1M runs');
      const largeUnfiltered = await timeRequests(() => list(UNFILTERED_PATH));
      progress(
        `without a filter: first page median ${smallUnfiltered.median.toFixed(2)} ms at 10k, ${largeUnfiltered.median.toFixed(2)} ms at 1M`,
      );

      // The plans of the SQL the store sent for the two measured requests, run again under EXPLAIN.
      for (const [title, path] of [
        ['first page', LIST_PATH],
        [`page ${DEEP_PAGES + 1} (cursor)`, large.deepPath],
      ] as const) {
        const [query] = await capture(
          () => list(path),
          (text) => text.includes(`FROM "${schema}"."runs"`),
        );
        if (!query) throw new Error('the list request sent no query on runs');
        const plan = await loader.query(`EXPLAIN (ANALYZE, BUFFERS) ${query.text}`, query.values);
        const lines = plan.rows.map((r: Record<string, string>) => String(r['QUERY PLAN']));
        console.log(
          `\nEXPLAIN (ANALYZE, BUFFERS) at 1M runs, ${title}: ${LIST_PATH}\n${query.text.trim()}\n-- ${JSON.stringify(query.values)}`,
        );
        for (const line of lines) console.log(`  ${line}`);
        if (lines.some((l) => /Seq Scan|Sort Method/.test(l)))
          console.log('  !! the plan scans or sorts: see store-postgres/src/runs-list-sql.ts and the indexes');
      }
      console.log('');
      await explainFilters(loader, capture, list, schema);

      progress(`creating ${CREATES} runs, ${CREATE_CONCURRENCY} in flight, pool of ${POOL_SIZE}`);
      const createPerS = await createRuns(handler, headers);
      progress(`${createPerS.toFixed(0)} creates/s`);

      return {
        'runs.create_per_s': createPerS,
        'runs.list_10k_ms': small.first.median,
        'runs.list_10k_p95_ms': small.first.p95,
        'runs.list_1m_ms': large.first.median,
        'runs.list_1m_p95_ms': large.first.p95,
        'runs.list_1m_vs_10k': large.first.median / small.first.median,
        'runs.list_unfiltered_1m_vs_10k': largeUnfiltered.median / smallUnfiltered.median,
        'runs.list_deep_10k_ms': small.deep.median,
        'runs.list_deep_10k_p95_ms': small.deep.p95,
        'runs.list_deep_1m_ms': large.deep.median,
        'runs.list_deep_1m_p95_ms': large.deep.p95,
        'runs.list_deep_1m_vs_10k': large.deep.median / small.deep.median,
      };
    } finally {
      await loader.end();
    }
  } finally {
    // The app writes the API key's last use before the pool goes (its usage flush is on a timer).
    await handler.app.close(); // closes the store too, which does nothing: the pool is ours
    await pool.end();
  }
}

/**
 * The list filters people combine (docs/production.md, "What each index serves"), each planned
 * and run at 1M runs: the index it reads, the buffers it touched and its time in the database. A
 * plan that scans the table, or sorts more than a page, is flagged.
 */
const FILTER_PATHS = [
  '/agent/runs?limit=20',
  '/agent/runs?limit=20&state=FAILED',
  '/agent/runs?limit=20&state=BLOCKED&state=FAILED',
  '/agent/runs?limit=20&name=triage',
  '/agent/runs?limit=20&name=triage&state=SUCCEEDED',
  '/agent/runs?limit=20&creator=user-7',
  '/agent/runs?limit=20&creator=user-7&state=FAILED',
  '/agent/runs?limit=20&source=GITHUB_ACTION',
  '/agent/runs?limit=20&factory_uid=fac_3',
  '/agent/runs?limit=20&automation_id=aut_17',
  '/agent/runs?limit=20&model_id=gpt-5',
  '/agent/runs?limit=20&environment_id=env_5',
  '/agent/runs?limit=20&created_after=2026-09-01T00:00:00Z',
  '/agent/runs?limit=20&sort_by=created_at',
  '/agent/runs?limit=20&sort_by=created_at&state=FAILED',
  '/agent/runs?limit=20&sort_by=created_at&state=BLOCKED',
  '/agent/runs?limit=20&sort_by=created_at&name=triage',
  '/agent/runs?limit=20&sort_by=created_at&creator=user-7',
  '/agent/runs?limit=20&sort_by=created_at&factory_uid=fac_3',
  '/agent/runs?limit=1&sort_by=created_at&skill_spec=acme/skills:skill-3',
  '/agent/runs?limit=1&sort_by=created_at&environment_id=env_5',
];

async function explainFilters(
  loader: pg.Client,
  capture: ReturnType<typeof captureQueries>,
  list: (path: string) => Promise<unknown>,
  schema: string,
): Promise<void> {
  console.log('\nEXPLAIN (ANALYZE, BUFFERS) of each list filter at 1M runs (team acme):');
  for (const path of FILTER_PATHS) {
    const [query] = await capture(
      () => list(path),
      (text) => text.includes(`FROM "${schema}"."runs"`),
    );
    if (!query) throw new Error(`${path} sent no query on runs`);
    const plan = await loader.query(`EXPLAIN (ANALYZE, BUFFERS) ${query.text}`, query.values);
    const lines = plan.rows.map((r: Record<string, string>) => String(r['QUERY PLAN']));
    const indexes = [...new Set(lines.flatMap((l) => [...l.matchAll(/using (\w+)/g)].map((m) => m[1])))].join(', ');
    const buffers = /shared hit=(\d+)(?: read=(\d+))?/.exec(lines.find((l) => l.includes('Buffers')) ?? '');
    const ms = /Execution Time: ([\d.]+)/.exec(lines.at(-1) ?? '')?.[1];
    const flag = lines.some((l) => /Seq Scan|Sort Method/.test(l)) ? '  !! scans or sorts' : '';
    const read = buffers ? Number(buffers[1]) + Number(buffers[2] ?? 0) : Number.NaN;
    console.log(`  ${path.replace('/agent/runs?', '')}: ${indexes || '(no index)'}; ${read} buffers; ${ms} ms${flag}`);
  }
  console.log('');
}

async function createRuns(handler: (request: Request) => Promise<Response>, headers: Record<string, string>): Promise<number> {
  const names = ['nightly-fixes', 'triage', 'dependency-bumps', 'docs', 'release-notes'];
  const models = ['claude-sonnet-4', 'claude-opus-4', 'gpt-5'];
  const create = async (i: number) => {
    const body = JSON.stringify({
      prompt: `Fix the flaky test in module ${i % 97}: it fails about one run in twenty on CI since the last dependency bump. Ticket #${i}.`,
      config: { name: names[i % names.length], model_id: models[i % models.length] },
    });
    const res = await handler(new Request(`${BASE}/agent/run`, { method: 'POST', headers, body }));
    if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  for (let i = 0; i < 200; i++) await create(-i); // warm up
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < CREATES) await create(next++);
    }),
  );
  return CREATES / ((performance.now() - t) / 1000);
}

interface Timing {
  median: number;
  p95: number;
}

async function timeRequests(request: () => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) await request();
  const ms: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t = performance.now();
    await request();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const rank = (p: number) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)] as number;
  return { median: rank(0.5), p95: rank(0.95) };
}

/**
 * Runs `from`…`to` of LARGE, set-based, as a service that has run for a year and grown: run `i` was
 * created at `now - 365 d × (1 − √(i/LARGE))` (a few minutes of jitter), so later runs are denser
 * and each load appends the next stretch of history, as a live table grows. Teams: acme 40%, globex
 * 20%, eight more 5% each. A run took 10 s to 2 h (mostly short); those that would still be going
 * now are active (INPROGRESS, BLOCKED, CLAIMED, PENDING, QUEUED; leased when a worker holds them),
 * the others finished: SUCCEEDED 72%, FAILED 16%, CANCELLED 8%, ERROR 4%. 400 creators (a few
 * busy ones), 12 agent names, 6 models, 20 environments (or none), 7 sources.
 * `OFFSET 0` keeps each row's random draws in one place (the subquery is not flattened).
 */
const loadSql = (schema: string) => `
INSERT INTO ${schema}.runs (id, team_uid, title, prompt, state, created_at, updated_at, started_at, status_message, source, creator, config,
                  conversation_id, attempts, lease_worker_id, lease_expires_at, factory_uid, trigger)
SELECT gen_random_uuid()::text, team_uid, title, title || '. ' || detail || ' Ticket #' || i || '.', state, created_at, updated_at,
       CASE WHEN state IN ('QUEUED', 'PENDING') THEN NULL ELSE created_at + (updated_at - created_at) / 10 END,
       CASE state
         WHEN 'SUCCEEDED' THEN '{"message":"Succeeded"}'
         WHEN 'FAILED' THEN '{"message":"Tests still fail after three attempts","error_code":"agent_failed"}'
         WHEN 'ERROR' THEN '{"message":"The executor failed","error_code":"executor_error","retryable":true}'
         WHEN 'CANCELLED' THEN '{"message":"Cancelled by User ' || creator_n || '"}'
         WHEN 'INPROGRESS' THEN '{"message":"Working on it (2/3)"}'
         WHEN 'BLOCKED' THEN '{"message":"Waiting for an answer"}'
       END::jsonb,
       source,
       jsonb_build_object('type', 'user', 'uid', 'user-' || creator_n, 'display_name', 'User ' || creator_n, 'email', 'user' || creator_n || '@example.com'),
       jsonb_strip_nulls(jsonb_build_object(
         'name', (ARRAY['nightly-fixes','triage','dependency-bumps','docs','release-notes','flaky-tests','security-audit',
                        'migrations','code-review','perf','onboarding','incident-followup'])[1 + floor(r_name ^ 2 * 12)::int],
         'model_id', (ARRAY['claude-sonnet-4','claude-opus-4','gpt-5','gpt-5-mini','gemini-2.5-pro','claude-haiku-4'])[1 + floor(r_model * 6)::int],
         'environment_id', CASE WHEN r_env < 0.7 THEN 'env_' || floor(r_env * 28.6)::int END,
         'skill_spec', CASE WHEN r_title < 0.2 THEN 'acme/skills:skill-' || floor(r_title * 50)::int END)),
       gen_random_uuid()::text,
       CASE WHEN state = 'QUEUED' THEN 0 ELSE 1 END,
       CASE WHEN state IN ('CLAIMED', 'PENDING', 'INPROGRESS', 'BLOCKED') THEN 'worker-' || (i % 8) END,
       CASE WHEN state IN ('CLAIMED', 'PENDING', 'INPROGRESS', 'BLOCKED') THEN now() + interval '30 seconds' END,
       CASE WHEN r_factory < 0.3 THEN 'fac_' || floor(r_factory * 33.3)::int END,
       CASE WHEN r_factory < 0.3 THEN jsonb_build_object('automation_id', 'aut_' || floor(r_factory * 133.3)::int) END
FROM (
  SELECT i, r_name, r_model, r_env, r_factory, r_title, created_at, state, finished,
         CASE WHEN state = 'QUEUED' THEN created_at WHEN finished THEN created_at + took * interval '1 second'
              ELSE created_at + (now() - created_at) / 2 END AS updated_at,
         CASE WHEN r_team < 0.4 THEN 'acme' WHEN r_team < 0.6 THEN 'globex' ELSE 'team-' || (3 + floor((r_team - 0.6) * 20)::int) END AS team_uid,
         (ARRAY['Fix the flaky test in','Upgrade the dependencies of','Add tracing to','Refactor','Write the docs for','Triage errors in',
                'Review the open PR on','Speed up the build of'])[1 + floor(r_title * 8)::int]
           || ' ' || (ARRAY['auth','billing','search','api-gateway','ingest','web','mobile','scheduler','payments','notifications'])[1 + floor(r_area * 10)::int]
           AS title,
         (ARRAY['Keep the change small and add a test.','Open a PR and ask the owners for review.',
                'Follow the style guide in CONTRIBUTING.md and do not touch generated files.',
                'Explain what you changed and why in the PR description.'])[1 + floor(r_detail * 4)::int] AS detail,
         CASE WHEN r_source < 0.5 THEN 'API' WHEN r_source < 0.65 THEN 'CLI' WHEN r_source < 0.75 THEN 'SLACK' WHEN r_source < 0.8 THEN 'LINEAR'
              WHEN r_source < 0.9 THEN 'SCHEDULED_AGENT' WHEN r_source < 0.95 THEN 'WEB_APP' ELSE 'GITHUB_ACTION' END AS source,
         floor(r_creator ^ 3 * 400)::int AS creator_n
  FROM (
    SELECT i, random() AS r_team, random() AS r_state, random() AS r_jitter, random() AS r_took, random() AS r_name, random() AS r_model,
           random() AS r_env, random() AS r_title, random() AS r_area, random() AS r_detail, random() AS r_source, random() AS r_creator,
           random() AS r_factory
    FROM generate_series($1::int, $2::int) AS g(i)
    OFFSET 0
  ) AS draws
  CROSS JOIN LATERAL (
    SELECT now() - (365 * 86400 * (1 - sqrt(i::float8 / ${LARGE})) + r_jitter * 300) * interval '1 second' AS created_at,
           10 + r_took ^ 2 * 7190 AS took
  ) AS t
  CROSS JOIN LATERAL (SELECT created_at + took * interval '1 second' <= now() AS finished) AS f
  CROSS JOIN LATERAL (
    SELECT CASE WHEN finished THEN
                  CASE WHEN r_state < 0.72 THEN 'SUCCEEDED' WHEN r_state < 0.88 THEN 'FAILED' WHEN r_state < 0.96 THEN 'CANCELLED' ELSE 'ERROR' END
                ELSE
                  CASE WHEN r_state < 0.8 THEN 'INPROGRESS' WHEN r_state < 0.9 THEN 'BLOCKED' WHEN r_state < 0.94 THEN 'CLAIMED'
                       WHEN r_state < 0.96 THEN 'PENDING' ELSE 'QUEUED' END
           END AS state
  ) AS s
  OFFSET 0
) AS v`;

const load = (client: pg.Client, schema: string, from: number, to: number) => client.query(loadSql(schema), [from, to]);

/**
 * As a table that has been live a while: statistics current, visibility map set, autovacuum with
 * nothing to do mid-measurement, and no checkpoint writing the load out while we time (CHECKPOINT
 * needs a superuser or pg_checkpoint; without it we go on).
 */
async function settle(client: pg.Client, runs: string): Promise<void> {
  await client.query(`VACUUM (ANALYZE) ${runs}`);
  await client.query('CHECKPOINT').catch(() => {});
}

const count = async (client: pg.Client, runs: string) =>
  (await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${runs}`)).rows[0]?.n;

interface SentQuery {
  text: string;
  values: unknown[];
}

/**
 * Record the statements the pool's clients send while `during` runs (kept when `keep(text)`), so
 * the EXPLAIN below is of the exact SQL and parameters the store sent, not a re-creation of it.
 */
function captureQueries(pool: pg.Pool) {
  let sink: SentQuery[] | undefined;
  let keep: (text: string) => boolean = () => true;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [text, values] = args;
      if (sink && typeof text === 'string' && keep(text)) sink.push({ text, values: Array.isArray(values) ? values : [] });
      return query(...args);
    };
  });
  return async (during: () => Promise<unknown>, filter: (text: string) => boolean): Promise<SentQuery[]> => {
    const sent: SentQuery[] = [];
    sink = sent;
    keep = filter;
    try {
      await during();
    } finally {
      sink = undefined;
    }
    return sent;
  };
}

let benchStart = performance.now();
function progress(message: string): void {
  console.log(`[postgres ${((performance.now() - benchStart) / 1000).toFixed(1).padStart(6)} s] ${message}`);
}
