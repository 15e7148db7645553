import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentRunClient } from '@agentrun/client';
import type { ExecutionContext, Executor, RunState, Store } from '@agentrun/core';
import { makeRun } from '@agentrun/core/testing';
import { startReferenceServer } from '@agentrun/server';
import { createMemoryStore } from '@agentrun/store-memory';
import { chromium, type Page } from 'playwright-core';
import { ensureAppBuilt } from './build-app.js';

/**
 * The pictures in docs/dashboard.md (`npm run docs:screenshots`, docs/dashboard.md "Building"):
 * starts the reference server in this process on the memory store, seeds a small team through the
 * API (runs in several states with a timeline, a factory with a webhook, automations and
 * deliveries, a schedule, a callback whose first attempts fail, a second key), then opens every
 * page in Chromium (`CHROMIUM_PATH`, default /usr/bin/chromium) and writes
 * docs/images/dashboard-<page>.png: 1280 × 800 (the runs list and the audit log 1280 × 680), the
 * top of each page (a run's page from its timeline). Titles and names are fixed;
 * IDs and times differ from one run of it to the next.
 */

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const imagesDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'images');
const VIEWPORT = { width: 1280, height: 800 };
const PUBLIC_BASE_URL = 'https://agents.example.com';
const DENSE = new Set(['runs', 'audit']);

const PLAN = [
  '# Fix the flaky checkout test',
  '',
  'The test waits on a **timer**; it should wait on the event.',
  '',
  '- Replace the timer with `once(emitter, "done")`',
  '- Run it 50 times to be sure',
].join('\n');

/** Lets the runs that hold (the one shown in progress, the one cancelled) end when the script does. */
const holds: (() => void)[] = [];
const hold = (context: ExecutionContext) =>
  new Promise<void>((resolve, reject) => {
    holds.push(resolve);
    context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
  });

/** The agent, by prompt: a full timeline, a failure, a run that works until stopped, or a short success. */
const agent: Executor = {
  async execute(input, context) {
    const prompt = input.run.prompt;
    if (/flaky/i.test(prompt)) {
      await context.report({ message: 'Reading the test' });
      await context.record?.([
        { type: 'output', data: { text: 'Looking at the flaky checkout test.' } },
        { type: 'tool_call', data: { call_id: 'toolu_1', name: 'Bash', input: { command: 'npm test -- checkout' } } },
        { type: 'tool_result', data: { call_id: 'toolu_1', name: 'Bash', output: '1 failed, 41 passed' } },
      ]);
      await context.reportArtifact?.({ type: 'PLAN', title: 'Flaky test plan', content: PLAN });
      await context.record?.([{ type: 'output', data: { text: 'Replaced the timer; 50 runs passed.' } }]);
      await context.reportArtifact?.({ type: 'PULL_REQUEST', url: 'https://github.com/acme/shop/pull/42', branch: 'fix/flaky-checkout' });
      await context.reportUsage?.({ inference_cost: 12, compute_cost: 3 });
      return { status: 'succeeded', message: 'Opened acme/shop#42' };
    }
    if (/migrate/i.test(prompt)) {
      await context.record?.([{ type: 'output', data: { text: 'The migration needs a database I cannot reach.' } }]);
      return { status: 'failed', message: 'Could not reach the staging database', error_code: 'ENVIRONMENT' };
    }
    if (/upgrade|dependencies/i.test(prompt)) {
      await context.report({ message: 'Upgrading dependencies' });
      await hold(context);
      return { status: 'succeeded' };
    }
    await context.record?.([{ type: 'output', data: { text: 'Done.' } }]);
    return { status: 'succeeded', message: 'Done' };
  },
};

