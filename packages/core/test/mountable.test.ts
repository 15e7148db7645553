import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { composeMounts, createAgentRun, type Mountable } from '../src/index.js';

describe('mountable parts', () => {
  const agentrun = createAgentRun({ store: createMemoryStore() });
  const dashboard: Mountable = {
    owns: (p) => p === '/dashboard' || p.startsWith('/dashboard/'),
    fetch: async () => new Response('dashboard'),
  };
  const notFound = async () => new Response('none of ours', { status: 404 });

  it('each part owns only its area', () => {
    expect(agentrun.api.owns('/api/v1/agent/runs')).toBe(true);
    expect(agentrun.api.owns('/webhooks/w/x')).toBe(false);
    expect(agentrun.ingress.owns('/webhooks/w/x')).toBe(true);
    expect(agentrun.ingress.owns('/api/v1')).toBe(false);
    expect(agentrun.owns('/api/v1')).toBe(true);
    expect(agentrun.owns('/webhooks')).toBe(false);
    expect(agentrun.owns('/health')).toBe(false);
  });

  it('composeMounts sends each path to the part that owns it, and the rest to notOwned', async () => {
    const app = composeMounts([agentrun, dashboard], notFound);
    expect(app.owns('/dashboard/runs')).toBe(true);
    expect(app.owns('/api/v1/agent/runs')).toBe(true);
    expect(app.owns('/elsewhere')).toBe(false);
    expect(await (await app.fetch(new Request('http://x/dashboard/runs'))).text()).toBe('dashboard');
    expect((await app.fetch(new Request('http://x/api/v1/agent/runs'))).status).toBe(401);
    const other = await app.fetch(new Request('http://x/elsewhere'));
    expect([other.status, await other.text()]).toEqual([404, 'none of ours']);
  });

  it('a part served on its own answers its own paths and none of the other part', async () => {
    const delivery = await agentrun.ingress.fetch(new Request('http://x/webhooks/w/unknown', { method: 'POST', body: '{}' }));
    expect(await delivery.json()).toMatchObject({ status: 404, detail: 'no such webhook' });
    const api = await agentrun.ingress.fetch(new Request('http://x/api/v1/openapi.json'));
    expect(api.status).toBe(404);
    expect(api.headers.get('x-request-id')).toBeTruthy();
    expect(await api.json()).toMatchObject({ detail: 'no route for /api/v1/openapi.json' });
    expect((await agentrun.api.fetch(new Request('http://x/api/v1/openapi.json'))).status).toBe(200);
    expect((await agentrun.api.fetch(new Request('http://x/webhooks/w/unknown', { method: 'POST', body: '{}' }))).status).toBe(404);
    expect((await agentrun.fetch(new Request('http://x/api/v1/openapi.json'))).status).toBe(200);
  });
});
