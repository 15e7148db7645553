import { AgentRunClient } from '@agentrun/client';
import { createAgentRun, createScheduler } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keepScreenshot } from './support/artifacts.js';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The runs list in a real headless Chromium against the reference server (docs/dashboard.md, "The
 * runs list"): it keeps itself current (a run created through the API appears and changes state
 * with no reload), its columns (short copyable ID, created, a live duration, the delivery or
 * schedule that started a run, linked), the search box and the state picker, and a 390 px screen.
 */
describe.runIf(browserAvailable())('dashboard: the runs list', { timeout: 45_000 }, () => {
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
  afterEach(async () => {
    await page?.context().close();
    expect(problems).toEqual([]);
  });

  const signIn = async (path = '/dashboard/runs') => {
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}${path}`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
  };
  const searchBox = () => page.getByLabel('Search', { exact: true });
  const row = (runId: string) => page.locator(`tbody tr[data-run-id="${runId}"]`);
  const shownRunIds = () => page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));

  it('shows a run created through the API and follows its state, with no reload and the unsent search kept', async () => {
    await signIn();
    await page.getByText('No runs yet.').waitFor();
    // A full reload would lose this; the list must update in place.
    await page.evaluate(() => Object.assign(globalThis, { stillThisPage: true }));
    await searchBox().fill('typed but not sent');

    const { run_id } = await client.runs.create({ prompt: 'hold until cancelled', title: 'Live run' });
    await row(run_id).getByRole('link', { name: 'Live run' }).waitFor();
    await row(run_id).locator('.badge', { hasText: 'INPROGRESS' }).waitFor();
    // Its duration counts while it runs.
    const first = await row(run_id).locator('.run-duration').textContent();
    expect(first).toMatch(/^\d+ s$/);
    await expect.poll(() => row(run_id).locator('.run-duration').textContent(), { timeout: 10_000 }).not.toBe(first);

    await client.runs.cancel(run_id);
    await row(run_id).locator('.badge', { hasText: 'CANCELLED' }).waitFor();
    expect(await page.evaluate(() => (globalThis as { stillThisPage?: boolean }).stillThisPage)).toBe(true);
    expect(await searchBox().inputValue()).toBe('typed but not sent');
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'runs-live');
  });

  it('keeps the rows when a refresh fails, saying so, and goes on once the API answers again', async () => {
    const { run_id } = await client.runs.create({ prompt: 'Kept through a failure', title: 'Kept run' });
    await signIn();
    await row(run_id).waitFor();
    let refused = 0;
    const theList = (url: URL) => url.pathname === '/api/v1/agent/runs';
    await page.route(theList, (route) => {
      refused++;
      return route.fulfill({
        status: 400,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          error: 'invalid_request',
          detail: 'refused on purpose',
        }),
      });
    });
    await page.getByRole('alert').getByText('refused on purpose').waitFor();
    expect(refused).toBeGreaterThan(0);
    expect(await row(run_id).count()).toBe(1);
    await page.unroute(theList);
    await expect.poll(() => page.getByRole('alert').count(), { timeout: 10_000 }).toBe(0);
    expect(await row(run_id).count()).toBe(1);
  });

  it('shows each run’s short copyable ID, created time, duration, and the delivery or schedule that started it, linked', async () => {
    // A run a webhook delivery started.
    const factory = await client.factories.create({ name: 'Intake' });
    const { webhook, ingress_url, secret } = await client.webhooks.create(factory.uid, { name: 'tickets', auth_mode: 'token' });
    await client.automations.create(factory.uid, {
      name: 'Triage',
      prompt: 'Triage the ticket',
      enabled: true,
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] } }],
    });
    const sent = await fetch(ingress_url, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ticket: 7 }),
    });
    expect(sent.status).toBe(202);
    const { delivery_id } = (await sent.json()) as { delivery_id: string };
    // A run a schedule started: a scheduler whose clock is past the schedule's first due time,
    // on the server's store, starts it as the server's own would a minute later.
    const schedule = await client.schedules.create({ name: 'Nightly sweep', cron_schedule: '* * * * *', prompt: 'Sweep' });
    const later = createAgentRun({ store: server.store, clock: { now: () => Date.now() + 61_000 } });
    expect(await createScheduler({ runs: later.services.runs }).tick()).toEqual({ started: 1, missed: 0 });
    const plain = await client.runs.create({ prompt: 'A plain one', title: 'Plain run' });
    await client.runs.wait(plain.run_id, { pollIntervalMs: 50 });

    await signIn();
    // The delivery's run starts just after its 202.
    await expect.poll(async () => (await client.runs.listPage({ source: 'WEBHOOK' })).runs.length).toBe(1);
    const webhookRun = (await client.runs.listPage({ source: 'WEBHOOK' })).runs[0]!;
    const scheduledRun = (await client.runs.listPage({ schedule_id: schedule.id })).runs[0]!;
    expect(webhookRun.trigger?.delivery_id).toBe(delivery_id);

    const delivery = row(webhookRun.run_id).getByRole('link', { name: /Webhook delivery/ });
    await delivery.waitFor();
    expect(await delivery.getAttribute('href')).toBe(
      `/dashboard/factories/${factory.uid}/webhooks/${webhook.uid}/deliveries/${encodeURIComponent(delivery_id)}`,
    );
    const scheduled = row(scheduledRun.run_id).getByRole('link', { name: 'Schedule Nightly sweep' });
    await scheduled.waitFor();
    expect(await scheduled.getAttribute('href')).toBe(`/dashboard/runs?schedule_id=${schedule.id}`);
    // A run with neither says where it came from and who made it.
    await row(plain.run_id).locator('.badge', { hasText: 'SUCCEEDED' }).waitFor();
    expect(await row(plain.run_id).locator('.run-started-by').textContent()).toBe('API · Bootstrap key');

    // The ID: its first 8 characters, the whole one copied.
    const id = row(plain.run_id).locator('.copy-id code');
    expect(await id.textContent()).toBe(plain.run_id.slice(0, 8));
    expect(await id.getAttribute('title')).toBe(plain.run_id);
    await row(plain.run_id)
      .getByRole('button', { name: `Copy run ID ${plain.run_id}` })
      .click();
    await row(plain.run_id).getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(plain.run_id);
    // Created, as a machine-readable time; a finished run's duration stays put.
    const finished = await client.runs.get(plain.run_id);
    expect(await row(plain.run_id).locator('time').getAttribute('datetime')).toBe(finished.created_at);
    const expected = Math.floor((Date.parse(finished.updated_at) - Date.parse(finished.started_at!)) / 1000);
    expect(await row(plain.run_id).locator('.run-duration').textContent()).toBe(`${expected} s`);
    expect(await page.locator('thead th').allTextContents()).toEqual(['State', 'Title', 'ID', 'Started by', 'Created', 'Duration']);

    // The schedule's link lists that schedule's runs, its filter shown in the search box.
    await scheduled.click();
    await page.waitForURL(/schedule_id=/);
    expect(await searchBox().inputValue()).toBe(`schedule:${schedule.id}`);
    await expect.poll(shownRunIds).toEqual([scheduledRun.run_id]);
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'runs-started-by');
  });

  it('filters with the search box (a bad token refused in words) and the state picker, kept in the URL', async () => {
    const a = await client.runs.create({
      prompt: 'Fix the login page',
      title: 'Login fix',
      config: { name: 'nightly-a', model_id: 'm-1' },
    });
    const b = await client.runs.create({ prompt: 'hold the release notes', title: 'Release notes', config: { name: 'nightly-b' } });
    await client.runs.wait(a.run_id, { pollIntervalMs: 50 });
    await client.runs.cancel(b.run_id);

    await signIn();
    const search = searchBox();
    await search.fill('name:nightly-a');
    await search.press('Enter');
    await page.waitForURL(/name=nightly-a/);
    await expect.poll(shownRunIds).toEqual([a.run_id]);

    await search.fill('model:m-1 "login page"');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=login\+page/);
    await expect.poll(shownRunIds).toEqual([a.run_id]);
    expect(new URL(page.url()).searchParams.get('model_id')).toBe('m-1');

    // A bad token: said beside the box, the list and URL as they were.
    const before = page.url();
    await search.fill('colour:red');
    await search.press('Enter');
    await page.locator('#run-search-error').getByText('Unknown filter "colour:"').waitFor();
    expect(await search.getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).toBe(before);
    expect(await seriousViolations(page)).toEqual([]);

    // The state picker: the search's filters stay, the states add to them.
    await search.fill('name:nightly-b');
    await search.press('Enter');
    await expect.poll(shownRunIds).toEqual([b.run_id]);
    await page.getByText('States: all').click();
    await page.getByLabel('SUCCEEDED').check();
    await page.getByText('States: SUCCEEDED').waitFor();
    await page.getByText('No run matches these filters.').waitFor();
    expect(new URL(page.url()).searchParams.getAll('state')).toEqual(['SUCCEEDED']);
    await page.getByLabel('CANCELLED').check();
    await page.getByText('States: SUCCEEDED, CANCELLED').waitFor();
    await expect.poll(shownRunIds).toEqual([b.run_id]);
    expect(await search.inputValue()).toBe('name:nightly-b');

    // A reload keeps it all; Clear filters drops it all.
    await page.reload();
    await expect.poll(shownRunIds).toEqual([b.run_id]);
    expect(await search.inputValue()).toBe('name:nightly-b');
    await page.getByText('States: SUCCEEDED, CANCELLED').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(async () => (await shownRunIds()).length).toBeGreaterThan(1);
    expect(await search.inputValue()).toBe('');
    await keepScreenshot(page, 'runs-filters');
  });

  it('fits a 390 px screen: no sideways scroll, each run a block of labelled lines', async () => {
    await client.runs.create({
      prompt: 'A run with a rather long title to wrap on a phone screen',
      title: 'A run with a rather long title to wrap on a phone',
    });
    await signIn();
    await page.locator('tbody tr').first().waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByText('States: all').click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.body.scrollWidth)).toBeLessThanOrEqual(390);
    // The column headings are read out, not shown; each line says what it is.
    expect(await page.locator('thead').evaluate((h) => h.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
    expect(
      await page
        .locator('tbody tr')
        .first()
        .locator('td[data-label="Duration"]')
        .evaluate((td) => getComputedStyle(td, '::before').content),
    ).toBe('"Duration: "');
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'runs-390px');
  });
});