const until = async (what: string, check: () => Promise<boolean>) => {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

async function main(): Promise<void> {
  await ensureAppBuilt();
  const attempts = new Map<string, number>();
  const store = createMemoryStore();
  const server = await startReferenceServer({
    store,
    port: 0,
    secretKey: new Uint8Array(32).fill(7),
    executor: agent,
    pollIntervalMs: 100,
    // Shown in ingress URLs and links: a real-looking address, the same on every run.
    publicBaseUrl: PUBLIC_BASE_URL,
    callbacks: {
      policy: { baseDelayMs: 1 },
      // No network: each message fails once (a 503), then is taken.
      sender: {
        async send(request) {
          const id = request.headers['webhook-id'] as string;
          const n = (attempts.get(id) ?? 0) + 1;
          attempts.set(id, n);
          return { status: n === 1 ? 503 : 200 };
        },
      },
    },
  });
  const client = new AgentRunClient({ apiKey: server.apiKey, baseURL: server.url });
  try {
    const ids = await seed(client, server.url);
    await seedHistory(store, ids.runId);
    await shoot(server.url, server.apiKey, ids);
  } finally {
    for (const release of holds) release();
    await server.close();
  }
}

interface Seeded {
  runId: string;
  factoryUid: string;
  webhookUid: string;
  deliveryId: string;
  automationId: string;
  callbackId: string;
}

async function seed(client: AgentRunClient, origin: string): Promise<Seeded> {
  await client.secrets.put('GITHUB_TOKEN', { value: 'ghp_example' });
  await client.secrets.put('SENTRY_DSN', { value: 'https://example@sentry.invalid/1' });
  await client.apiKeys.create({ name: 'CI deploys', scopes: ['read_runs', 'write_runs'] });
  const { callback } = await client.callbacks.create({ url: 'https://hooks.example.com/agentrun', event_types: ['run.state_changed'] });
  await client.schedules.create({
    name: 'Weekday review',
    cron_schedule: '0 9 * * 1-5',
    time_zone: 'Europe/Paris',
    prompt: 'Review the open pull requests',
  });
  await client.schedules.create({
    name: 'Nightly dependencies',
    cron_schedule: '0 2 * * *',
    time_zone: 'UTC',
    prompt: 'Check for outdated dependencies',
  });

  const factory = await client.factories.create({ name: 'Acme shop' });
  const created = await client.webhooks.create(factory.uid, { name: 'GitHub' });
  const webhookUid = created.webhook.uid;
  const automation = await client.automations.create(factory.uid, {
    name: 'Review opened PRs',
    prompt: 'Review the pull request that was opened',
    triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhookUid], payload: { action: ['opened'] } } }],
  });
  await client.automations.create(factory.uid, {
    name: 'Tidy closed PRs',
    prompt: 'Delete the branch of the closed pull request',
    triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhookUid], payload: { action: ['closed'] } } }],
  });
  const deliver = async (body: unknown) => {
    // The ingress URL names the public address; the request goes to where the server listens.
    const res = await fetch(created.ingress_url.replace(PUBLIC_BASE_URL, origin), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${created.secret}`,
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/5f1c2a',
        'x-github-event': 'pull_request',
      },
      body: JSON.stringify(body),
    });
    if (res.status !== 202) throw new Error(`delivery refused: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { delivery_id: string }).delivery_id;
  };
  const opened = await deliver({ action: 'opened', pull_request: { number: 41, title: 'Add gift cards', user: { login: 'ada' } } });
  const labeled = await deliver({ action: 'labeled', label: { name: 'bug' }, pull_request: { number: 40 } });
  const closed = await deliver({ action: 'closed', pull_request: { number: 38, merged: true } });
  for (const id of [opened, labeled, closed]) {
    await until(`delivery ${id} evaluated`, async () => (await client.deliveries.get(factory.uid, webhookUid, id)).run_ids !== null);
  }

  const run = await client.runs.create({ prompt: 'Fix the flaky checkout test', title: 'Fix the flaky checkout test' });
  await client.runs.wait(run.run_id);
  const failed = await client.runs.create({ prompt: 'Migrate the orders table', title: 'Migrate the orders table' });
  await client.runs.wait(failed.run_id);
  await client.runs.create({ prompt: 'Write release notes for 2.3', title: 'Release notes for 2.3' });
  const cancelled = await client.runs.create({ prompt: 'Upgrade the dependencies (old)', title: 'Upgrade dependencies' });
  await until('a run in progress', async () => (await client.runs.get(cancelled.run_id)).state === 'INPROGRESS');
  await client.runs.cancel(cancelled.run_id);
  await client.runs.create({ prompt: 'Upgrade the dependencies', title: 'Upgrade dependencies' });
  await until('the callback delivered', async () => {
    const page = await client.callbacks.deliveries(callback.id);
    return page.deliveries.some((d) => d.attempts.length > 1);
  });
  return {
    runId: run.run_id,
    factoryUid: factory.uid,
    webhookUid,
    deliveryId: opened,
    automationId: automation.id,
    callbackId: callback.id,
  };
}

const isoTime = (ms: number) => new Date(ms).toISOString();

/**
 * The last day's runs for the overview's charts: the API makes runs only now, so these go into the
 * store directly, for the team of the runs seeded above. A fixed pseudo-random sequence, so the
 * picture is the same shape every time.
 */
