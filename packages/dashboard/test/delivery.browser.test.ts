import { readFile } from 'node:fs/promises';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepScreenshot } from './support/artifacts.js';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * A webhook's delivery list and a delivery's page in a real headless Chromium against the
 * reference server (docs/dashboard.md, "A delivery"): a webhook with two automations, one
 * delivery that starts a run and one that matches nothing, each followed from the list to its
 * page: what it started, every automation's verdict, its headers masked, its body downloaded
 * byte for byte, Resend; at a desktop's width and a phone's.
 */
describe.runIf(browserAvailable())('dashboard: a delivery and what it started', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let factory: string;
  let webhook: { uid: string; ingress: string; secret: string };
  let matching: string;
  let unmatched: string;
  // Sent as is: `1.50` and the spacing survive only in the byte-exact download.
  const MATCHING_BODY = '{"action":"opened",  "amount":1.50,"pull_request":{"number":7}}';
  const UNMATCHED_BODY = '{"action":"labeled","label":"bug"}';

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${server.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.ok, `${method} ${path}: ${res.status}`).toBe(true);
    return (await res.json()) as T;
  };
  const deliver = async (body: string) => {
    const res = await fetch(webhook.ingress, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${webhook.secret}`,
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/browser-test',
        'x-github-event': 'pull_request',
        cookie: 'session=do-not-keep',
        'x-api-key': 'k-do-not-keep',
        'x-echo': `copy of ${webhook.secret}`,
      },
      body,
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { delivery_id: string }).delivery_id;
  };
  /** Until the delivery's evaluation completed (its runs are made after the 202). */
  const evaluated = async (id: string) => {
    for (let tries = 0; tries < 200; tries++) {
      const d = await api<{ run_ids: string[] | null }>('GET', `/factories/${factory}/webhooks/${webhook.uid}/deliveries/${id}`);
      if (d.run_ids !== null) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`delivery ${id} was never evaluated`);
  };
  const webhookPath = () => `/dashboard/factories/${factory}/webhooks/${webhook.uid}`;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer({ finishMs: 200 }), sharedBrowser()]);
    factory = (await api<{ uid: string }>('POST', '/factories', { name: 'Acme' })).uid;
    const created = await api<{ webhook: { uid: string }; ingress_url: string; secret: string }>('POST', `/factories/${factory}/webhooks`, {
      name: 'GitHub',
    });
    webhook = { uid: created.webhook.uid, ingress: created.ingress_url, secret: created.secret };
    const automation = (name: string, action: string) =>
      api('POST', `/factories/${factory}/automations`, {
        name,
        prompt: `Handle the ${action} pull request`,
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid], payload: { action: [action] } } }],
      });
    await automation('Review opened PRs', 'opened');
    await automation('Tidy closed PRs', 'closed');
    matching = await deliver(MATCHING_BODY);
    unmatched = await deliver(UNMATCHED_BODY);
    await evaluated(matching);
    await evaluated(unmatched);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}${webhookPath()}`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems ?? []).toEqual([]);
    await server?.close();
  });

  it('lists each delivery with what it started: its run as a link, or "matched nothing" with the way to why', async () => {
    await page.getByRole('heading', { name: 'Webhook GitHub', level: 1 }).waitFor();
    const started = page.locator('tbody tr', { hasText: matching });
    await started.getByText('started 1 run').waitFor();
    const runs = await api<{ runs: { run_id: string }[] }>('GET', '/agent/runs?source=WEBHOOK');
    expect(runs.runs).toHaveLength(1);
    const runId = runs.runs[0]?.run_id as string;
    await started.getByRole('link', { name: `Run ${runId}` }).waitFor();
    const nothing = page.locator('tbody tr', { hasText: unmatched });
    await nothing.getByText('matched nothing').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'webhook-deliveries');

    await nothing.getByRole('link', { name: `Why delivery ${unmatched} matched nothing` }).click();
    await page.getByRole('heading', { name: `Delivery ${unmatched}`, level: 1 }).waitFor();
    const verdicts = page.getByTestId('automation-verdict');
    await expect.poll(() => verdicts.count()).toBe(2);
    for (const name of ['Review opened PRs', 'Tidy closed PRs']) {
      const verdict = verdicts.filter({ hasText: name });
      await verdict.getByText('Would not trigger').waitFor();
      await verdict.getByText('Payload check: failed').waitFor();
      // The filter's own explanation: the failing path and why.
      expect(await verdict.locator('code').textContent()).toMatch(/action/);
    }
    await page.getByText('matched nothing').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'delivery-matched-nothing');
  });

  it('shows a delivery: where it came from, its headers masked, the run it started and the automation that matched', async () => {
    await page.goto(`${server.url}${webhookPath()}`);
    await page.locator('tbody tr', { hasText: matching }).getByRole('link', { name: matching }).click();
    await page.getByRole('heading', { name: `Delivery ${matching}`, level: 1 }).waitFor();
    expect(await page.getByTestId('remote-address').textContent()).toMatch(/127\.0\.0\.1|::1/);
    await page.locator('.facts').getByText('GitHub-Hookshot/browser-test').waitFor();

    const header = (name: string) => page.locator('table.headers tr', { has: page.locator('th', { hasText: new RegExp(`^${name}$`) }) });
    for (const secret of ['authorization', 'cookie', 'x-api-key', 'x-echo']) await header(secret).getByText('[masked]').waitFor();
    await header('x-github-event').getByText('pull_request').waitFor();
    await header('user-agent').getByText('GitHub-Hookshot/browser-test').waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toContain(webhook.secret);
    expect(text).not.toContain('do-not-keep');

    const runs = await api<{ runs: { run_id: string }[] }>('GET', '/agent/runs?source=WEBHOOK');
    await page.locator('ul.started').getByRole('link').first().waitFor();
    expect(await page.locator('ul.started a').getAttribute('href')).toBe(`/dashboard/runs/${runs.runs[0]?.run_id}`);
    await page
      .getByTestId('automation-verdict')
      .filter({ hasText: 'Review opened PRs' })
      .getByText('Would trigger', { exact: true })
      .waitFor();
    await page.getByTestId('automation-verdict').filter({ hasText: 'Tidy closed PRs' }).getByText('Would not trigger').waitFor();
    expect(JSON.parse((await page.getByTestId('delivery-body').textContent()) ?? '')).toEqual(JSON.parse(MATCHING_BODY));
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'delivery');
  });

  it('downloads the body byte for byte', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the body as received' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`delivery-${matching}.json`);
    expect(await readFile((await download.path()) as string, 'utf8')).toBe(MATCHING_BODY);
  });

  it('resends from the page: the new delivery and the run it started, one click from there', async () => {
    await page.getByRole('button', { name: 'Resend this delivery' }).click();
    const status = page.getByRole('status');
    await status.getByText('started 1 run').waitFor();
    const runs = await api<{ runs: { run_id: string }[] }>('GET', '/agent/runs?source=WEBHOOK');
    expect(runs.runs).toHaveLength(2);
    const resent = (await status.getByRole('link').first().textContent()) as string;
    await status.getByRole('link', { name: resent }).click();
    await page.getByRole('heading', { name: `Delivery ${resent}`, level: 1 }).waitFor();
    await page.locator('.facts').getByText(`resent from ${matching}`).waitFor();
    await page.locator('ul.started').getByRole('link').first().waitFor();
    await page.getByText('No request was kept').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('fits a phone: nothing wider than 390 px, on the page and in the list', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of [`${webhookPath()}/deliveries/${matching}`, webhookPath()]) {
      await page.goto(`${server.url}${path}`);
      await page.locator('main h1').waitFor();
      await page.locator('main h2').first().waitFor();
      await page
        .getByText(/started 1 run/)
        .first()
        .waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await seriousViolations(page)).toEqual([]);
    }
    await keepScreenshot(page, 'webhook-deliveries-390');
    await page.goto(`${server.url}${webhookPath()}/deliveries/${matching}`);
    await page.getByTestId('delivery-body').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await keepScreenshot(page, 'delivery-390');
  });
});
