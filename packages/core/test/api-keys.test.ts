import { testPrincipal } from '@agentrun/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { demoExecutor } from '../src/executor/demo-executor.js';
import type { ApiKeyEvent } from '../src/keys/key-service.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../src/keys/scopes.js';
import { AREA_BASE } from '../src/routes/route.js';
import { ROUTE_SCOPES } from '../src/routes/scopes.js';
import { ROUTES } from '../src/routes/table.js';
import { expectProblem, setup, T0 } from './helpers.js';

// API keys as a resource (docs/management-api.md, "API keys"; docs/operations.md, "API keys").

/** A principal of the old kind (no scopes) that may also manage keys: the reference server's bootstrap key. */
const keyManager = testPrincipal({ permissions: ['manage_factory', 'manage_keys'] });

const created = async (h: Awaited<ReturnType<typeof setup>>, body: unknown, key?: string) =>
  h.json<{ id: string; key: string; scopes: string[]; prefix: string }>('POST', '/api-keys', { body, ...(key ? { key } : {}) });

describe('the route guard: every API-key route needs exactly its scope', () => {
  const routes = Object.entries(ROUTE_SCOPES) as [keyof typeof ROUTE_SCOPES, ApiKeyScope][];

  it('the scope table covers every API-key route of the table and nothing else', () => {
    const apiKeyRoutes = Object.entries(ROUTES)
      .filter(([, spec]) => spec.auth === 'api_key')
      .map(([op]) => op)
      .sort();
    expect(Object.keys(ROUTE_SCOPES).sort()).toEqual(apiKeyRoutes);
  });

  // Every subset of scopes (31) against every route: 403 exactly where the route's scope is missing.
  const subsets = Array.from({ length: 2 ** API_KEY_SCOPES.length - 1 }, (_, n) => API_KEY_SCOPES.filter((_, i) => ((n + 1) >> i) & 1));
  it(`answers 403 exactly when the key lacks the route's scope (${subsets.length} scope sets × ${routes.length} routes)`, async () => {
    const h = await setup();
    const admin = await h.keyFor(keyManager);
    for (const scopes of subsets) {
      const { status, body } = await created(h, { name: scopes.join('+'), scopes }, admin);
      expect(status).toBe(201);
      for (const [operation, scope] of routes) {
        const spec = ROUTES[operation];
        const path = AREA_BASE.api + spec.path.replace(/\{[^}]+\}/g, 'x');
        const res = await h.call(spec.method, `http://agentrun.test${path}`, {
          key: body.key,
          ...(spec.method === 'GET' || spec.method === 'DELETE' ? {} : { body: {} }),
        });
        const refused = res.status === 403 && ((await res.json()) as { detail: string }).detail === `this needs the ${scope} scope`;
        expect(refused, `${operation} with [${scopes.join(', ')}]: ${res.status}`).toBe(!scopes.includes(scope));
      }
    }
  }, 120_000);

  it('a key minted before scopes keeps its powers: the run API and reads always, manage_factory and manage_keys by permission', async () => {
    const h = await setup();
    const plain = await h.keyFor(testPrincipal({ permissions: [] }));
    expect((await h.call('GET', '/agent/runs', { key: plain })).status).toBe(200);
    expect((await h.call('GET', '/factories', { key: plain })).status).toBe(200);
    await expectProblem(await h.call('POST', '/factories', { key: plain, body: { name: 'f' } }), 403, 'forbidden');
    await expectProblem(await h.call('GET', '/api-keys', { key: plain }), 403, 'forbidden');
    // The harness's own key: a test principal with manage_factory, minted the old way.
    expect((await h.call('POST', '/factories', { body: { name: 'f' } })).status).toBe(201);
    await expectProblem(await h.call('GET', '/api-keys'), 403, 'forbidden');
  });
});

