import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The agent CLIs the server runs, above the runs list, in a real headless Chromium against a
 * reference server whose executor lists them (docs/dashboard.md, its pages). The empty case is in
 * runs.browser.test.ts, whose executor lists none.
 */
describe.runIf(browserAvailable())('dashboard: the harnesses the server runs', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startDashboardServer({
        harnesses: [{ type: 'claude', version: '2.1.332', default: true }, { type: 'gemini', version: '0.61.0' }, { type: 'command' }],
      }),
      sharedBrowser(),
    ]);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/runs`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  it('lists each with its version, the default marked', async () => {
    const section = page.getByRole('region', { name: 'Agents this server runs' });
    const items = section.getByRole('listitem');
    await items.first().waitFor();
    expect(await items.allTextContents()).toEqual(['claude 2.1.332 default', 'gemini 0.61.0', 'command']);
    expect(await items.filter({ hasText: 'default' }).locator('code').textContent()).toBe('claude');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
