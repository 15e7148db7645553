import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeMounts, createAgentRun, createApiKey } from '@agentrun/core';
import { createNodeListener } from '@agentrun/node';
import { createMemoryStore } from '@agentrun/store-memory';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAppBuilt } from '../scripts/build-app.js';
import { createDashboard } from '../src/server/index.js';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';

/**
 * A host that signs people in itself (docs/dashboard.md, "Your own authentication"): its hook
 * hands the browser a key, so the app opens signed in, with the key in no URL, page or storage.
 */
describe.runIf(browserAvailable())('dashboard: the host auth hook', { timeout: 30_000 }, () => {
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    await ensureAppBuilt();
    const store = createMemoryStore();
    const agentrun = createAgentRun({ store });
    const apiKey = await createApiKey(store.apiKeys, { type: 'user', uid: 'ada', display_name: 'Ada', team_uid: 'acme' });
    const dashboard = createDashboard({
      authHook: async (request) => {
        const cookie = request.headers.get('cookie') ?? '';
        if (cookie.includes('session=ada')) return { apiKey };
        if (cookie.includes('session=expired')) return new Response(null, { status: 302, headers: { location: '/login' } });
        return undefined;
      },
    });
    server = createServer(createNodeListener(composeMounts([agentrun, dashboard], (request) => agentrun.fetch(request))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await sharedBrowser();
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('opens signed in with the key the hook hands out, keeping it out of storage and the page', async () => {
    const { page, problems } = await openPage(browser, origin);
    await page.context().addCookies([{ name: 'session', value: 'ada', url: origin }]);
    await page.goto(`${origin}/dashboard/runs`);
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    await page.getByText('No runs yet.').waitFor();
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('falls back to the sign-in form when the hook knows nobody, and lets the hook redirect', async () => {
    const { page, problems } = await openPage(browser, origin);
    await page.goto(`${origin}/dashboard/`);
    await page.getByLabel('API key').waitFor();
    const redirected = await fetch(`${origin}/dashboard/runs`, { headers: { cookie: 'session=expired' }, redirect: 'manual' });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('/login');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
