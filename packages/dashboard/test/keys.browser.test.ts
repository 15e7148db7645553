import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The API keys page in a real headless Chromium against the reference server, signed in with its
 * bootstrap key (docs/dashboard.md, "API keys"): create (the key shown once, and it works), the
 * list without the key, revoke (the key refused at once).
 */
describe.runIf(browserAvailable())('dashboard: API keys', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer(), sharedBrowser()]);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/keys`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  const runsWith = (key: string) => fetch(`${server.url}/api/v1/agent/runs`, { headers: { authorization: `Bearer ${key}` } });

  it('creates a key with the scopes chosen, shows it once, and lists it without the key; revoking stops it', async () => {
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Name', { exact: true }).fill('Deploy bot');
    await page.getByRole('checkbox', { name: /read_runs/ }).check();
    await page.getByLabel('Expires in (days; empty: never)').fill('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent()) as string;
    expect(key).toMatch(/^ar_/);
    const row = page.getByRole('row').filter({ hasText: 'Deploy bot' });
    await row.waitFor();
    expect(await row.textContent()).toContain('read_runs');
    expect(await page.locator('table.list').textContent()).not.toContain(key);
    expect(await seriousViolations(page)).toEqual([]);
    expect((await runsWith(key)).status).toBe(200);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await runsWith(key)).status).toBe(401);
  });

  it('signs in with a key that may only manage keys (a 403 on the runs check accepts it) and manages keys with it', async () => {
    const res = await fetch(`${server.url}/api/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Key admin', scopes: ['manage_keys'] }),
    });
    const { key } = (await res.json()) as { key: string };
    const other = await openPage(browser, server.url);
    try {
      await other.page.goto(`${server.url}/dashboard/keys`);
      await other.page.getByLabel('API key').fill(key);
      await other.page.getByRole('button', { name: 'Sign in' }).click();
      await other.page.getByRole('row').filter({ hasText: 'Key admin' }).waitFor();
      expect(other.problems).toEqual([]);
    } finally {
      await other.page.context().close();
    }
  });

  it('says what is missing before asking the API', async () => {
    await page.getByLabel('Name', { exact: true }).fill('No scopes');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Choose at least one scope.').waitFor();
  });
});
