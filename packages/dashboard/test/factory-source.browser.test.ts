import { fakeRepositoryReader } from '@agentrun/core/testing';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * A factory applied from a repository, on its page in a real headless Chromium (docs/dashboard.md;
 * docs/repositories.md, "Factories from a repository"): the source, the last applied commit and
 * the last apply's outcome, a broken commit's errors at file:line after "Sync now", the history.
 */
describe.runIf(browserAvailable())('dashboard: a factory from a repository', { timeout: 30_000 }, () => {
  const URL = 'file:///fake/acme/factory';
  const C1 = 'a'.repeat(40);
  const C2 = 'b'.repeat(40);
  const reader = fakeRepositoryReader({
    [URL]: {
      branches: { main: C1 },
      commits: {
        [C1]: { 'webhooks/ci.yaml': 'secretName: ci-token\n' },
        [C2]: { 'webhooks/ci.yaml': 'authMode: token\nsecretName: missing-secret\n' },
      },
    },
  });
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let factoryUid: string;

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
    [server, browser] = await Promise.all([startDashboardServer({ repositories: reader }), sharedBrowser()]);
    factoryUid = (await api<{ uid: string }>('POST', '/factories', { name: 'From git' })).uid;
    await api('PUT', '/team/secrets/ci-token', { value: 'ci-token-value-1234' });
    await api('POST', '/repositories', { name: 'acme/factory', url: URL });
    await api('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory' });
    await api('POST', `/factories/${factoryUid}/source/sync`, {});
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/factories/${factoryUid}`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 60_000);
  afterAll(async () => {
    expect(problems).toEqual([]);
    await server?.close();
  });

  it('shows the source and the last applied commit, then a broken commit’s errors at file:line after Sync now', async () => {
    await page.getByRole('heading', { name: 'Source', level: 2 }).waitFor();
    await page.getByTestId('last-applied').getByText('applied (version 1)').waitFor();
    expect(await page.getByTestId('last-applied').textContent()).toContain(C1.slice(0, 12));
    expect(await seriousViolations(page)).toEqual([]);

    const repo = reader.repositories.get(URL);
    if (!repo) throw new Error('no fake repository');
    repo.branches.main = C2;
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('apply-errors').getByText('webhooks/ci.yaml:2').waitFor();
    expect(await page.getByTestId('apply-errors').textContent()).toContain('no team secret named missing-secret');
    expect(await page.getByTestId('last-apply').textContent()).toContain('failed: 1 error');
    expect(await page.getByTestId('last-applied').textContent()).toContain(C1.slice(0, 12));
    await page.getByRole('table', { name: 'History' }).getByText(C2.slice(0, 12)).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('says so on a factory without a source', async () => {
    const other = await api<{ uid: string }>('POST', '/factories', { name: 'By hand' });
    await page.goto(`${server.url}/dashboard/factories/${other.uid}`);
    await page.getByText('Not applied from a repository.').waitFor();
  });
});
