import { type AgentRun, createAgentRun, createApiKey, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Revocation holds at once in every process (docs/operations.md, "API keys"): two agentruns, each
// with its own pool, on one schema; a key revoked through one is refused by the other on its very
// next request, because every request reads the key from the database (no cache).
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('api_keys_processes');
});
afterAll(() => db?.close());

describe('API keys across two processes on one schema', () => {
  it('a key created through A works through B, and once revoked through A is refused by B on its next request', async ({ skip }) => {
    if (!db.multiConnection || !db.newPool) skip('needs a PostgreSQL server: two pools stand for two processes');
    await db.freshStore();
    const pools = [db.newPool?.(), db.newPool?.()].filter((p) => p !== undefined);
    const stores: Store[] = pools.map((pool) => createPostgresStore({ pool, schema: db.schema }));
    const [a, b] = stores.map((store) => createAgentRun({ store })) as [AgentRun, AgentRun];
    try {
      const admin = await createApiKey(stores[0]?.apiKeys as Store['apiKeys'], testPrincipal({ permissions: ['manage_keys'] }));
      const call = (app: AgentRun, method: string, path: string, key: string, body?: unknown) =>
        app.fetch(
          new Request(`http://agentrun.test/api/v1${path}`, {
            method,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          }),
        );

      const res = await call(a, 'POST', '/api-keys', admin, { name: 'shared', scopes: ['read_runs'] });
      expect(res.status).toBe(201);
      const created = (await res.json()) as { id: string; key: string };
      expect((await call(b, 'GET', '/agent/runs', created.key)).status).toBe(200);

      expect((await call(a, 'DELETE', `/api-keys/${created.id}`, admin)).status).toBe(204);
      expect((await call(b, 'GET', '/agent/runs', created.key)).status).toBe(401);
      expect((await call(a, 'GET', '/agent/runs', created.key)).status).toBe(401);

      // B's batched last use of the key reaches the table with one flush.
      await b.flushKeyUsage();
      expect(
        (await stores[0]?.apiKeys.findByHash((await import('@agentrun/core/internal')).sha256Hex(created.key)))?.lastUsedAt,
      ).not.toBeNull();
    } finally {
      await Promise.all(stores.map((s) => s.close?.()));
      await Promise.all(pools.map((p) => p.end()));
    }
  });
});
