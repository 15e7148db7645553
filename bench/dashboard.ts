import { BOOTSTRAP_PRINCIPAL, startReferenceServer } from '@agentrun/server';
import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * The dashboard's overview (docs/dashboard.md, "Overview") on the PostgreSQL store holding RUNS
 * runs of the signed-in team over the last 7 days (set-based inserts into the store's own table:
 * terminal runs of three harnesses and twelve config names with log-spread durations, some
 * running, some queued for a host no worker serves so they stay queued), opened in headless
 * Chromium (CHROMIUM_PATH, else /usr/bin/chromium) on the same machine, signed in already (the
 * key put in sessionStorage before the page's scripts run). The stats' rollups are folded once
 * after seeding, as the server's maintenance does every minute.
 *
 * Per load, from the page's Performance API: first-contentful-paint, the moment every one of the
 * overview's reads has answered (`agentrun:overview-loaded`) and the moment every chart has drawn
 * (the last `agentrun:chart-drawn` mark, each chart's first draw, or the loaded mark if later):
 * ms since navigation start; and, to tell the parts apart, when app.js had arrived and the longest
 * of the page's API reads (Resource Timing); then each read alone from the bench, median of LOADS. One untimed load first (the server's and PostgreSQL's caches), then
 * the median of LOADS loads, each in a fresh browser context (no HTTP cache).
 */
const RUNS = 100_000;
const LOADS = 5;
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** The overview's reads at its 7-day range (pages/overview-page.tsx). */
const READS = [
  'stats/runs?range=7d',
  'stats/run-durations?range=7d',
  'stats/deliveries?range=7d',
  'stats/queue',
  'stats/callbacks?range=7d',
  'workers',
];

export const dashboardGroup: BenchGroup = {
  name: 'dashboard',
  description: `the overview's first paint and full draw in Chromium, PostgreSQL store with ${RUNS / 1000}k runs`,
  run: () => inScratchSchema('bench_dash', measure),
};

/** RUNS runs of the bootstrap key's team, created over the last 7 days, newest at i = 1. */
const seedSql = (schema: string) => `
INSERT INTO ${schema}.runs (id, team_uid, title, prompt, state, created_at, started_at, updated_at, source, creator, config, conversation_id)
SELECT 'bench-' || i, $1, 'Triage errors in ingest', 'Triage errors in ingest #' || i, s.state,
       c.at, CASE WHEN s.state = 'QUEUED' THEN NULL ELSE c.at + interval '2 seconds' END,
       CASE WHEN s.state IN ('SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED')
            THEN c.at + interval '2 seconds' + (exp(ln(1000) + (i * 7919 % 1000) / 1000.0 * ln(1800)) * interval '1 millisecond')
            ELSE c.at + interval '2 seconds' END,
       'API', jsonb_build_object('type', 'service_account', 'uid', 'bootstrap'),
       jsonb_build_object('name', 'triage-' || (i % 12), 'harness', jsonb_build_object('type', (ARRAY['claude', 'codex', 'gemini'])[1 + i % 3]))
         || CASE WHEN s.state = 'QUEUED' THEN jsonb_build_object('worker_host', 'bench-nowhere') ELSE '{}'::jsonb END,
       'conv-' || i
FROM generate_series(1, $2::int) AS g(i),
     LATERAL (SELECT now() - (i::float / $2 * 604000) * interval '1 second' AS at) c,
     LATERAL (SELECT CASE WHEN i <= 20 THEN 'QUEUED' WHEN i <= 30 THEN 'INPROGRESS'
                          WHEN i % 20 = 0 THEN 'FAILED' WHEN i % 33 = 0 THEN 'CANCELLED' WHEN i % 97 = 0 THEN 'ERROR'
                          ELSE 'SUCCEEDED' END AS state) s`;

interface Load {
  fcp: number;
  loaded: number;
  drawn: number;
  /** When app.js had arrived. */
  script: number;
  /** The longest of the overview's API reads, request to last byte. */
  slowestRead: number;
  /** When the first of them left. */
  firstRead: number;
}

async function measure(url: string, schema: string): Promise<Record<string, number>> {
  const store = createPostgresStore({ connectionString: url, schema });
  await store.migrate();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const started = performance.now();
    await db.query(seedSql(schema), [BOOTSTRAP_PRINCIPAL.team_uid, RUNS]);
    await db.query(`VACUUM (ANALYZE) ${schema}.runs`);
    console.log(`${RUNS} runs seeded in ${Math.round(performance.now() - started)} ms`);
  } finally {
    await db.end();
  }
  // As the maintenance task does each minute on a running server (docs/stores.md, "Stats").
  const folding = performance.now();
  await store.stats.compact({ now: new Date().toISOString() });
  console.log(`stats rollups folded in ${Math.round(performance.now() - folding)} ms`);
  const server = await startReferenceServer({ port: 0, store });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const loads: Load[] = [];
  const reads: Record<string, number> = {};
  try {
    for (let n = 0; n <= LOADS; n++) {
      const load = await openOverview(browser, server.url, server.apiKey);
      if (n > 0) loads.push(load);
    }
    // Each of the page's reads alone, from here, one at a time: which one the page waits for.
    for (const path of READS) {
      const times: number[] = [];
      for (let n = 0; n < LOADS; n++) {
        const t0 = performance.now();
        const res = await fetch(`${server.url}/api/v1/${path}`, { headers: { authorization: `Bearer ${server.apiKey}` } });
        if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        times.push(performance.now() - t0);
      }
      reads[`dashboard.read_ms.${path.replace(/\?.*/, '')}`] = times.sort((a, b) => a - b)[Math.floor(LOADS / 2)] as number;
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(
    loads
      .map(
        (l) =>
          `app.js ${l.script.toFixed(0)} ms, fcp ${l.fcp.toFixed(0)} ms, first read ${l.firstRead.toFixed(0)} ms, slowest read ${l.slowestRead.toFixed(0)} ms, loaded ${l.loaded.toFixed(0)} ms, drawn ${l.drawn.toFixed(0)} ms`,
      )
      .join('\n'),
  );
  const median = (key: keyof Load) => {
    const sorted = loads.map((l) => l[key]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] as number;
  };
  return {
    ...reads,
    'dashboard.overview_fcp_ms': median('fcp'),
    'dashboard.overview_loaded_ms': median('loaded'),
    'dashboard.overview_drawn_ms': median('drawn'),
    'dashboard.overview_script_ms': median('script'),
    'dashboard.overview_first_read_ms': median('firstRead'),
    'dashboard.overview_slowest_read_ms': median('slowestRead'),
  };
}

async function openOverview(browser: import('playwright-core').Browser, origin: string, apiKey: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript((key) => sessionStorage.setItem('agentrun.dashboard.apiKey', key), apiKey);
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/#range=7d`);
    await page.locator('.overview[data-loaded]').waitFor({ timeout: 60_000 });
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('figure.chart')].every(
          (f) => f.hasAttribute('data-drawn') || !f.querySelector('canvas, .chart-canvas'),
        ),
      undefined,
      { timeout: 60_000 },
    );
    // A string, not a function: tsx's names helper (__name) does not exist in the page.
    return (await page.evaluate(`(() => {
      const at = (name) => performance.getEntriesByName(name).map((e) => e.startTime);
      const loaded = at('agentrun:overview-loaded')[0] ?? NaN;
      const resources = performance.getEntriesByType('resource');
      const script = resources.find((r) => r.name.endsWith('/assets/app.js'))?.responseEnd ?? NaN;
      const api = resources.filter((r) => r.name.includes('/api/v1/'));
      const reads = api.map((r) => r.responseEnd - r.startTime);
      const firstRead = Math.min(...api.map((r) => r.startTime));
      return { fcp: at('first-contentful-paint')[0] ?? NaN, loaded, drawn: Math.max(loaded, ...at('agentrun:chart-drawn')), script, slowestRead: Math.max(...reads), firstRead };
    })()`)) as Load;
  } finally {
    await context.close();
  }
}
