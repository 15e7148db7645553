import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * The audit log page in a real headless Chromium against the reference server (docs/dashboard.md,
 * "Tests"): changes made through the API and a delivery show up newest first, the kind filter
 * lives in the URL, and no secret reaches the page.
 */
describe.runIf(browserAvailable())('dashboard: the audit log', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let webhookSecret: string;

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${server.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer(), sharedBrowser()]);
    const factory = await api<{ uid: string }>('POST', '/factories', { name: 'Audited' });
    const created = await api<{ ingress_url: string; secret: string }>('POST', `/factories/${factory.uid}/webhooks`, {
      name: 'Hook',
      auth_mode: 'token',
    });
    webhookSecret = created.secret;
    await api('PUT', '/team/secrets/deploy', { value: 'audit-page-secret-value' });
    const delivered = await fetch(created.ingress_url, {
      method: 'POST',
      headers: { authorization: `Bearer ${webhookSecret}`, 'content-type': 'application/json' },
      body: '{"marker":"payload-body-text"}',
    });
    expect(delivered.status).toBe(202);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/audit`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  it('lists the changes and the delivery newest first, without a secret', async () => {
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const kinds = page.locator('table.list tbody tr td:nth-child(2)');
    await kinds.first().waitFor();
    expect(await kinds.allTextContents()).toEqual(['delivery.accepted', 'secret.written', 'webhook.created']);
    const text = (await page.textContent('body')) ?? '';
    for (const secret of [webhookSecret, 'audit-page-secret-value', 'payload-body-text', server.apiKey]) expect(text).not.toContain(secret);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('filters by kind, kept in the URL', async () => {
    await page.getByLabel('secret.written').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/kind=secret\.written/);
    const kinds = page.locator('table.list tbody tr td:nth-child(2)');
    await expect.poll(() => kinds.allTextContents()).toEqual(['secret.written']);
    await page.reload();
    await expect.poll(() => kinds.allTextContents()).toEqual(['secret.written']);
  });
});
