import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';
import { cpuSeconds } from './ingress.js';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * What an event costs the server with many live streams of one run (docs/production.md, "Event
 * streams: one read per run"), on PostgreSQL. The core handler (no HTTP) serves N streams of one
 * run (`Accept: text/event-stream`) on a store of its own; a writer on a connection of its own
 * appends EVENTS events one at a time, each once every stream has shown the one before. Counted:
 * this process's CPU (the handler, its store, the streams' readers, which count frames on their
 * bytes and do little else, the writer's client) and
 * the CPU of the store's backends (its pool and its listening connection, found by
 * `application_name`; the writer's backend is not counted). Per event, at N = 1 and N = 100.
 */
const EVENTS = 400;
const WARMUP = 40;
const MANY = 100;

export const sseGroup: BenchGroup = {
  name: 'sse',
  description: `server CPU per event with ${MANY} live streams of one run vs 1, PostgreSQL store`,
  run: () => inScratchSchema('bench_sse', measure),
};

async function measure(url: string, schema: string): Promise<Record<string, number>> {
  const one = await cpuPerEvent(url, schema, 1);
  const many = await cpuPerEvent(url, schema, MANY);
  console.log(`1 stream: ${one.toFixed(0)} µs of CPU per event; ${MANY} streams: ${many.toFixed(0)} µs`);
  return { 'sse.cpu_us_per_event_1': one, [`sse.cpu_us_per_event_${MANY}`]: many, 'sse.cpu_100_vs_1_streams': many / one };
}

async function cpuPerEvent(baseUrl: string, schema: string, streams: number): Promise<number> {
  const appName = `bench_sse_${process.pid}_${streams}`;
  const withName = new URL(baseUrl);
  withName.searchParams.set('application_name', appName);
  const store = createPostgresStore({ connectionString: withName.toString(), schema });
  const writer = new pg.Client({ connectionString: baseUrl });
  await writer.connect();
  try {
    await store.migrate();
    const handler = createAgentRunHandler({ store });
    const key = await createApiKey(store.apiKeys, { type: 'service_account', uid: 'bench', team_uid: 'team' });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await handler(
      new Request('http://bench.local/api/v1/agent/run', { method: 'POST', headers, body: JSON.stringify({ prompt: 'stream me' }) }),
    );
    const { run_id: runId } = (await created.json()) as { run_id: string };
    const readers = await Promise.all(
      Array.from({ length: streams }, async () => {
        const res = await handler(
          new Request(`http://bench.local/api/v1/agent/runs/${runId}/events`, { headers: { ...headers, accept: 'text/event-stream' } }),
        );
        return frameCounter(res);
      }),
    );
    const append = (n: number) =>
      writer.query(`SELECT ${schema}.agentrun_append_run_events($1, $2::jsonb, 10000)`, [
        runId,
        JSON.stringify([{ at: new Date().toISOString(), type: 'output', data: { text: `line ${n}: ${'x'.repeat(100)}` } }]),
      ]);
    const step = async (n: number) => {
      await append(n);
      await Promise.all(readers.map((r) => r.until(n)));
    };
    for (let n = 1; n <= WARMUP; n++) await step(n);
    const pids = (await writer.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [appName])).rows.map(
      (r) => r.pid,
    );
    const backends = async () => (await Promise.all(pids.map(cpuSeconds))).reduce((a, b) => a + b, 0);
    const backendBefore = await backends();
    const before = process.cpuUsage();
    for (let n = WARMUP + 1; n <= WARMUP + EVENTS; n++) await step(n);
    const used = process.cpuUsage(before);
    const backendUs = ((await backends()) - backendBefore) * 1e6;
    for (const r of readers) await r.cancel();
    return (used.user + used.system + backendUs) / EVENTS;
  } finally {
    await writer.end();
    await store.close();
  }
}

/**
 * Counts a stream's events as they arrive (ids are 1, 2, 3, …, so the count is the last id):
 * `until(n)` resolves once event n has come. Frames are counted on their bytes (an event frame
 * starts with `i` of `id:`, a heartbeat with `:`; each ends with a blank line), without decoding
 * or matching text, so that the CPU counted in this process is the server's: reading each
 * stream, as the Node bridge reads it to write a socket, and hardly anything more.
 */
function frameCounter(res: Response) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let seen = 0;
  let lineFeed = false;
  let frameStart = true;
  let event = false;
  let waiting: { n: number; resolve: () => void } | undefined;
  void (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return;
      const bytes = chunk.value;
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i];
        if (frameStart) {
          event = b === 0x69;
          frameStart = false;
        }
        if (b !== 0x0a) lineFeed = false;
        else if (!lineFeed) lineFeed = true;
        else {
          if (event) seen++;
          lineFeed = false;
          frameStart = true;
        }
      }
      if (waiting && seen >= waiting.n) {
        const { resolve } = waiting;
        waiting = undefined;
        resolve();
      }
    }
  })();
  return {
    until: (n: number) => (seen >= n ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { n, resolve }))),
    cancel: () => reader.cancel().catch(() => {}),
  };
}
