import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentRunClient } from '@agentrun/client';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The overview, the landing page (docs/dashboard.md, "Overview"), in a real headless Chromium
 * against the reference server on the memory store: runs in five states, deliveries of every
 * label (a burst to a second webhook meets its rate limit), a queued run routed to a host no worker serves, the server's worker holding a run, and
 * a callback whose endpoint always fails. Each chart's numbers are read back from its table; a
 * held run is cancelled and moves from INPROGRESS to CANCELLED without a reload.
 */

const artifacts = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-artifacts', 'dashboard');
const FAILING_URL = 'https://down.example.com/agentrun';

describe.runIf(browserAvailable())('dashboard: the overview', { timeout: 60_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let client: AgentRunClient;
  let page: Page;
  let problems: string[];
  let heldRun: string;
  let webhookUid: string;
  let burstAccepted = 0;

  const stateOf = async (runId: string) => (await client.runs.get(runId)).state;
  const waitFor = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setTimeout(r, 50));
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startDashboardServer({
        finishMs: 50,
        callbacks: {
          policy: { baseDelayMs: 1, maxAttempts: 1 },
          sender: { send: async (request) => ({ status: request.url === FAILING_URL ? 503 : 200 }) },
        },
      }),
      sharedBrowser(),
    ]);
    client = new AgentRunClient({ apiKey: server.apiKey, baseURL: server.url });
    await client.callbacks.create({ url: FAILING_URL, event_types: ['run.state_changed'] });

    // Runs: two succeed, one fails, one is held (INPROGRESS), one waits for a host nobody serves.
    const done = await Promise.all(
      ['Fix the flaky test', 'Bump the version', 'Please fail'].map((prompt) => client.runs.create({ prompt })),
    );
    heldRun = (await client.runs.create({ prompt: 'hold on' })).run_id;
    await client.runs.create({ prompt: 'Train the model', config: { worker_host: 'gpu-nowhere' } });
    for (const { run_id } of done) await waitFor(async () => ['SUCCEEDED', 'FAILED'].includes(await stateOf(run_id)));
    await waitFor(async () => (await stateOf(heldRun)) === 'INPROGRESS');

    // Deliveries: one starts a run (Accepted), one matches no automation (Filtered out), the first
    // again (Duplicate), one with a wrong token (Rejected).
    const factory = await client.factories.create({ name: 'Acme CI' });
    const created = await client.webhooks.create(factory.uid, { name: 'ci', delivery_id_header: 'X-Delivery' });
    const secret = created.secret as string;
    webhookUid = created.webhook.uid;
    await client.automations.create(factory.uid, {
      name: 'On open',
      prompt: 'Look at the new issue',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhookUid], payload: { action: ['opened'] } } }],
    });
    const deliver = (token: string, id: string, action: string) =>
      fetch(created.ingress_url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-delivery': id },
        body: JSON.stringify({ action }),
      });
    expect((await deliver(secret, 'd-1', 'opened')).status).toBe(202);
    expect((await deliver(secret, 'd-2', 'closed')).status).toBe(202);
    expect((await deliver(secret, 'd-1', 'opened')).status).toBe(202);
    expect((await deliver('not-the-token', 'd-3', 'opened')).status).toBe(401);
    // A second webhook, without automation, sent to until its rate limit refuses one (60 a minute by default).
    const burst = await client.webhooks.create(factory.uid, { name: 'burst' });
    for (;;) {
      const { status } = await fetch(burst.ingress_url, {
        method: 'POST',
        headers: { authorization: `Bearer ${burst.secret as string}`, 'content-type': 'application/json' },
        // A body of its own each: the same body twice is a Duplicate (its identity is the body's hash).
        body: JSON.stringify({ n: burstAccepted }),
      });
      if (status === 429) break;
      expect(status).toBe(202);
      burstAccepted++;
    }

    ({ page, problems } = await openPage(browser, server.url));
    // A CSP violation is also a console error (openPage); this catches one whatever Chromium logs.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (globalThis as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${server.url}/dashboard/`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  }, 60_000);
  afterAll(async () => {
    expect(problems ?? []).toEqual([]);
    await server?.close();
  });

  /** A chart's table: its column heads and, for each row head, the row's cells. */
  const readTable = async (name: string) => {
    const table = page.getByRole('table', { name, exact: true });
    await table.waitFor();
    const head = (await table.locator('thead th').allTextContents()).slice(1);
    const rows: Record<string, Record<string, string>> = {};
    for (const row of await table.locator('tbody tr, tfoot tr').all()) {
      const key = (await row.locator('th').textContent()) ?? '';
      const cells = await row.locator('td').allTextContents();
      rows[key] = Object.fromEntries(head.map((h, i) => [h, cells[i] ?? '']));
    }
    return rows;
  };
  const totals = async (name: string) =>
    Object.fromEntries(Object.entries((await readTable(name)).Total ?? {}).map(([k, v]) => [k, Number(v)]));
  const cspViolations = () => page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations);

  it('is the landing page, and each chart shows the seeded counts', async () => {
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    await expect
      .poll(() => totals('Runs by state'), { timeout: 15_000 })
      .toEqual({ QUEUED: 1, PENDING: 0, CLAIMED: 0, INPROGRESS: 1, SUCCEEDED: 3, FAILED: 1, BLOCKED: 0, ERROR: 0, CANCELLED: 0 });
    // Every run that ended after starting: the three above and the delivery's run, all on the default harness.
    await expect.poll(async () => (await readTable('Run duration by harness')).oz?.Runs).toBe('4');
    await expect
      .poll(() => totals('Deliveries to ci'))
      .toEqual({ Accepted: 1, 'Filtered out': 1, Duplicate: 1, Rejected: 1, 'Rate limited': 0 });
    await expect
      .poll(() => totals('Deliveries to burst'))
      .toEqual({ Accepted: 0, 'Filtered out': burstAccepted, Duplicate: 0, Rejected: 0, 'Rate limited': 1 });
    // Titled by the webhook's name; its link opens the webhook's page with each delivery.
    expect(await page.getByRole('link', { name: 'ci: each delivery' }).getAttribute('href')).toMatch(
      new RegExp(`/webhooks/${webhookUid}$`),
    );

    const queue = page.getByRole('region', { name: 'Queue' });
    expect(await queue.getByTestId('queued').textContent()).toBe('1');
    expect(
      await queue
        .getByRole('row', { name: /gpu-nowhere/ })
        .getByRole('cell')
        .first()
        .textContent(),
    ).toBe('1');

    // The worker tells what it holds with its next heartbeat (every 5 s); the overview reads it again meanwhile.
    await expect
      .poll(async () => (await readTable('Worker load'))[server.worker.id], { timeout: 15_000 })
      .toEqual({ Host: 'default', 'Runs held': '1', Capacity: '4' });

    const failing = page.getByRole('table', { name: 'Failing callbacks' });
    await failing.getByRole('link', { name: FAILING_URL }).waitFor();
    expect(
      Number(
        await failing
          .getByRole('row', { name: new RegExp(FAILING_URL) })
          .getByRole('cell')
          .first()
          .textContent(),
      ),
    ).toBeGreaterThan(0);

    expect(await seriousViolations(page)).toEqual([]);
    expect(await cspViolations()).toEqual([]);
  });

  it('switches the range, kept in the URL through a reload, and groups durations by config name', async () => {
    await page.getByRole('button', { name: '7d' }).click();
    expect(new URL(page.url()).hash).toContain('range=7d');
    await page.reload();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => totals('Runs by state')).toMatchObject({ QUEUED: 1, INPROGRESS: 1, SUCCEEDED: 3, FAILED: 1 });
    await page.getByRole('button', { name: 'By config name' }).click();
    // None of the seeded runs has a config name.
    await expect.poll(async () => (await readTable('Run duration by config name'))['(no name)']?.Runs).toBe('4');
    // The grouping joins the range in the hash, which stays 7d.
    expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).toString()).toBe('range=7d&by=name');
  });

  it('moves a run between series live, without a reload', async () => {
    await page.evaluate(() => {
      (globalThis as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    await client.runs.cancel(heldRun);
    await expect
      .poll(() => totals('Runs by state'), { timeout: 20_000 })
      .toMatchObject({ INPROGRESS: 0, CANCELLED: 1, SUCCEEDED: 3, FAILED: 1, QUEUED: 1 });
    expect(await page.evaluate(() => (globalThis as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await cspViolations()).toEqual([]);
  });

  it('fits 1280 and 390 px wide; screenshots of both are kept as test artifacts', async () => {
    mkdirSync(artifacts, { recursive: true });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.locator('figure.chart[data-drawn]').first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(artifacts, `overview-${width}.png`), fullPage: true });
    }
    expect(await seriousViolations(page)).toEqual([]);
  });
});
