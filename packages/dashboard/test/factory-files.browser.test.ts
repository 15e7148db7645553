import { AgentRunClient } from '@agentrun/client';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keepScreenshot } from './support/artifacts.js';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * A factory's pages in a real headless Chromium (docs/dashboard.md): a factory without a source
 * makes no request that fails (no 404 in the console or the server's log), and an automation a
 * definition file made is shown read-only, its file named, without Save or Delete
 * (docs/definitions.md), as a file-defined webhook is.
 */
describe.runIf(browserAvailable())('dashboard: factory pages', { timeout: 30_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let client: AgentRunClient;
  let page: Page;
  let problems: string[];
  /** Every answer of 400 or more the page received, and every console error, even the 4xx ones openPage lets by. */
  let failures: string[];

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

  const signIn = async (path: string) => {
    ({ page, problems } = await openPage(browser, server.url));
    failures = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(`console error: ${message.text()}`);
    });
    await page.goto(`${server.url}${path}`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  it('opens a factory without a source with no failing request', async () => {
    const factory = await client.factories.create({ name: 'Hand made' });
    expect((await client.factories.get(factory.uid)).has_source).toBe(false);
    await signIn(`/dashboard/factories/${factory.uid}`);
    await page.getByRole('heading', { name: 'Hand made', level: 1 }).waitFor();
    await page.getByText('Not applied from a repository.').waitFor();
    await page.getByText('No automations yet.').waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    expect(failures).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'factory-without-source');
  });

  it('shows a file-defined automation read-only, naming its file, without Save or Delete; one made here stays editable', async () => {
    const factory = await client.factories.create({ name: 'From files' });
    await client.secrets.put('ci-token', { value: 'ci-token-value-1234' });
    const plan = await client.factories.apply(factory.uid, {
      webhooks: [{ name: 'ci', auth_mode: 'token', secret_name: 'ci-token' }],
      automations: [{ name: 'triage', prompt: 'Triage it', triggers: [{ webhooks: ['ci'], payload: { action: ['opened'] } }] }],
    });
    const automationId = plan.automations[0]!.id;
    await signIn(`/dashboard/factories/${factory.uid}/automations/${automationId}`);
    await page.getByRole('heading', { name: 'Automation triage', level: 1 }).waitFor();
    await page.locator('#automation-file').getByText('automations/triage.yaml').waitFor();
    expect(await page.locator('#automation-file').textContent()).toContain('agentrun apply');
    for (const field of [page.getByLabel('Name'), page.getByLabel('Prompt'), page.getByLabel('Enabled'), page.getByLabel('ci')]) {
      expect(await field.isDisabled()).toBe(true);
    }
    expect(await page.getByLabel('Payload filter (JSON, optional)').isDisabled()).toBe(true);
    expect(await page.getByLabel('Payload filter (JSON, optional)').inputValue()).toContain('opened');
    for (const name of ['Save automation', 'Delete automation', 'Add trigger → Webhook', 'Remove trigger 1']) {
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    }
    // Test filter still works on it: it changes nothing.
    await page.getByRole('button', { name: 'Test filter' }).waitFor();
    expect(failures).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await keepScreenshot(page, 'automation-file-defined');

    // One made through the API in the same factory is the API's: editable.
    const made = await client.automations.create(factory.uid, { name: 'by-hand', prompt: 'p', enabled: true, triggers: [] });
    await page.goto(`${server.url}/dashboard/factories/${factory.uid}/automations/${made.id}`);
    await page.getByRole('heading', { name: 'Automation by-hand', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Save automation' }).waitFor();
    expect(await page.getByLabel('Name').isDisabled()).toBe(false);
    expect(await page.locator('#automation-file').count()).toBe(0);
  });
});
