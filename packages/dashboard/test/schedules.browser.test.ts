import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The schedules page in a real headless Chromium against the reference server (docs/dashboard.md,
 * its pages; docs/schedules.md): create (a bad expression shown beside its field), the list with
 * the next run, pause and resume, the link to its runs, delete.
 */
describe.runIf(browserAvailable())('dashboard: schedules', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer(), sharedBrowser()]);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/schedules`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  const api = async (path: string) =>
    (await (await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${server.apiKey}` } })).json()) as {
      schedules: { id: string; name: string; enabled: boolean; time_zone: string }[];
    };

  it('creates a schedule, lists it with its next run, pauses and resumes it, links to its runs, deletes it', async () => {
    await page.getByRole('heading', { name: 'Schedules', level: 1 }).waitFor();
    await page.getByText('No schedules.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Name', { exact: true }).fill('Weekday review');
    await page.getByLabel(/Cron expression/).fill('every weekday');
    await page.getByLabel('Time zone (IANA)').fill('Europe/Paris');
    await page.getByLabel('Prompt').fill('Review the open pull requests');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page
      .getByText(/five-field cron expression/)
      .first()
      .waitFor();
    expect((await api('/agent/schedules')).schedules).toEqual([]);

    await page.getByLabel(/Cron expression/).fill('0 9 * * 1-5');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Weekday review' });
    await row.waitFor();
    expect(await row.textContent()).toContain('0 9 * * 1-5 (Europe/Paris)');
    expect(await row.textContent()).toContain('Enabled');
    expect(await seriousViolations(page)).toEqual([]);
    const [created] = (await api('/agent/schedules')).schedules;
    expect(created).toMatchObject({ name: 'Weekday review', enabled: true, time_zone: 'Europe/Paris' });

    await row.getByRole('button', { name: 'Pause' }).click();
    await row.getByRole('button', { name: 'Resume' }).waitFor();
    expect(await row.textContent()).toContain('Paused');
    expect((await api('/agent/schedules')).schedules[0]?.enabled).toBe(false);
    await row.getByRole('button', { name: 'Resume' }).click();
    await row.getByRole('button', { name: 'Pause' }).waitFor();

    await row.getByRole('link', { name: 'Runs' }).click();
    await page.waitForURL(new RegExp(`/dashboard/runs\\?schedule_id=${created?.id}`));
    await page.goBack();
    const again = page.getByRole('row').filter({ hasText: 'Weekday review' });
    await again.getByRole('button', { name: 'Delete' }).click();
    await again.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No schedules.').waitFor();
    expect((await api('/agent/schedules')).schedules).toEqual([]);
  });
});
