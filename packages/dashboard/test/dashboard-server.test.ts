import type { AddressInfo } from 'node:net';
import { agentrunExpress } from '@agentrun/adapter-express';
import { agentrunFastify } from '@agentrun/adapter-fastify';
import { composeMounts, createAgentRun } from '@agentrun/core';
import { createMemoryStore } from '@agentrun/store-memory';
import express from 'express';
import Fastify from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAppBuilt } from '../scripts/build-app.js';
import { createDashboard } from '../src/server/index.js';

/**
 * The dashboard's Mountable without a browser (docs/dashboard.md): what it owns, its headers, the
 * SPA fallback, its assets, the host auth hook, and its URLs under Express and Fastify prefixes.
 */
beforeAll(() => ensureAppBuilt(), 60_000);

const get = (dashboard: ReturnType<typeof createDashboard>, path: string, init?: RequestInit) =>
  dashboard.fetch(new Request(`http://dash.test${path}`, init));

describe('createDashboard', () => {
  const dashboard = createDashboard();

  it('owns its prefix only', () => {
    expect(dashboard.owns('/dashboard')).toBe(true);
    expect(dashboard.owns('/dashboard/runs/abc')).toBe(true);
    expect(dashboard.owns('/dashboards')).toBe(false);
    expect(dashboard.owns('/api/v1/agent/runs')).toBe(false);
  });

  it('answers index.html for any client route, with config in data- attributes and a strict CSP', async () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/runs/r-1', '/dashboard/factories/f/webhooks/w']) {
      const response = await get(dashboard, path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await response.text();
      expect(html).toContain('data-base-path="/dashboard"');
      expect(html).toContain('data-api-base="http://dash.test"');
      expect(html).toContain('<script type="module" src="/dashboard/assets/app.js"></script>');
      expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/dashboard/assets/favicon.svg">');
      // No inline script: every <script> has a src.
      expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
      const csp = response.headers.get('content-security-policy')!;
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        // The icon is an image of the page's own origin.
        "img-src 'self'",
      ]) {
        expect(csp).toContain(directive);
      }
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('serves its assets with an ETag, answers 304 to a matching one, and 404 to an unknown asset', async () => {
    const js = await get(dashboard, '/dashboard/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = js.headers.get('etag')!;
    expect((await js.text()).length).toBeGreaterThan(1000);
    expect((await get(dashboard, '/dashboard/assets/app.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await get(dashboard, '/dashboard/assets/app.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await get(dashboard, '/dashboard/assets/secret.txt')).status).toBe(404);
    expect((await get(dashboard, '/dashboard/assets/../../package.json')).status).not.toBe(200);
  });

  it('serves its icon at assets/favicon.svg and at favicon.ico, an SVG that needs nothing the CSP forbids', async () => {
    const svg = await get(dashboard, '/dashboard/assets/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    const body = await svg.text();
    expect(body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>\s*$/s);
    // No script, no inline style, nothing fetched (a favicon is drawn under the page's CSP).
    expect(body).not.toMatch(/<script|<style|\sstyle=|\son\w+=|href=|url\(/i);

    const ico = await get(dashboard, '/dashboard/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/svg+xml');
    expect(ico.headers.get('etag')).toBe(svg.headers.get('etag'));
    expect(await ico.text()).toBe(body);
    expect((await get(dashboard, '/dashboard/favicon.ico', { headers: { 'if-none-match': svg.headers.get('etag')! } })).status).toBe(304);
    // Only at the dashboard's own root: deeper, it is a client route like any other.
    expect((await get(dashboard, '/dashboard/runs/favicon.ico')).headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('refuses other methods and paths outside its prefix', async () => {
    const post = await get(dashboard, '/dashboard/runs', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await get(dashboard, '/elsewhere')).status).toBe(404);
    expect((await get(dashboard, '/dashboard/auth/session')).status).toBe(404);
  });

  it('takes another base path and an API elsewhere, which the CSP then allows to connect to', async () => {
    const other = createDashboard({ basePath: 'ui/', apiBaseUrl: 'https://api.example.com/agents' });
    expect(other.owns('/ui/runs')).toBe(true);
    const response = await get(other, '/ui/runs');
    const html = await response.text();
    expect(html).toContain('data-base-path="/ui"');
    expect(html).toContain('href="/ui/assets/favicon.svg"');
    expect((await get(other, '/ui/favicon.ico')).headers.get('content-type')).toBe('image/svg+xml');
    expect(html).toContain('data-api-base="https://api.example.com/agents"');
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self' https://api.example.com");
  });

  it('refuses a base path that is not a plain path', () => {
    for (const basePath of ['/', '', '/a b', '/x?y']) {
      expect(() => createDashboard({ basePath })).toThrow(/basePath must be a path/);
    }
  });

  it('hands out the host hook’s key at auth/session, never cached, and lets the hook answer instead', async () => {
    const hooked = createDashboard({
      authHook: async (request) => {
        const cookie = request.headers.get('cookie') ?? '';
        if (cookie.includes('user=ada')) return { apiKey: 'key-of-ada' };
        if (cookie.includes('user=banned')) return new Response('go away', { status: 403 });
        return undefined;
      },
    });
    const ok = await get(hooked, '/dashboard/auth/session', { headers: { cookie: 'user=ada' } });
    expect(await ok.json()).toEqual({ api_key: 'key-of-ada' });
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect((await get(hooked, '/dashboard/auth/session')).status).toBe(401);
    expect((await get(hooked, '/dashboard/auth/session', { headers: { cookie: 'user=banned' } })).status).toBe(403);
    expect((await get(hooked, '/dashboard/runs', { headers: { cookie: 'user=banned' } })).status).toBe(403);
    const page = await (await get(hooked, '/dashboard/runs', { headers: { cookie: 'user=ada' } })).text();
    expect(page).toContain('data-auth="host"');
    expect(page).not.toContain('key-of-ada');
  });
});

describe('mounted by the adapters under a prefix', () => {
  const agentrun = createAgentRun({ store: createMemoryStore() });
  const both = composeMounts([agentrun, createDashboard()], (request) => agentrun.fetch(request));

  const check = async (origin: string) => {
    const html = await (await fetch(`${origin}/agents/dashboard/runs`)).text();
    // Assets and routes under the host's prefix, and the API beside the dashboard.
    expect(html).toContain('src="/agents/dashboard/assets/app.js"');
    expect(html).toContain('data-base-path="/agents/dashboard"');
    expect(html).toContain(`data-api-base="${origin}/agents"`);
    expect((await fetch(`${origin}/agents/dashboard/assets/app.css`)).status).toBe(200);
    // The icon's link under the prefix too, and what it names is there.
    expect(html).toContain('href="/agents/dashboard/assets/favicon.svg"');
    expect((await fetch(`${origin}/agents/dashboard/assets/favicon.svg`)).headers.get('content-type')).toBe('image/svg+xml');
    expect((await fetch(`${origin}/agents/dashboard/favicon.ico`)).status).toBe(200);
    expect((await fetch(`${origin}/agents/api/v1/agent/runs`)).status).toBe(401);
  };

  it('Express', async () => {
    const app = express();
    app.use('/agents', agentrunExpress(both));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      await check(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      server.close();
    }
  });

  it('Fastify', async () => {
    const app = Fastify();
    await app.register(agentrunFastify, { handler: both, prefix: '/agents' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      await check(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    } finally {
      await app.close();
    }
  });
});
