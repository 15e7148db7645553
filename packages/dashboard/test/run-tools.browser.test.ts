import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRunClient } from '@agentrun/client';
import type { TranscriptEntry } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, seriousViolations, sharedBrowser } from './support/browser.js';
import { startDashboardServer } from './support/server.js';

/**
 * A run's tool calls on its page in a real headless Chromium (docs/dashboard.md, "Tests"): the
 * agent's text and its tool blocks in transcript order, each with its one-line summary, opened to
 * its input and output; an error, truncated output and input, a result whose call was never seen,
 * and a call appended while the page is open, then its result. A screenshot of the page is written
 * to a temporary folder (kept with KEEP_SCREENSHOTS=1, to look at).
 */

const LS_OUTPUT = [
  'total 24',
  'drwxr-xr-x  5 agent agent 4096 Nov 28 10:00 .',
  '-rw-r--r--  1 agent agent  812 Nov 28 10:00 README.md',
  '-rw-r--r--  1 agent agent 1432 Nov 28 10:00 package.json',
  'drwxr-xr-x  3 agent agent 4096 Nov 28 10:00 src',
].join('\n');
/** Longer than a result keeps (16,384 characters): stored cut, marked `truncated`. */
const BUILD_LOG = Array.from({ length: 800 }, (_, i) => `[build] step ${i + 1}: compiled src/module-${i + 1}.ts`).join('\n');
/** An input whose JSON is longer than a call keeps: stored as the start of its JSON text. */
const NOTES = 'Notes on the flaky test.\n'.repeat(1000);

/** What the scripted run records, in this order. */
const SCRIPT: TranscriptEntry[] = [
  { type: 'output', data: { text: "I'll look at the repository first." } },
  { type: 'tool_call', data: { call_id: 'toolu_1', name: 'Bash', input: { command: 'ls -la', description: 'List the files' } } },
  { type: 'tool_result', data: { call_id: 'toolu_1', name: 'Bash', output: LS_OUTPUT } },
  { type: 'tool_call', data: { call_id: 'toolu_2', name: 'Read', input: { file_path: '/workspace/config/missing.json' } } },
  {
    type: 'tool_result',
    data: { call_id: 'toolu_2', name: 'Read', output: 'File does not exist: /workspace/config/missing.json', is_error: true },
  },
  { type: 'tool_call', data: { call_id: 'toolu_3', name: 'Bash', input: { command: 'cat build.log' } } },
  { type: 'tool_result', data: { call_id: 'toolu_3', output: BUILD_LOG } },
  { type: 'tool_call', data: { call_id: 'toolu_4', name: 'Write', input: { file_path: '/workspace/NOTES.md', content: NOTES } } },
  { type: 'tool_result', data: { call_id: 'toolu_4', name: 'Write', output: 'File created successfully at: /workspace/NOTES.md' } },
  { type: 'tool_result', data: { call_id: 'call_lost', name: 'shell', output: 'a result whose call was never recorded' } },
  { type: 'output', data: { text: 'The build log shows one failing test; running it again.' } },
];

