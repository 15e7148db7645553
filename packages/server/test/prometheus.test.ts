import { createServer } from 'node:net';
import { createAgentRun } from '@agentrun/core';
import { createMemoryStore } from '@agentrun/store-memory';
import { metrics } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { servePrometheusMetrics } from '../src/prometheus.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  metrics.disable();
});

it('AGENTRUN_METRICS_PORT: the store calls of an agentrun made after it are scraped in Prometheus text', async () => {
  const served = await servePrometheusMetrics(await freePort(), '127.0.0.1');
  close = served.close;
  const agentrun = createAgentRun({ store: createMemoryStore() });
  await agentrun.store.runs.claimNext({ workerId: 'w', now: new Date().toISOString(), leaseExpiresAt: new Date().toISOString() });
  const text = await (await fetch(served.url)).text();
  expect(text).toMatch(/^agentrun_store_duration_count\{[^}]*agentrun_store_operation="runs.claimNext"[^}]*\} 1$/m);
  expect(text).toMatch(/^agentrun_queue_depth\{[^}]*\} 0$/m);
});
