import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentRunOptions, createAgentRun, type ExecutionContext, type Executor, type Worker } from '../src/index.js';
import { servedUrlProblem } from '../src/models/served-url.js';
import { agentSessionLink, sessionLinkFor } from '../src/run/session-link.js';

// A run's default session_link (docs/run-api.md, "The run"; docs/embedding.md, "Session links"): its
// dashboard page under publicBaseUrl, given when the run starts; the agent's own link wins.

const principal = testPrincipal();

const until = async (check: () => boolean | Promise<boolean>, what: string) => {
  for (let i = 0; !(await check()); i++) {
    if (i > 600) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('sessionLinkFor', () => {
  it('is <publicBaseUrl><dashboardPath>/runs/<id>, with one slash between the parts and the ID encoded', () => {
    expect(sessionLinkFor({ publicBaseUrl: 'https://agents.example.com' })?.('r1')).toBe('https://agents.example.com/dashboard/runs/r1');
    expect(sessionLinkFor({ publicBaseUrl: 'https://example.com/agents/', dashboardPath: '/ui/' })?.('a/b c')).toBe(
      'https://example.com/agents/ui/runs/a%2Fb%20c',
    );
  });

  it('is none without publicBaseUrl, or with dashboardPath false', () => {
    expect(sessionLinkFor({})).toBeUndefined();
    expect(sessionLinkFor({ dashboardPath: '/dashboard' })).toBeUndefined();
    expect(sessionLinkFor({ publicBaseUrl: 'https://agents.example.com', dashboardPath: false })).toBeUndefined();
  });
});

describe('an agent’s session_link (agentSessionLink, models/served-url.ts)', () => {
  it('keeps an http(s) link, in any case of its scheme', () => {
    for (const link of ['https://agent.example.com/s/1', 'http://agent.example.com:8080/s?x=1#y', 'HTTPS://agent.example.com/'])
      expect(agentSessionLink({ message: 'm', session_link: link })).toEqual({ update: { message: 'm', session_link: link } });
    expect(agentSessionLink({ message: 'm', session_id: 'i' })).toEqual({ update: { message: 'm', session_id: 'i' } });
  });

  it('leaves out any other link and says why; the message and session id stand', () => {
    for (const link of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' https://agent.example.com/',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      '/runs/1',
      'https://',
      '',
    ])
      expect(agentSessionLink({ message: 'm', session_id: 'i', session_link: link })).toEqual({
        update: { message: 'm', session_id: 'i' },
        refused: 'must be an http(s) URL',
      });
    expect(agentSessionLink({ message: 'm', session_link: `https://a.example/${'x'.repeat(2048)}` }).refused).toBe(
      'must be at most 2048 characters',
    );
    // An executor outside TypeScript's checks.
    expect(agentSessionLink({ message: 'm', session_link: 7 as unknown as string })).toEqual({
      update: { message: 'm' },
      refused: 'must be an http(s) URL',
    });
  });

  it('keeps exactly what the artifacts’ URL check keeps: one decider', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string(), fc.constantFrom('javascript:', 'data:', 'http:', 'https://', 'HTTP://')), (link) => {
        const kept = agentSessionLink({ message: 'm', session_link: link }).refused === undefined;
        expect(kept).toBe(servedUrlProblem(link) === undefined);
        expect(kept).toBe(/^https?:\/\//i.test(link) && URL.canParse(link) && link.length <= 2048);
      }),
    );
  });
});

