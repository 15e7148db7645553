import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionInput, Executor, HarnessInfo, Worker } from '../src/index.js';
import { authSecretSourceFor, HARNESS_AUTH_FIELDS } from '../src/index.js';
import { expectProblem, type Harness, setup } from './helpers.js';

// A run's harness and the team secret its key comes from (docs/harnesses.md): checked at create
// against what the executor runs, opened for the executor at execution, never shown again.

const KEY = 'a'.repeat(64);
const SECRET = 'sk-ant-the-teams-own-key-1234';

let worker: Worker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

const until = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; !(await check()); i++) {
    if (i > 1000) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** An executor that runs claude (the default) and codex, and says what it was given. */
function claudeAndCodex(seen: ExecutionInput[] = []): Executor {
  const list: HarnessInfo[] = [{ type: 'claude', version: '2.1.332', default: true }, { type: 'codex' }];
  return {
    harnesses: async () => list,
    async execute(input, ctx) {
      seen.push(input);
      const source = authSecretSourceFor(input.run.agent_config ?? {}, 'claude', HARNESS_AUTH_FIELDS);
      const key = source ? input.harnessAuth?.[source]?.reveal() : undefined;
      // An agent that prints its key: the transcript and the outcome show `[secret]`.
      await ctx.record?.([{ type: 'output', data: { text: `my key is ${key}` } }]);
      return { status: 'succeeded', message: `done with ${key}` };
    },
  };
}

const runOf = async (h: Harness, body: unknown) => {
  const res = await h.json<{ run_id: string }>('POST', '/agent/run', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.run_id;
};

describe('config.harness at create', () => {
  it('refuses a harness no executor knows, naming the ones there are', async () => {
    const h = await setup();
    const p = await expectProblem(
      await h.call('POST', '/agent/run', { body: { prompt: 'p', config: { harness: { type: 'aider' } } } }),
      400,
    );
    expect(p.detail).toBe(
      'invalid run request: config.harness.type: this server cannot run harness aider; it runs claude, codex, gemini, command (or oz, its default)',
    );
    // Without an executor that says what it runs, every known harness is taken.
    await runOf(h, { prompt: 'p', config: { harness: { type: 'gemini' } } });
  });

  it('refuses a harness this executor does not run, and lists what it runs at GET /agent/harnesses', async () => {
    const h = await setup({ executor: claudeAndCodex() });
    const p = await expectProblem(
      await h.call('POST', '/agent/run', { body: { prompt: 'p', config: { harness: { type: 'gemini' } } } }),
      400,
    );
    expect(p.detail).toMatch(/cannot run harness gemini; it runs claude, codex \(or oz, its default\)/);
    await runOf(h, { prompt: 'p', config: { harness: { type: 'codex' } } });
    await runOf(h, { prompt: 'p', config: { harness: { type: 'oz' } } });
    await runOf(h, { prompt: 'p', config: { harness: { model_id: 'm' } } });
    const listed = await h.json('GET', '/agent/harnesses');
    expect(listed).toMatchObject({
      status: 200,
      body: { harnesses: [{ type: 'claude', version: '2.1.332', default: true }, { type: 'codex' }] },
    });
  });

  it('refuses a run whose config names a team secret that is not there, naming the field', async () => {
    const h = await setup({ secretKey: KEY });
    const asked = [
      [{ harness: { type: 'claude', auth_secret_name: 'nope' } }, 'config.harness.auth_secret_name: no team secret named nope'],
      [
        { harness_auth_secrets: { codex_auth_secret_name: 'gone' } },
        'config.harness_auth_secrets.codex_auth_secret_name: no team secret named gone',
      ],
    ] as const;
    for (const [config, detail] of asked) {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', config } }), 400);
      expect(p.detail).toContain(detail);
    }
    expect((await h.json<{ runs: unknown[] }>('GET', '/agent/runs')).body.runs).toEqual([]);
  });
});

describe('the harness key at execution', () => {
  it('reaches the executor opened, and is [secret] in the transcript and the outcome', async () => {
    const seen: ExecutionInput[] = [];
    const h = await setup({ secretKey: KEY, executor: claudeAndCodex(seen) });
    await h.json('PUT', '/team/secrets/anthropic', { body: { value: SECRET } });
    const id = await runOf(h, {
      prompt: 'p',
      config: { harness: { type: 'claude' }, harness_auth_secrets: { claude_auth_secret_name: 'anthropic' } },
    });
    worker = h.handler.app.worker({ pollIntervalMs: 10 });
    worker.start();
    await until(async () => (await h.json<{ state: string }>('GET', `/agent/runs/${id}`)).body.state === 'SUCCEEDED', 'SUCCEEDED');
    expect(seen[0]?.harnessAuth?.['harness_auth_secrets.claude_auth_secret_name']?.reveal()).toBe(SECRET);
    // Printed, it is hidden.
    expect(String(seen[0]?.harnessAuth?.['harness_auth_secrets.claude_auth_secret_name'])).toBe('[secret]');
    const run = await h.json<{ status_message: { message: string } }>('GET', `/agent/runs/${id}`);
    expect(run.body.status_message.message).toBe('done with [secret]');
    const events = await h.json<{ events: { type: string; data: unknown }[] }>('GET', `/agent/runs/${id}/events`);
    expect(JSON.stringify(events.body)).not.toContain(SECRET);
    expect(events.body.events.find((e) => e.type === 'output')?.data).toEqual({ text: 'my key is [secret]' });
  });

  it('fails the run, naming the secret, when it was deleted since the run was created; the executor never runs', async () => {
    const seen: ExecutionInput[] = [];
    const h = await setup({ secretKey: KEY, executor: claudeAndCodex(seen) });
    await h.json('PUT', '/team/secrets/anthropic', { body: { value: SECRET } });
    const id = await runOf(h, { prompt: 'p', config: { harness: { type: 'claude', auth_secret_name: 'anthropic' } } });
    await h.call('DELETE', '/team/secrets/anthropic');
    worker = h.handler.app.worker({ pollIntervalMs: 10 });
    worker.start();
    await until(async () => (await h.json<{ state: string }>('GET', `/agent/runs/${id}`)).body.state === 'FAILED', 'FAILED');
    const run = await h.json<{ status_message: unknown }>('GET', `/agent/runs/${id}`);
    expect(run.body.status_message).toEqual({
      message: 'config.harness.auth_secret_name names team secret anthropic, which no longer exists',
      error_code: 'auth_secret_unavailable',
    });
    expect(seen).toEqual([]);
  });
});
