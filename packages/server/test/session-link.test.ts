import type { Executor, RunItem } from '@agentrun/core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureAppBuilt } from '../../dashboard/scripts/build-app.js';
import { type ReferenceServer, startReferenceServer } from '../src/server.js';

// The reference server's session links (docs/run-api.md, "The run"): absolute, at the run's
// dashboard page under the server's public URL (default http://localhost:<port>), which answers
// the dashboard's page; a link the agent reports replaces it.

/** An executor that reports `link` as the run's session (when given), then holds until cancelled. */
const holding = (link?: string): Executor => ({
  async execute(_input, context) {
    if (link !== undefined) await context.report({ message: 'session', session_link: link });
    await new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
    throw new Error('unreachable');
  },
});

describe('the reference server’s session_link', () => {
  let server: ReferenceServer | undefined;
  // The dashboard answers its page from the built app (docs/dashboard.md, "Building").
  beforeAll(() => ensureAppBuilt(), 60_000);
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const call = async (path: string, init: RequestInit = {}) => {
    const s = server as ReferenceServer;
    const response = await fetch(`${s.url}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return response.json();
  };

  /** A run started on the server, once its link is what `settled` accepts. */
  const startedRun = async (settled: (run: RunItem) => boolean): Promise<RunItem> => {
    const { run_id } = await call('/agent/run', { method: 'POST', body: JSON.stringify({ prompt: 'open me' }) });
    for (let i = 0; i < 500; i++) {
      const run = (await call(`/agent/runs/${run_id}`)) as RunItem;
      if (settled(run)) return run;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`run ${run_id} never got the link expected`);
  };

  it('is the run’s dashboard page at http://localhost:<port>, and that page opens without a key', async () => {
    server = await startReferenceServer({ port: 0, executor: holding(), pollIntervalMs: 20 });
    const run = await startedRun((r) => r.session_link !== undefined);
    const port = new URL(server.url).port;
    expect(run.session_link).toBe(`http://localhost:${port}/dashboard/runs/${run.run_id}`);
    // What a person's browser gets there: the dashboard's page (it signs in, then shows this run).
    const page = await fetch(run.session_link as string);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('data-base-path="/dashboard"');
  });

  it('follows publicBaseUrl', async () => {
    server = await startReferenceServer({ port: 0, executor: holding(), pollIntervalMs: 20, publicBaseUrl: 'https://agents.example.com/' });
    const run = await startedRun((r) => r.session_link !== undefined);
    expect(run.session_link).toBe(`https://agents.example.com/dashboard/runs/${run.run_id}`);
  });

  it('is the agent’s own link once it reports one', async () => {
    server = await startReferenceServer({ port: 0, executor: holding('https://agent.example.com/sessions/7'), pollIntervalMs: 20 });
    const run = await startedRun((r) => r.session_link?.startsWith('https://agent.example.com') === true);
    expect(run.session_link).toBe('https://agent.example.com/sessions/7');
  });
});