describe('a started run’s session_link', () => {
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  /** A run started on agentrun made with `options`, held by its executor; the run and the executor's context. */
  const startRun = async (options: Omit<AgentRunOptions, 'store'>) => {
    const agentrun = createAgentRun({ store: createMemoryStore(), ...options });
    let context: ExecutionContext | undefined;
    const executor: Executor = {
      execute: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          context = ctx;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        }),
    };
    const runId = (await agentrun.services.runs.create(principal, { prompt: 'do it' })).body.run_id;
    worker = agentrun.worker({ executor, pollIntervalMs: 20 });
    worker.start();
    await until(() => context !== undefined, 'the execution');
    const get = () => agentrun.services.runs.get(principal, runId);
    return { runId, get, context: context as ExecutionContext, agentrun };
  };

  it('is the run’s dashboard page under publicBaseUrl, until the agent reports its own', async () => {
    const { runId, get, context } = await startRun({ publicBaseUrl: 'https://agents.example.com/agents/' });
    expect(await get()).toMatchObject({ session_id: runId, session_link: `https://agents.example.com/agents/dashboard/runs/${runId}` });
    await context.report({ message: 'session', session_id: 'agent-7', session_link: 'https://agent.example.com/s/1' });
    expect(await get()).toMatchObject({ session_id: 'agent-7', session_link: 'https://agent.example.com/s/1' });
  });

  it('is not replaced by a link that is not http(s): the status stands, and an event says the link was refused', async () => {
    const { runId, get, context, agentrun } = await startRun({ publicBaseUrl: 'https://agents.example.com' });
    await context.report({ message: 'session', session_id: 'agent-7', session_link: 'javascript:alert(1)' });
    expect(await get()).toMatchObject({
      session_id: 'agent-7',
      session_link: `https://agents.example.com/dashboard/runs/${runId}`,
      status_message: { message: 'session' },
    });
    await context.record?.(
      [
        { type: 'status', data: { message: 'Session started', session_link: 'data:text/html,x' } },
        { type: 'output', data: { text: 'after' } },
      ],
      { status: { message: 'Session started', session_link: 'data:text/html,x' } },
    );
    expect((await get()).session_link).toBe(`https://agents.example.com/dashboard/runs/${runId}`);
    const events = (await agentrun.store.runEvents.list(runId, { limit: 100 })).filter((e) => e.type !== 'state');
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'status', data: { message: 'session', session_id: 'agent-7' } },
      { type: 'status', data: { message: 'Session link refused: must be an http(s) URL' } },
      { type: 'status', data: { message: 'Session started' } },
      { type: 'status', data: { message: 'Session link refused: must be an http(s) URL' } },
      { type: 'output', data: { text: 'after' } },
    ]);
  });

  it('keeps the agent’s link when the run starts again after a follow-up', async () => {
    const agentrun = createAgentRun({ store: createMemoryStore(), publicBaseUrl: 'https://agents.example.com' });
    let executions = 0;
    const executor: Executor = {
      async execute(_input, context) {
        executions++;
        if (executions === 1) await context.report({ message: 'session', session_link: 'https://agent.example.com/s/2' });
        return { status: 'succeeded' };
      },
    };
    const runId = (await agentrun.services.runs.create(principal, { prompt: 'do it' })).body.run_id;
    const get = () => agentrun.services.runs.get(principal, runId);
    worker = agentrun.worker({ executor, pollIntervalMs: 20 });
    worker.start();
    await until(async () => (await get()).state === 'SUCCEEDED', 'SUCCEEDED');
    await agentrun.services.runs.followup(principal, runId, { message: 'once more' });
    await until(async () => executions === 2 && (await get()).state === 'SUCCEEDED', 'the second execution');
    expect((await get()).session_link).toBe('https://agent.example.com/s/2');
  });

  it('follows dashboardPath', async () => {
    const { runId, get } = await startRun({ publicBaseUrl: 'https://agents.example.com', dashboardPath: '/ops/ui' });
    expect((await get()).session_link).toBe(`https://agents.example.com/ops/ui/runs/${runId}`);
  });

  it('is absent without publicBaseUrl (no link that would not open), and with dashboardPath false; the run is still its own session', async () => {
    for (const options of [{}, { publicBaseUrl: 'https://agents.example.com', dashboardPath: false as const }]) {
      const { runId, get } = await startRun(options);
      const run = await get();
      expect(run.session_id).toBe(runId);
      expect(run).not.toHaveProperty('session_link');
      await worker?.stop();
      worker = undefined;
    }
  });

  it('publicBaseUrl is also the base of webhook ingress URLs, unless webhookBaseUrl is given', async () => {
    const ingressUrl = async (options: Omit<AgentRunOptions, 'store'>) => {
      const agentrun = createAgentRun({ store: createMemoryStore(), secretKey: new Uint8Array(32), ...options });
      const admin = { ...principal, permissions: ['manage_factory' as const] };
      const factory = await agentrun.services.control.createFactory(admin, { name: 'F' });
      // The request came to an internal address; the URL printed is the public one.
      return (await agentrun.services.control.createWebhook(admin, factory.uid, { name: 'W' }, 'http://10.0.0.7:8080')).ingress_url;
    };
    expect(await ingressUrl({})).toMatch(/^http:\/\/10\.0\.0\.7:8080\/webhooks\/w\//);
    expect(await ingressUrl({ publicBaseUrl: 'https://agents.example.com/agents' })).toMatch(
      /^https:\/\/agents\.example\.com\/agents\/webhooks\/w\//,
    );
    expect(await ingressUrl({ publicBaseUrl: 'https://agents.example.com/agents', webhookBaseUrl: 'https://hooks.example.com' })).toMatch(
      /^https:\/\/hooks\.example\.com\/webhooks\/w\//,
    );
  });
});