describe('create, list, revoke', () => {
  it('shows the key once; the list never holds a key nor a hash; the key works with its scopes only', async () => {
    const h = await setup();
    const admin = await h.keyFor(keyManager);
    const { status, body } = await created(h, { name: 'CI', scopes: ['read_runs'], expires_at: '2027-01-01T00:00:00Z' }, admin);
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: 'CI',
      scopes: ['read_runs'],
      created_by: { type: 'user', uid: 'user-1', display_name: 'Test User' },
      created_at: new Date(T0).toISOString(),
      last_used_at: null,
      expires_at: '2027-01-01T00:00:00.000Z',
    });
    expect(body.key).toMatch(/^ar_/);
    expect(body.prefix).toBe(body.key.slice(0, 8));

    const list = await h.json<{ api_keys: Record<string, unknown>[] }>('GET', '/api-keys', { key: admin });
    expect(list.status).toBe(200);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(body.key);
    const stored = await h.store.apiKeys.findByHash((await import('../src/util/hash.js')).sha256Hex(body.key));
    expect(text).not.toContain(stored?.hash);
    expect(list.body.api_keys.map((k) => k.id)).toContain(body.id);
    expect(Object.keys(list.body.api_keys[0] as object).sort()).toEqual(
      ['created_at', 'created_by', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'scopes'].sort(),
    );

    expect((await h.call('GET', '/agent/runs', { key: body.key })).status).toBe(200);
    await expectProblem(await h.call('POST', '/agent/run', { key: body.key, body: { prompt: 'x' } }), 403, 'forbidden');
  });

  it('revoked: refused from the next request, gone from the list; revoking again is a 204, another team’s key a 404', async () => {
    const events: ApiKeyEvent[] = [];
    const h = await setup({ onApiKeyEvent: (e) => void events.push(e) });
    const admin = await h.keyFor(keyManager);
    const { body } = await created(h, { name: 'temp', scopes: ['read_runs'] }, admin);
    expect((await h.call('GET', '/agent/runs', { key: body.key })).status).toBe(200);
    expect((await h.call('DELETE', `/api-keys/${body.id}`, { key: admin })).status).toBe(204);
    await expectProblem(await h.call('GET', '/agent/runs', { key: body.key }), 401, 'unauthorized');
    expect((await h.call('DELETE', `/api-keys/${body.id}`, { key: admin })).status).toBe(204);
    const list = await h.json<{ api_keys: { id: string }[] }>('GET', '/api-keys', { key: admin });
    expect(list.body.api_keys.map((k) => k.id)).not.toContain(body.id);

    const other = await h.keyFor(testPrincipal({ team_uid: 'team-2', permissions: ['manage_keys'] }));
    const { body: mine } = await created(h, { name: 'mine', scopes: ['read_runs'] }, admin);
    await expectProblem(await h.call('DELETE', `/api-keys/${mine.id}`, { key: other }), 404, 'not_found');
    expect((await h.call('GET', '/agent/runs', { key: mine.key })).status).toBe(200);

    // The audit seam: one event per change, with the key's view and never the key.
    expect(events.map((e) => [e.kind, e.key.id])).toEqual([
      ['api_key.created', body.id],
      ['api_key.revoked', body.id],
      ['api_key.created', mine.id],
    ]);
    expect(JSON.stringify(events)).not.toContain(body.key);
  });

  it('a failing audit hook is reported to onError, and the key is still answered (never made and lost unseen)', async () => {
    const h = await setup({
      onApiKeyEvent: () => {
        throw new Error('audit store down');
      },
    });
    const admin = await h.keyFor(keyManager);
    const { status, body } = await created(h, { name: 'kept', scopes: ['read_runs'] }, admin);
    expect(status).toBe(201);
    expect((await h.call('GET', '/agent/runs', { key: body.key })).status).toBe(200);
    expect(h.errors).toEqual([new Error('audit store down')]);
  });

  it('expires: refused once the clock passes expires_at; an expiry in the past is a 400', async () => {
    const h = await setup();
    const admin = await h.keyFor(keyManager);
    const expiresAt = new Date(T0 + 60_000).toISOString();
    const { body } = await created(h, { name: 'short', scopes: ['read_runs'], expires_at: expiresAt }, admin);
    h.clock.set(T0 + 59_999);
    expect((await h.call('GET', '/agent/runs', { key: body.key })).status).toBe(200);
    h.clock.set(T0 + 60_000);
    await expectProblem(await h.call('GET', '/agent/runs', { key: body.key }), 401, 'unauthorized');
    const past = await h.call('POST', '/api-keys', { key: admin, body: { name: 'x', scopes: ['read_runs'], expires_at: expiresAt } });
    await expectProblem(past, 400, 'invalid_request');
  });

  it('refuses a bad body with a 400 and a scope the creator lacks with a 403, creating nothing', async () => {
    const h = await setup();
    const admin = await h.keyFor(keyManager);
    for (const body of [
      {},
      { name: '', scopes: ['read_runs'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['root'] },
      { name: 'x', scopes: ['read_runs', 'read_runs'] },
      { name: 'x', scopes: ['read_runs'], expires_at: 'tomorrow' },
      { name: 'x', scopes: ['read_runs'], extra: 1 },
      [],
    ]) {
      await expectProblem(await h.call('POST', '/api-keys', { key: admin, body }), 400, 'invalid_request');
    }
    const { body: limited } = await created(h, { name: 'keys only', scopes: ['manage_keys', 'read_runs'] }, admin);
    const escalate = await h.call('POST', '/api-keys', { key: limited.key, body: { name: 'x', scopes: ['write_runs'] } });
    expect((await expectProblem(escalate, 403, 'forbidden')).detail).toContain('write_runs');
    expect((await created(h, { name: 'ok', scopes: ['read_runs'] }, limited.key)).status).toBe(201);
    const list = await h.json<{ api_keys: { name: string }[] }>('GET', '/api-keys', { key: admin });
    // The harness's keys and `admin` were minted in code, without a name.
    expect(
      list.body.api_keys
        .map((k) => k.name)
        .filter((n) => n !== '')
        .sort(),
    ).toEqual(['keys only', 'ok']);
  });

  it('createApiKey in code still mints a key that works, without scopes (its principal decides)', async () => {
    const h = await setup();
    const key = await createApiKey(h.store.apiKeys, testPrincipal());
    expect((await h.call('POST', '/agent/run', { key, body: { prompt: 'hi' } })).status).toBe(200);
  });
});

