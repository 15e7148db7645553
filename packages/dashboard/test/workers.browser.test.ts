import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The Workers page (docs/dashboard.md, its pages; docs/operations.md, "Worker hosts") in a real
 * headless Chromium: the reference server's worker, holding a run, linked to it.
 */
describe.runIf(browserAvailable())('dashboard: the workers page', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer(), sharedBrowser()]);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/workers`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  it("lists the server's worker with the run it holds, linked to the run's page", async () => {
    const res = await fetch(`${server.url}/api/v1/agent/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hold on' }),
    });
    const { run_id } = (await res.json()) as { run_id: string };
    const table = page.getByRole('table', { name: 'Live workers, by host' });
    await table.waitFor();
    const link = table.getByRole('link', { name: run_id });
    // The run shows once the worker's next heartbeat (every 5 s) tells it: Refresh until then.
    while ((await link.count()) === 0) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(250);
    }
    const cells = await table.getByRole('row').nth(1).getByRole('cell').allTextContents();
    // startReferenceServer's worker names no host: createWorker's default.
    expect(cells.slice(0, 4)).toEqual(['default', server.worker.id, 'takes them', '1 of 4']);
    expect(await seriousViolations(page)).toEqual([]);
    await link.click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(page.url()).toBe(`${server.url}/dashboard/runs/${run_id}`);
  });
});
