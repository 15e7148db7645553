import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { createPostgresStore } from '@agentrun/store-postgres';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * Run transcripts on PostgreSQL (docs/run-api.md, "Run events"; docs/stores.md, "Run events"):
 * what one append costs (one call of `agentrun_append_run_events`), what a page of 100 events
 * costs through the HTTP handler, and how soon a Server-Sent Events stream served by one store
 * instance sends an event another instance (its own pool, as another server process) appended:
 * from before the append to the frame read off the stream, so it includes the append's commit,
 * the NOTIFY and the stream's read.
 *
 * `DATABASE_URL`, else the local server the tests use. Without a server the group is skipped.
 */

const SAMPLES = 200;
const WARMUP = 10;
const TEAM = 'bench-team';
const BASE = 'http://bench.local/api/v1';

export const transcriptGroup: BenchGroup = {
  name: 'transcript',
  description: 'PostgreSQL run transcripts: append, a page of 100 events, and append (another instance) → SSE frame',
  run: () => inScratchSchema('bench_transcript', measure),
};

const p = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
};

async function measure(url: string, schema: string): Promise<Record<string, number>> {
  // The server side listens (its stream wakes on notifications); the writer only writes.
  const server = createPostgresStore({ connectionString: url, schema, poolSize: 4 });
  const writer = createPostgresStore({ connectionString: url, schema, poolSize: 2, listen: false });
  try {
    await server.migrate();
    const handler = createAgentRunHandler({ store: server });
    const key = await createApiKey(server.apiKeys, { type: 'service_account', uid: 'bench', team_uid: TEAM });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await handler(new Request(`${BASE}/agent/run`, { method: 'POST', headers, body: '{"prompt":"bench"}' }));
    const runId = ((await created.json()) as { run_id: string }).run_id;
    const line = (i: number) => ({
      at: new Date().toISOString(),
      type: 'output' as const,
      data: { text: `line ${i} of the agent's output` },
    });

    const append: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const t0 = performance.now();
      await writer.runEvents.append(runId, [line(i)]);
      if (i >= WARMUP) append.push(performance.now() - t0);
    }

    const page: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const t0 = performance.now();
      const res = await handler(new Request(`${BASE}/agent/runs/${runId}/events?limit=100&after=${i}`, { headers }));
      await res.json();
      if (i >= WARMUP) page.push(performance.now() - t0);
    }

    // The stream starts after everything so far; each sample appends one event and reads its frame.
    const stream = await handler(
      new Request(`${BASE}/agent/runs/${runId}/events?after=${WARMUP + SAMPLES}`, { headers: { ...headers, accept: 'text/event-stream' } }),
    );
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const nextFrame = async () => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!frame.startsWith(':')) return frame;
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error('the stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    };
    const lag: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const t0 = performance.now();
      await writer.runEvents.append(runId, [line(i)]);
      const frame = await nextFrame();
      if (!frame.startsWith(`id: ${WARMUP + SAMPLES + i + 1}\n`)) throw new Error(`unexpected frame: ${frame.slice(0, 40)}`);
      if (i >= WARMUP) lag.push(performance.now() - t0);
    }
    await reader.cancel();

    console.log(
      `${SAMPLES} samples: append p50 ${p(append, 0.5).toFixed(2)} ms, p99 ${p(append, 0.99).toFixed(2)} ms; ` +
        `page of 100 p50 ${p(page, 0.5).toFixed(2)} ms, p99 ${p(page, 0.99).toFixed(2)} ms; ` +
        `append → SSE frame (other instance) p50 ${p(lag, 0.5).toFixed(2)} ms, p99 ${p(lag, 0.99).toFixed(2)} ms`,
    );
    return {
      'transcript.append_p50_ms': p(append, 0.5),
      'transcript.append_p99_ms': p(append, 0.99),
      'transcript.page100_p50_ms': p(page, 0.5),
      'transcript.page100_p99_ms': p(page, 0.99),
      'transcript.sse_lag_p50_ms': p(lag, 0.5),
      'transcript.sse_lag_p99_ms': p(lag, 0.99),
    };
  } finally {
    await writer.close();
    await server.close();
  }
}
