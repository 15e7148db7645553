import { AgentRunClient } from '@agentrun/client';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The runs pages in a real headless Chromium against the reference server (docs/dashboard.md,
 * "Tests"): sign-in, the list with its filters and pages, a run followed live from QUEUED to
 * SUCCEEDED, Cancel, Send follow-up, a run opened from its session_link, and axe on each page.
 */
describe.runIf(browserAvailable())('dashboard: runs', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let client: AgentRunClient;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer(), sharedBrowser()]);
    client = new AgentRunClient({ apiKey: server.apiKey, baseURL: server.url });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  const signIn = async () => {
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/runs`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
  };

  it('refuses a wrong key in words, then signs in with the right one, keeping it in sessionStorage only', async () => {
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('API key').fill('not-a-key');
    await page.keyboard.press('Enter');
    await page.getByText('This API key was not accepted').waitFor();
    await page.getByLabel('API key').fill(server.apiKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(page.url()).not.toContain(server.apiKey);
    expect(await page.evaluate(() => sessionStorage.getItem('agentrun.dashboard.apiKey'))).toBe(server.apiKey);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    // A reload keeps the session; signing out forgets it.
    await page.reload();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('agentrun.dashboard.apiKey'))).toBeNull();
    await page.context().close();
  });

  it('says what to do when there is no run yet', async () => {
    await signIn();
    await page.getByText('No runs yet.').waitFor();
    // This server's executor does not say which agent CLIs it runs.
    await page.getByText('Its executor lists no agent CLIs').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('follows a run live from QUEUED to SUCCEEDED, with its prompt, config, creator and source', async () => {
    await signIn();
    const { run_id } = await client.runs.create({ prompt: 'Fix the flaky test', title: 'Flaky test', config: { model_id: 'demo-model' } });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('link', { name: 'Flaky test' }).click();
    await page.getByRole('heading', { name: 'Flaky test', level: 1 }).waitFor();
    await page.getByText('Fix the flaky test').waitFor();
    await page.getByText('demo-model').waitFor();
    await page.getByText('Bootstrap key (service_account, bootstrap)').waitFor();
    // The transcript starts from the run's first state change and goes on live until SUCCEEDED.
    await page.locator('.transcript').getByText('QUEUED →', { exact: false }).first().waitFor();
    await page.locator('.transcript').getByText('→ SUCCEEDED').waitFor({ timeout: 15_000 });
    await page.locator('.badge', { hasText: 'SUCCEEDED' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // A follow-up re-queues the finished run, and the transcript follows it again.
    await page.getByLabel('Message').fill('Also update the changelog');
    await page.getByRole('button', { name: 'Send follow-up' }).click();
    await page.locator('.transcript').getByText('follow-up: Also update the changelog').waitFor();
    await expect.poll(() => page.locator('.transcript').getByText('→ SUCCEEDED').count(), { timeout: 15_000 }).toBe(2);
    // Once started, the run shows when (started_at), not "not yet".
    await expect.poll(() => page.locator('dl.facts').textContent()).not.toContain('not yet');

    // A run it started links back to it (parent_run_id).
    await client.runs.create({ prompt: 'A part of it', title: 'Child run', parent_run_id: run_id });
    await page.locator('.crumbs').getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('link', { name: 'Child run' }).click();
    await page.getByRole('heading', { name: 'Child run', level: 1 }).waitFor();
    await page.getByRole('link', { name: run_id }).click();
    await page.getByRole('heading', { name: 'Flaky test', level: 1 }).waitFor();
    await page.context().close();
  });

  it("shows a run's artifacts: the pull request as a link, the screenshot drawn inline, the file to download", async () => {
    await signIn();
    const { run_id } = await client.runs.create({ prompt: 'Report artifacts', title: 'Artifacts run' });
    await client.runs.wait(run_id, { pollIntervalMs: 50 });
    await page.goto(`${server.url}/dashboard/runs/${run_id}`);
    await page.getByRole('heading', { name: 'Artifacts', level: 2 }).waitFor();
    expect(await page.getByRole('link', { name: 'https://github.com/acme/app/pull/9' }).getAttribute('rel')).toBe('noopener noreferrer');
    const image = page.getByRole('img', { name: 'The home page' });
    await image.waitFor();
    await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report.txt' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('report.txt');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('cancels a running run after asking, with the keyboard only', async () => {
    await signIn();
    const { run_id } = await client.runs.create({ prompt: 'hold until cancelled', title: 'Held run' });
    await page.goto(`${server.url}/dashboard/runs/${run_id}`);
    await page.locator('.transcript').getByText('Holding until cancelled').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).focus();
    await page.keyboard.press('Enter');
    // The confirming button takes the focus.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, cancel it');
    await page.keyboard.press('Enter');
    await page.locator('.badge', { hasText: 'CANCELLED' }).waitFor();
    expect((await client.runs.get(run_id)).state).toBe('CANCELLED');
    await page.context().close();
  });

  it('filters by state, pages with cursors, and shows the runs page', async () => {
    await signIn();
    for (let i = 0; i < 3; i++) await client.runs.create({ prompt: `hold page ${i}`, title: `Paged ${i}` });
    await page.goto(`${server.url}/dashboard/runs?limit=2`);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('button', { name: 'Previous page' }).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('button', { name: 'Next page' }).waitFor();

    await page.goto(`${server.url}/dashboard/runs`);
    await page.getByText('States: all').click();
    await page.getByLabel('CANCELLED').check();
    await page.getByRole('link', { name: 'Held run' }).waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(page.url()).toContain('state=CANCELLED');

    // An invalid filter is the API's 400, in words.
    await page.goto(`${server.url}/dashboard/runs?limit=0`);
    await page.getByRole('alert').getByText('limit', { exact: false }).waitFor();

    await page.goto(`${server.url}/dashboard/runs`);
    await page.getByRole('link', { name: 'Paged 2' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('opens a run from its session_link: the sign-in form there, then that run, at the same URL', async () => {
    const { run_id } = await client.runs.create({ prompt: 'Open me from a link', title: 'Linked run' });
    await expect.poll(async () => (await client.runs.get(run_id)).session_link, { timeout: 10_000 }).toBeDefined();
    const link = (await client.runs.get(run_id)).session_link as string;
    expect(link).toMatch(new RegExp(`^http://localhost:\\d+/dashboard/runs/${run_id}$`));
    ({ page, problems } = await openPage(browser, new URL(link).origin));
    await page.goto(link);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Linked run', level: 1 }).waitFor();
    await page.getByText('Open me from a link').waitFor();
    expect(page.url()).toBe(link);
    await page.context().close();
  });
});
