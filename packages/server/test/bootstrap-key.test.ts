import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_PRINCIPAL, bootstrapKey } from '../src/bootstrap-key.js';
import { startReferenceServer } from '../src/server.js';

const keysOf = async (store: ReturnType<typeof createMemoryStore>) => store.apiKeys.list(BOOTSTRAP_PRINCIPAL.team_uid);

describe('the bootstrap key', () => {
  it('is made once per store: five starts leave one key, shown by the first only', async () => {
    const store = createMemoryStore();
    const first = await bootstrapKey(store, undefined);
    expect(first).toEqual({ source: 'made', key: expect.stringMatching(/^ar_/) });
    const later = [];
    for (let i = 0; i < 4; i++) later.push(await bootstrapKey(store, undefined));
    const [record] = await keysOf(store);
    expect(later).toEqual(Array(4).fill({ source: 'kept', prefix: record?.prefix }));
    expect(await keysOf(store)).toEqual([
      expect.objectContaining({
        id: 'bootstrap',
        name: 'bootstrap',
        scopes: ['read_runs', 'write_runs', 'read_factory', 'manage_factory', 'manage_keys'],
      }),
    ]);
    expect('key' in first && first.key.startsWith(record?.prefix ?? '?')).toBe(true);
  });

  it('is made once by servers starting at once on one store', async () => {
    const store = createMemoryStore();
    const starts = await Promise.all([1, 2, 3].map(() => bootstrapKey(store, undefined)));
    expect(starts.map((s) => s.source).sort()).toEqual(['kept', 'kept', 'made']);
    expect(await keysOf(store)).toHaveLength(1);
  });

  it('once revoked, is not made again', async () => {
    const store = createMemoryStore();
    await bootstrapKey(store, undefined);
    await store.apiKeys.revoke(BOOTSTRAP_PRINCIPAL.team_uid, 'bootstrap', new Date().toISOString());
    expect(await bootstrapKey(store, undefined)).toEqual({ source: 'revoked' });
    expect(await keysOf(store)).toEqual([]);
  });

  it('given (AGENTRUN_API_KEY) is registered once, named, and no other key is made', async () => {
    const store = createMemoryStore();
    const key = 'given-bootstrap-key-0123456789';
    for (let i = 0; i < 3; i++) expect(await bootstrapKey(store, key)).toEqual({ source: 'given', key });
    expect((await keysOf(store)).map((k) => k.name)).toEqual(['AGENTRUN_API_KEY']);
  });

  it("is the reference server's apiKey when this start knows it; an earlier start's key is not known to a later one", async () => {
    const store = createMemoryStore();
    const first = await startReferenceServer({ port: 0, host: '127.0.0.1', store });
    await first.close();
    expect(first.apiKey).toMatch(/^ar_/);
    const second = await startReferenceServer({ port: 0, host: '127.0.0.1', store });
    await second.close();
    expect(second.bootstrapKey).toEqual({ source: 'kept', prefix: first.apiKey.slice(0, 8) });
    expect(() => second.apiKey).toThrow(/not known to this start/);
  });
});