describe('last_used_at, written in batches', () => {
  it('no write per request: many uses, one statement at flush, with the latest use; a worker stop flushes too', async () => {
    const h = await setup();
    const admin = await h.keyFor(keyManager);
    const { body } = await created(h, { name: 'used', scopes: ['read_runs'] }, admin);
    const touch = vi.spyOn(h.store.apiKeys, 'touch');
    for (let i = 0; i < 20; i++) {
      h.clock.set(T0 + i * 1000);
      expect((await h.call('GET', '/agent/runs', { key: body.key })).status).toBe(200);
    }
    expect(touch).not.toHaveBeenCalled();
    await h.handler.app.flushKeyUsage();
    expect(touch).toHaveBeenCalledTimes(1);
    const lastUsed = async () =>
      (await h.json<{ api_keys: { id: string; last_used_at: string | null }[] }>('GET', '/api-keys', { key: admin })).body.api_keys.find(
        (k) => k.id === body.id,
      )?.last_used_at;
    expect(await lastUsed()).toBe(new Date(T0 + 19_000).toISOString());

    h.clock.set(T0 + 50_000);
    await h.call('GET', '/agent/runs', { key: body.key });
    await h.handler.app.worker({ executor: demoExecutor() }).stop();
    expect(await lastUsed()).toBe(new Date(T0 + 50_000).toISOString());
  });

  it('a failed write keeps the uses for the next flush and reports the error', async () => {
    const h = await setup();
    const admin = await h.keyFor(keyManager);
    const { body } = await created(h, { name: 'used', scopes: ['read_runs'] }, admin);
    await h.call('GET', '/agent/runs', { key: body.key });
    const touch = vi.spyOn(h.store.apiKeys, 'touch').mockRejectedValueOnce(new Error('store down'));
    await h.handler.app.flushKeyUsage();
    expect(h.errors).toHaveLength(1);
    await h.handler.app.flushKeyUsage();
    expect(touch).toHaveBeenCalledTimes(2);
    expect((await h.store.apiKeys.list('team-1')).find((k) => k.id === body.id)?.lastUsedAt).toBe(new Date(T0).toISOString());
  });
});
