import { createAgentRun, demoExecutor } from '@agentrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from '../src/index.js';
import { createOwnCluster, type OwnCluster, ownClusterUnavailable } from './support/own-cluster.js';
import { waitUntil } from './support/wait.js';

// GET /readyz on PostgreSQL (docs/operations.md, "Health"): ready on a migrated schema; 503
// naming the migrations on one migrate() never ran on; 503 naming the store while the database is
// down, and ready again once it is back, by itself. The database that dies is a cluster of this
// test's own (initdb in a temporary folder): the shared server is never stopped.
const noCluster = ownClusterUnavailable();
if (noCluster && process.env.CI === 'true') throw new Error(`CI=true and no cluster can be made for the readiness test: ${noCluster}`);
if (noCluster) console.warn(`[readiness.test] skipped: ${noCluster}`);

interface Probe {
  status: number;
  body: { status?: string; detail?: string; errors?: { path: string; detail: string }[]; checks?: { name: string; ok: boolean }[] };
  type: string | null;
}

describe.skipIf(noCluster !== undefined)('GET /readyz on PostgreSQL', () => {
  let cluster: OwnCluster;
  const stores: PostgresStore[] = [];
  const storeOn = (schema: string) => {
    const store = createPostgresStore({
      connectionString: cluster.url,
      schema,
      connectionTimeoutMillis: 1000,
      listen: false,
      onError: () => {},
    });
    stores.push(store);
    return store;
  };
  const probe = async (fetch: (r: Request) => Promise<Response>, path = '/readyz'): Promise<Probe> => {
    const res = await fetch(new Request(`http://agentrun.test${path}`));
    return { status: res.status, body: await res.json(), type: res.headers.get('content-type') };
  };

  beforeAll(async () => {
    cluster = await createOwnCluster();
  }, 90_000);
  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => {});
    cluster?.destroy();
  });

  it('is ready on a migrated schema, and names the migrations on a schema never migrated', async () => {
    const migrated = storeOn('ready_yes');
    await migrated.migrate();
    const ready = await probe(createAgentRun({ store: migrated, onError: () => {} }).fetch);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');

    const bare = storeOn('ready_no');
    const notReady = await probe(createAgentRun({ store: bare, onError: () => {} }).fetch);
    expect(notReady.status).toBe(503);
    expect(notReady.type).toContain('application/problem+json');
    expect(notReady.body.errors?.map((e) => e.path)).toEqual(['migrations']);
    expect(notReady.body.errors?.[0]?.detail).toMatch(/^\d+ pending \(0001_/);
    await bare.migrate();
    expect((await probe(createAgentRun({ store: bare, onError: () => {} }).fetch)).status).toBe(200);
  });

  it('fails while the database is unreachable, /healthz still answers, and recovers by itself', async () => {
    const store = storeOn('ready_outage');
    await store.migrate();
    const agentrun = createAgentRun({ store, executor: demoExecutor(), onError: () => {} });
    const worker = agentrun.worker({ pollIntervalMs: 50 });
    worker.start();
    expect((await probe(agentrun.fetch)).status).toBe(200);

    cluster.stop();
    try {
      const down = await probe(agentrun.fetch);
      expect(down.status).toBe(503);
      expect(down.type).toContain('application/problem+json');
      expect(down.body.errors).toEqual([{ path: 'store', detail: 'the database cannot be reached' }]);
      // Liveness reads nothing: the process is alive whatever the database does.
      expect(await probe(agentrun.fetch, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      cluster.start();
    }
    await waitUntil(
      () => probe(agentrun.fetch),
      (p) => p.status === 200,
      '/readyz to recover after the database came back',
    );

    // A worker of this process that stopped makes it unready too.
    await worker.stop();
    const stopped = await probe(agentrun.fetch);
    expect(stopped.status).toBe(503);
    expect(stopped.body.errors?.map((e) => e.path)).toEqual(['workers']);
  }, 120_000);
});