describe.runIf(browserAvailable())('dashboard: a run’s tool calls', { timeout: 60_000 }, () => {
  let server: ReferenceServer;
  let browser: Browser;
  let client: AgentRunClient;
  let page: Page;
  let problems: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'agentrun-run-tools-'));

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDashboardServer({ script: SCRIPT }), sharedBrowser()]);
    client = new AgentRunClient({ apiKey: server.apiKey, baseURL: server.url });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (process.env.KEEP_SCREENSHOTS === '1') console.info(`[dashboard tests] screenshots kept in ${shots}`);
    else rmSync(shots, { recursive: true, force: true });
  });

  /** The tool blocks' names, summaries and status words, in page order. */
  const blocks = () =>
    page
      .locator('.transcript .tool-block > summary')
      .evaluateAll((summaries) =>
        summaries.map((s) =>
          ['.tool-name', '.tool-summary', '.label'].map((selector) => s.querySelector(selector)?.textContent ?? '').join(' | '),
        ),
      );

  it('shows text and tool blocks in order, opens them to input and output, and adds a new call live', async () => {
    const { run_id } = await client.runs.create({ prompt: 'Run the script', title: 'Tools run' });
    ({ page, problems } = await openPage(browser, server.url));
    await page.goto(`${server.url}/dashboard/runs/${run_id}`);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tools run', level: 1 }).waitFor();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText('Holding until cancelled').waitFor();

    // The agent's text and its tools, as the run recorded them; a result joins its call.
    const lines = await transcript
      .locator('> li.event-output, > li.event-tool')
      .evaluateAll((items) =>
        items.map((li) => (li.classList.contains('event-tool') ? 'tool' : (li.querySelector('.output')?.textContent ?? ''))),
      );
    expect(lines).toEqual([
      "I'll look at the repository first.",
      'tool',
      'tool',
      'tool',
      'tool',
      'tool',
      'The build log shows one failing test; running it again.',
    ]);
    expect(await blocks()).toEqual([
      'Bash | ls -la | ok',
      'Read | /workspace/config/missing.json | error',
      'Bash | cat build.log | ok',
      'Write | /workspace/NOTES.md | ok',
      'shell | result of call call_lost | ok',
    ]);
    // Folded, nothing but the summary shows.
    await expect.poll(() => transcript.locator('.tool-body').first().isVisible()).toBe(false);

    // Opened (by the keyboard): the whole input as pretty JSON, and the output.
    const ls = transcript.locator('.tool-block').nth(0);
    await ls.locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await ls.locator('.tool-input').textContent()).toBe(
      JSON.stringify({ command: 'ls -la', description: 'List the files' }, null, 2),
    );
    expect(await ls.locator('.tool-output').textContent()).toBe(LS_OUTPUT);

    const failed = transcript.locator('.tool-block').nth(1);
    await failed.locator('summary').click();
    expect(await failed.getAttribute('class')).toContain('tool-block-error');
    await failed.locator('.tool-output-error', { hasText: 'File does not exist' }).waitFor();

    // Cut output and input each say so.
    const log = transcript.locator('.tool-block').nth(2);
    await log.locator('summary').click();
    expect(await log.locator('.tool-output').textContent()).toBe(BUILD_LOG.slice(0, 16_384));
    await log.getByText('Truncated: the output was longer').waitFor();
    const write = transcript.locator('.tool-block').nth(3);
    await write.locator('summary').click();
    await write.getByText('Truncated: the input was longer').waitFor();
    expect(await write.locator('.tool-input').textContent()).toMatch(/^\{"file_path":"\/workspace\/NOTES.md","content":"Notes on/);

    // A call appended while the page is open shows at once, waiting; then its result joins it.
    await server.store.runEvents.append(run_id, [
      {
        at: new Date().toISOString(),
        type: 'tool_call',
        data: { call_id: 'toolu_5', name: 'Bash', input: { command: 'npm test -- --run test/flaky.test.ts' } },
      },
    ]);
    await transcript.locator('.tool-block', { hasText: 'npm test -- --run test/flaky.test.ts' }).getByText('running').waitFor();
    await server.store.runEvents.append(run_id, [
      {
        at: new Date().toISOString(),
        type: 'tool_result',
        data: { call_id: 'toolu_5', name: 'Bash', output: '✓ test/flaky.test.ts (3 tests)' },
      },
    ]);
    await transcript.locator('.tool-block', { hasText: 'npm test -- --run test/flaky.test.ts' }).locator('.label-ok').waitFor();
    expect((await blocks()).at(-1)).toBe('Bash | npm test -- --run test/flaky.test.ts | ok');
    // The blocks opened before stay open as the transcript grows.
    expect(await ls.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(true);

    expect(await seriousViolations(page)).toEqual([]);

    // Close the long ones so the picture shows the page as one reads it: text, blocks, one opened.
    await log.locator('summary').click();
    await write.locator('summary').click();
    await page.getByRole('heading', { name: 'Timeline', level: 2 }).scrollIntoViewIfNeeded();
    const file = join(shots, 'run-tools.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // IHDR: the page's width (the viewport's), and at least the viewport's height.
    expect(png.readUInt32BE(16)).toBe(1280);
    expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(900);
    expect(png.length).toBeGreaterThan(20_000);

    await client.runs.cancel(run_id);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
