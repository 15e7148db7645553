import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { AgentRunClient } from '@agentrun/client';
import type { ExecutionContext, Executor } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * A run's page as a timeline in a real headless Chromium (docs/dashboard.md, "A run's page"): the
 * run's changes of state with their times, the agent's text, a tool call as a block that folds, a
 * follow-up where it came, each kind of artifact drawn as what it is (a plan's Markdown, a pull
 * request's link, a screenshot's image, a file to download), where it ran, curl lines to copy
 * without the key, and the header's state following the run live. Screenshots are kept under
 * test-artifacts/dashboard/ at the repository's root.
 */

const PLAN = [
  '# Fix the flaky test',
  '',
  'The test waits on a **timer**; it should wait on the event.',
  '',
  '- Replace the timer with `once(emitter, "done")`',
  '- Run it 50 times',
  '',
  '<img src=x onerror="document.title=1"> stays text',
].join('\n');

/** A small PNG (a blue-to-green gradient), so the preview has something to show. */
function gradientPng(width: number, height: number): Uint8Array {
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      rows.set([40, 90 + Math.round((120 * x) / width), 200 - Math.round((120 * y) / height)], y * (width * 3 + 1) + 1 + x * 3);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const artifactsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-artifacts', 'dashboard');

describe.runIf(browserAvailable())('dashboard: a run’s page as a timeline', { timeout: 60_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let client: AgentRunClient;
  let page: Page;
  let problems: string[] = [];
  /** Lets the run finish: the test moves it on while the page is open. */
  let finish: () => void = () => {};

  /**
   * The agent: text and a tool call, a plan, then blocked until a follow-up; then a pull request, a
   * screenshot and a file, and working until the test lets it finish.
   */
  const agent: Executor = {
    async execute(_input, context: ExecutionContext) {
      await context.record?.([
        { type: 'output', data: { text: 'Looking at the flaky test.' } },
        { type: 'tool_call', data: { call_id: 'toolu_1', name: 'Bash', input: { command: 'npm test -- flaky' } } },
        { type: 'tool_result', data: { call_id: 'toolu_1', name: 'Bash', output: '1 failed, 41 passed' } },
      ]);
      await context.reportArtifact?.({ type: 'PLAN', title: 'Flaky test plan', content: PLAN });
      const followedUp = new Promise<void>((resolve) => context.onFollowup(() => resolve()));
      await context.block('Waiting for a go-ahead on the plan');
      await followedUp;
      await context.resume();
      await context.record?.([{ type: 'output', data: { text: 'Going ahead with the plan.' } }]);
      await context.reportArtifact?.({ type: 'PULL_REQUEST', url: 'https://github.com/acme/app/pull/9', branch: 'fix/flaky' });
      await context.reportArtifact?.({
        type: 'SCREENSHOT',
        filepath: 'home.png',
        content: gradientPng(320, 180),
        description: 'The home page',
      });
      await context.reportArtifact?.({
        type: 'FILE',
        filepath: 'out/report.txt',
        content: new TextEncoder().encode('report'),
        content_type: 'text/plain',
      });
      await context.reportUsage?.({ inference_cost: 12, compute_cost: 3 });
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return { status: 'succeeded', message: 'Fixed the flaky test' };
    },
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer({ executor: agent }), sharedBrowser()]);
    client = new AgentRunClient({ apiKey: server.apiKey, baseURL: server.url });
    mkdirSync(artifactsDir, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    finish();
    await server?.close();
  });

  /** The header's state badge. */
  const headerState = () => page.locator('h1 + p .badge').textContent();

  it('shows states, text, tools, a follow-up and each artifact in order, live, and fits 390 px', async () => {
    const { run_id } = await client.runs.create({ prompt: 'Fix the flaky test', title: 'Timeline run' });
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/runs/${run_id}`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Timeline run', level: 1 }).waitFor();
    const timeline = page.getByRole('list', { name: 'Transcript' });

    // Blocked on the plan: the header says so without a reload, and the plan is drawn as Markdown.
    await expect.poll(headerState).toBe('BLOCKED');
    const plan = timeline.locator('.artifact-plan .markdown');
    await plan.getByRole('heading', { name: 'Fix the flaky test' }).waitFor();
    expect(await plan.locator('h3').count()).toBe(1);
    expect(await plan.locator('ul > li').allTextContents()).toEqual(['Replace the timer with once(emitter, "done")', 'Run it 50 times']);
    expect(await plan.locator('strong').textContent()).toBe('timer');
    // The agent's HTML stays text: no element of it reaches the page.
    expect(await plan.locator('img').count()).toBe(0);
    await plan.getByText('<img src=x onerror="document.title=1"> stays text').waitFor();

    // Where it ran: the worker and host the start's state event names.
    const facts = page.locator('dl.facts');
    await expect.poll(() => facts.textContent()).toMatch(/Worker\S+ on host \S+/);
    expect(await facts.textContent()).toContain('Environmentnone');

    // A follow-up from the page: it sits in the timeline where it came, and the run goes on.
    await page.getByLabel('Message').fill('Go ahead with the plan');
    await page.getByRole('button', { name: 'Send follow-up' }).click();
    await timeline.getByText('follow-up: Go ahead with the plan').waitFor();
    await expect.poll(headerState).toBe('INPROGRESS');
    const file = timeline.getByRole('button', { name: 'Download report.txt' });
    await file.waitFor();

    // In order: created, the states, text, the tool, the plan, the follow-up, then the rest.
    const order = await timeline.locator('> li').evaluateAll((items) =>
      items.map((li) => {
        const kind = [...li.classList].find((c) => c.startsWith('event-'))?.slice('event-'.length) ?? '';
        if (kind === 'state') return `state ${li.textContent?.match(/→ (\w+)/)?.[1]}`;
        if (kind === 'artifact') return `artifact ${li.querySelector('.artifact')?.className.replace('artifact artifact-', '')}`;
        return kind;
      }),
    );
    expect(order).toEqual([
      'created',
      'state CLAIMED',
      'state INPROGRESS',
      'output',
      'tool',
      'artifact plan',
      'state BLOCKED',
      'followup',
      'state INPROGRESS',
      'output',
      'artifact pr',
      'artifact screenshot',
      'artifact file',
    ]);
    // Each change of state with its time, and how long after the one before.
    const states = timeline.locator('> li.event-state');
    expect(await states.first().locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await states.nth(1).locator('.hint').textContent()).toMatch(/^ after \d+ (ms|s)$/);

    // The tool call folds and opens.
    const tool = timeline.locator('.tool-block');
    expect(await tool.locator('summary').textContent()).toContain('npm test -- flaky');
    expect(await tool.locator('.tool-output').isVisible()).toBe(false);
    await tool.locator('summary').click();
    expect(await tool.locator('.tool-output').textContent()).toBe('1 failed, 41 passed');
    await tool.locator('summary').click();
    await expect.poll(() => tool.locator('.tool-output').isVisible()).toBe(false);

    // The pull request as a link, the screenshot's image loaded, the file to download.
    expect(await timeline.getByRole('link', { name: 'https://github.com/acme/app/pull/9' }).getAttribute('rel')).toBe(
      'noopener noreferrer',
    );
    const image = timeline.getByRole('img', { name: 'The home page' });
    await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(320);
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    const [download] = await Promise.all([page.waitForEvent('download'), file.click()]);
    expect(download.suggestedFilename()).toBe('report.txt');
    // The artifacts section counts them and draws none twice.
    await page.getByText('4 artifacts; each shown in the timeline above, where the agent reported it.').waitFor();
    await expect.poll(() => facts.textContent()).toContain('inference cost: 12');

    // Copy as curl: the run's calls, with $AGENTRUN_API_KEY and never the key.
    await page.getByRole('button', { name: 'Copy curl: Get the run' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`curl -sS -H "Authorization: Bearer $AGENTRUN_API_KEY" '${server.url}/api/v1/agent/runs/${run_id}'`);
    await page.getByRole('button', { name: 'Copy curl: Send a follow-up' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`/agent/runs/${run_id}/followups'`);
    expect(await page.content()).not.toContain(server.apiKey);

    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('heading', { name: 'Timeline', level: 2 }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifactsDir, 'run-timeline.png'), fullPage: true });

    // The run finishes while the page is open: the header follows it.
    finish();
    await expect.poll(headerState).toBe('SUCCEEDED');
    await timeline.getByText('INPROGRESS → SUCCEEDED: Fixed the flaky test').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);

    // On a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(artifactsDir, 'run-timeline-390.png'), fullPage: true });
    const png = readFileSync(join(artifactsDir, 'run-timeline-390.png'));
    expect(png.readUInt32BE(16)).toBe(390);

    expect(problems).toEqual([]);
    await page.context().close();
  });
});