async function seedHistory(store: Store, teamRunId: string): Promise<void> {
  const teamUid = (await store.runs.get(teamRunId))?.teamUid;
  if (teamUid === undefined) throw new Error('the seeded run is not in the store');
  let seed = 7;
  const random = () => {
    seed = (seed * 48_271) % 2_147_483_647;
    return seed / 2_147_483_647;
  };
  const harnesses = ['claude-code', 'codex', 'gemini'];
  const names = ['review-pr', 'nightly-deps', 'fix-flaky'];
  const now = Date.now();
  for (let i = 0; i < 240; i++) {
    const createdAt = now - Math.floor(random() * 23.5 * 3_600_000) - 600_000;
    const roll = random();
    const state: RunState = roll < 0.8 ? 'SUCCEEDED' : roll < 0.92 ? 'FAILED' : roll < 0.97 ? 'CANCELLED' : 'ERROR';
    const harness = harnesses[Math.floor(random() * harnesses.length)] as string;
    const startedAt = createdAt + 2_000 + Math.floor(random() * 20_000);
    const endedAt = startedAt + Math.floor(30_000 + random() ** 2 * (harness === 'codex' ? 1_500_000 : 900_000));
    const run = makeRun({
      teamUid,
      title: 'Earlier run',
      state,
      createdAt: isoTime(createdAt),
      startedAt: isoTime(startedAt),
      updatedAt: isoTime(endedAt),
      config: { name: names[i % names.length] as string, harness: { type: harness } },
    });
    await store.runs.create({ run, attachments: [] });
  }
}

async function shoot(origin: string, apiKey: string, s: Seeded): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/dashboard/`);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    mkdirSync(imagesDir, { recursive: true });
    const factory = `/factories/${s.factoryUid}`;
    const webhook = `${factory}/webhooks/${s.webhookUid}`;
    /** Each page: its path, and what shows once it has loaded. */
    const pages: [name: string, path: string, ready: (page: Page) => Promise<unknown>][] = [
      ['overview', '/', (p) => p.locator('figure.chart[data-drawn]').first().waitFor()],
      ['runs', '/runs', (p) => p.getByRole('row').filter({ hasText: 'Release notes for 2.3' }).waitFor()],
      [
        'run',
        `/runs/${s.runId}`,
        async (p) => {
          await p.locator('.artifact-pr').waitFor();
          // The timeline, the page's point, from its heading down (the facts above it are text).
          await p.getByRole('heading', { name: 'Timeline', level: 2 }).evaluate((h) => h.scrollIntoView({ block: 'start' }));
        },
      ],
      ['factories', '/factories', (p) => p.getByRole('link', { name: 'Acme shop' }).waitFor()],
      ['factory', factory, (p) => p.getByText('Review opened PRs').first().waitFor()],
      ['webhook', webhook, (p) => p.getByText('matched nothing').first().waitFor()],
      ['delivery', `${webhook}/deliveries/${s.deliveryId}`, (p) => p.getByTestId('automation-verdict').nth(1).waitFor()],
      [
        'automation',
        `${factory}/automations/${s.automationId}`,
        (p) =>
          p
            .getByRole('button', { name: /Test filter/ })
            .first()
            .waitFor(),
      ],
      ['schedules', '/schedules', (p) => p.getByRole('row').filter({ hasText: 'Weekday review' }).waitFor()],
      ['callbacks', '/callbacks', (p) => p.getByRole('row').filter({ hasText: 'hooks.example.com' }).waitFor()],
      ['callback', `/callbacks/${s.callbackId}`, (p) => p.getByText('HTTP 503').first().waitFor()],
      ['secrets', '/secrets', (p) => p.getByText('SENTRY_DSN', { exact: true }).waitFor()],
      ['keys', '/keys', (p) => p.getByRole('row').filter({ hasText: 'CI deploys' }).waitFor()],
      ['audit', '/audit', (p) => p.locator('tbody tr').first().waitFor()],
      ['workers', '/workers', (p) => p.locator('tbody tr').first().waitFor()],
    ];
    let total = 0;
    for (const [name, path, ready] of pages) {
      await page.goto(`${origin}/dashboard${path}`);
      await page.locator('main h1').first().waitFor();
      await ready(page);
      // Let late reads (charts, counts) settle before the picture.
      await page.waitForLoadState('networkidle').catch(() => {});
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const file = join(imagesDir, `dashboard-${name}.png`);
      // The dense lists are cut a little shorter, to keep each file near 120 KB.
      const height = DENSE.has(name) ? 680 : VIEWPORT.height;
      await page.screenshot({ path: file, animations: 'disabled', caret: 'hide', clip: { x: 0, y: 0, ...VIEWPORT, height } });
      const size = statSync(file).size;
      total += size;
      console.log(`${file}: ${Math.round(size / 1024)} KB`);
    }
    console.log(`${pages.length} screenshots, ${Math.round(total / 1024)} KB in all`);
  } finally {
    await browser.close();
  }
}

await main();
