import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The callbacks pages in a real headless Chromium against the reference server (docs/dashboard.md,
 * its pages): register (the secret shown once, never in the list), a run's events in the
 * delivery log with each attempt, Resend, Disable and Enable, Delete. The server's callbacks go
 * to a sender that fails each message once, then answers 200 (no network).
 */
describe.runIf(browserAvailable())('dashboard: callbacks', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const sent: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startDashboardServer({
        finishMs: 50,
        callbacks: {
          policy: { baseDelayMs: 1 },
          sender: {
            async send(request) {
              const id = request.headers['webhook-id'] as string;
              sent.push(id);
              return sent.filter((s) => s === id).length === 1 ? { status: 503 } : { status: 200 };
            },
          },
        },
      }),
      sharedBrowser(),
    ]);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/callbacks`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  it('registers a callback (secret shown once), logs a run’s events with their attempts, resends, disables, enables, deletes', async () => {
    await page.getByRole('heading', { name: 'Callbacks', level: 1 }).waitFor();
    await page.getByText('No callbacks.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('URL', { exact: true }).fill('https://hooks.example.com/agentrun');
    await page.getByRole('checkbox', { name: 'run.state_changed' }).check();
    await page.getByRole('button', { name: 'Register callback' }).click();
    const secret = (await page.getByTestId('callback-secret').textContent()) as string;
    expect(secret).toMatch(/^whsec_/);
    const row = page.getByRole('row').filter({ hasText: 'https://hooks.example.com/agentrun' });
    await row.waitFor();
    expect(await page.locator('table.list').textContent()).not.toContain(secret);

    // A run ends; its state changes are delivered (each after one failed attempt).
    const res = await fetch(`${server.url}/api/v1/agent/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'tell me when you are done' }),
    });
    expect(res.status).toBe(200);
    await row.getByRole('link', { name: 'https://hooks.example.com/agentrun' }).click();
    await page.getByRole('heading', { name: /Callback https:\/\/hooks\.example\.com/, level: 1 }).waitFor();
    // A regular expression: a string would match case-insensitively, and "SUCCEEDED" contains "succeeded".
    const done = page
      .getByRole('row')
      .filter({ hasText: '→ SUCCEEDED' })
      .filter({ hasText: /succeeded/ });
    for (;;) {
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      if ((await done.count()) > 0) break;
      await page.waitForTimeout(100);
    }
    expect(await done.textContent()).toContain('HTTP 503');
    expect(await seriousViolations(page)).toEqual([]);
    const before = sent.length;
    await done.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    for (;;) {
      if (sent.length > before) break;
      await page.waitForTimeout(100);
    }

    await page.getByRole('link', { name: 'Callbacks' }).first().click();
    await page.getByRole('heading', { name: 'Callbacks', level: 1 }).waitFor();
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByText('Disabled').waitFor();
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByText('Enabled').waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No callbacks.').waitFor();
  });

  it('shows the API’s refusal of a private address beside the form', async () => {
    await page.getByLabel('URL', { exact: true }).fill('http://169.254.169.254/latest');
    await page.getByRole('button', { name: 'Register callback' }).click();
    await page
      .getByText(/private, loopback or link-local/)
      .first()
      .waitFor();
  });
});
