import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepScreenshot } from './support/artifacts.js';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * Factories → Webhooks, deliveries, automations and team secrets in a real headless Chromium
 * against the reference server (docs/dashboard.md, "Tests"). One page walks the whole story, as a
 * person would: each test goes on from where the last one left it.
 */
describe.runIf(browserAvailable())('dashboard: webhooks, deliveries, automations, secrets', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let factoryPath: string;
  let webhookPath: string;
  let ingressUrl: string;
  let secret: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer(), sharedBrowser()]);
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/factories`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  const deliver = (url: string, token: string, body: unknown, deliveryId: string) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-delivery': deliveryId },
      body: JSON.stringify(body),
    });

  it('creates a factory from the empty state', async () => {
    await page.getByText('No factories yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Name').fill('Acme CI');
    await page.getByRole('button', { name: 'Create factory' }).click();
    await page.getByRole('heading', { name: 'Acme CI', level: 1 }).waitFor();
    factoryPath = new URL(page.url()).pathname;
    await page.getByText('No webhooks yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows an API refusal next to the field it is about', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Leaky');
    await page.getByLabel('Delivery ID header (optional)').fill('Authorization');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.locator('#webhook-header-errors').getByText('delivery_id_header').waitFor();
  });

  it('creates a token webhook: the ingress URL and the secret shown once, copied with a button', async () => {
    await page.getByLabel('Name', { exact: true }).fill('GitHub');
    await page.getByLabel('Delivery ID header (optional)').fill('X-Delivery');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook GitHub created' }).waitFor();
    ingressUrl = (await page.getByTestId('ingress-url').textContent())!;
    secret = (await page.getByTestId('secret').textContent())!;
    expect(ingressUrl).toMatch(/\/webhooks\/w\//);
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows a delivery sent with fetch in Recent deliveries, its payload in the JSON viewer', async () => {
    const answer = await deliver(
      ingressUrl,
      secret,
      { action: 'opened', pull_request: { base: { ref: 'main' }, number: 7 } },
      'delivery-1',
    );
    expect(answer.status).toBe(202);
    await page.getByRole('link', { name: 'Open the webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook GitHub', level: 1 }).waitFor();
    // The way back names the factory.
    await page.locator('.crumbs').getByRole('link', { name: 'Acme CI' }).waitFor();
    webhookPath = new URL(page.url()).pathname;
    const row = page.locator('tbody tr', { hasText: 'delivery-1' });
    await row.getByText('Accepted').waitFor();
    await row.getByRole('button', { name: 'Show payload' }).click();
    const viewer = page.locator('.json');
    await viewer.getByText('"opened"').waitFor();
    await viewer.getByText('pull_request:').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'webhook');
  });

  it('builds an automation, with an invalid filter shown at its path, and runs Test filter on the stored delivery', async () => {
    await page.goto(`${server.url}${factoryPath}/automations/new`);
    await page.getByRole('heading', { name: 'New automation' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Review PRs');
    await page.getByLabel('Prompt').fill('Review the pull request');
    await page.getByRole('button', { name: 'Add trigger → Webhook' }).click();
    await page.getByRole('checkbox', { name: 'GitHub' }).check();
    // Not JSON: refused before anything is sent.
    await page.getByLabel('Payload filter (JSON, optional)').fill('{ "action": ');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.locator('#trigger-0-payload-errors').getByText('not JSON').waitFor();
    // JSON, but not a filter: the API's 400, shown at its path below the filter.
    await page.getByLabel('Payload filter (JSON, optional)').fill('{ "action": "opened" }');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.locator('#trigger-0-payload-errors').getByText('triggers.0.filter.payload.action').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Payload filter (JSON, optional)').fill('{ "action": ["closed"] }');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('heading', { name: 'Automation Review PRs' }).waitFor();
    await page.getByRole('button', { name: 'Test filter' }).click();
    const result = page.locator('.test-result');
    await result.getByText('Would not trigger').waitFor();
    await result.getByText('Webhook check: passed').waitFor();
    await result.getByText('Payload check: failed').waitFor();
    expect(await result.locator('code').textContent()).toContain('action');

    await page.getByLabel('Payload filter (JSON, optional)').fill('{ "action": ["opened"] }');
    await page.getByRole('button', { name: 'Save automation' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Test filter' }).click();
    await result.getByText('Would trigger', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('rotates the secret after asking: the new one is shown once, the old one fails', async () => {
    await page.goto(`${server.url}${webhookPath}`);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Yes, rotate' }).click();
    await page.getByRole('heading', { name: 'New secret' }).waitFor();
    const rotated = (await page.getByTestId('secret').textContent())!;
    expect(rotated).not.toBe(secret);
    expect((await deliver(ingressUrl, secret, { action: 'opened' }, 'delivery-2')).status).toBe(401);
    expect((await deliver(ingressUrl, rotated, { action: 'opened' }, 'delivery-3')).status).toBe(202);
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    // The refused one is logged without the sender's ID (nothing of an unauthenticated request is trusted).
    await page.locator('tbody tr').getByText('Rejected (auth)').waitFor();
    await page.locator('tbody tr', { hasText: 'delivery-3' }).getByText('Accepted').waitFor();
    // Newest first.
    expect(await page.locator('tbody tr').first().textContent()).toContain('delivery-3');
  });

  it('resends an accepted delivery: a run for the automation that wants it, a new row resent from it', async () => {
    const row = page.locator('tbody tr', { hasText: 'delivery-3' });
    const deliveryId = (await row.locator('td').nth(3).textContent())!;
    await row.getByRole('button', { name: 'Resend' }).click();
    // "Review PRs" (action opened) wants it.
    await page.getByRole('status').getByText('1 run started.').waitFor();
    await page.locator('tbody tr').first().getByText(`resent from ${deliveryId}`).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('disables and enables the webhook with its toggle', async () => {
    const toggle = page.getByRole('checkbox', { name: 'Enabled' });
    await toggle.uncheck();
    await expect.poll(async () => (await deliver(ingressUrl, 'x', {}, 'd')).status).toBe(404);
    await toggle.check();
    await expect.poll(async () => (await deliver(ingressUrl, 'x', {}, 'd')).status).toBe(401);
  });

  it('creates a URL-token webhook: the token in the URL once, {token} after that', async () => {
    await page.goto(`${server.url}${factoryPath}`);
    await page.getByLabel('Name', { exact: true }).fill('Linear');
    await page.getByRole('radio', { name: 'Token in the URL' }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const url = (await page.getByTestId('ingress-url').textContent())!;
    expect(url).not.toContain('{token}');
    await page.getByRole('button', { name: 'Create another' }).click();
    await page
      .getByRole('row', { name: /Linear/ })
      .getByText('{token}')
      .waitFor();
  });

  it('takes a provider-issued signing secret in a second step', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Stripe');
    await page.getByRole('radio', { name: 'Signed by the provider' }).check();
    await page.getByLabel('Provider scheme').selectOption('stripe');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook Stripe created' }).waitFor();
    expect(await page.getByTestId('secret').count()).toBe(0);
    await page.getByLabel('Signing secret from stripe').fill('whsec_from_stripe_123');
    await page.getByRole('button', { name: 'Save signing secret' }).click();
    await page.getByText('Signing secret saved').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('deletes a webhook after asking', async () => {
    await page.getByRole('link', { name: 'Open the webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook Stripe', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { name: 'Acme CI', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'GitHub' }).waitFor();
    expect(await page.getByRole('link', { name: 'Stripe' }).count()).toBe(0);
  });

  it('creates and updates team secrets, showing names and dates but never values', async () => {
    await page.getByRole('link', { name: 'Team secrets' }).click();
    await page.getByRole('heading', { name: 'Team secrets', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('#secret-new-name').fill('deploy-token');
    await page.locator('#secret-new-value').fill('first-value-123');
    await page.getByRole('button', { name: 'Create secret' }).click();
    await page.getByText('Created deploy-token.').waitFor();
    await page.locator('#secret-new-name').fill('deploy-token');
    await page.locator('#secret-new-value').fill('would-replace');
    await page.getByRole('button', { name: 'Create secret' }).click();
    await page.getByText('deploy-token already exists').waitFor();
    const row = page.getByRole('row', { name: /deploy-token/ });
    await row.getByLabel('New value for deploy-token').fill('second-value-456');
    await row.getByRole('button', { name: 'Update' }).click();
    await page.getByText('Updated deploy-token.').waitFor();
    const html = await page.content();
    expect(html).not.toContain('first-value-123');
    expect(html).not.toContain('second-value-456');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows a file-defined webhook as its file, without the actions its file owns', async () => {
    const key = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' };
    const api = (path: string, method: string, body: unknown) =>
      fetch(`${server.url}/api/v1${path}`, { method, headers: key, body: JSON.stringify(body) }).then((r) => r.json());
    const factory = await api('/factories', 'POST', { name: 'From files' });
    const applied = await api(`/factories/${factory.uid}/apply`, 'POST', { webhooks: [{ name: 'ci', secret_name: 'deploy-token' }] });
    await page.goto(`${server.url}/dashboard/factories/${factory.uid}/webhooks/${applied.webhooks[0].uid}`);
    await page.getByRole('heading', { name: 'Webhook ci', level: 1 }).waitFor();
    await page.getByText('webhooks/ci.yaml').first().waitFor();
    await page.getByText('agentrun secret update deploy-token --team').waitFor();
    expect(await page.getByRole('button', { name: 'Rotate secret' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete webhook' }).count()).toBe(0);
    expect(await page.getByLabel('Enabled').isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
