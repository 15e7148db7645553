import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentRun, type RunState, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processExecutor } from '../../packages/executor-process/src/index.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * End to end: a real agent (the process executor) puts NUL and lone surrogates in every field of
 * every protocol message (status; session id and link; artifact type, name, path and url; result
 * message and error code) and NUL bytes in plain lines, each between numbered plain lines.
 * PostgreSQL refuses a NUL, so unhandled, the result's NUL would fail the outcome's write and run
 * the agent again, and a NUL would drop the whole batch of lines around it. The run ends once, in
 * the state its result says, every altered text U+FFFD and its event marked `sanitized`,
 * every line before and after kept (docs/executors.md, "Text a store cannot keep").
 *
 * Follow-ups are not among the fields: the API refuses a follow-up holding NUL or a lone
 * surrogate (models/text.ts), so an agent echoing one prints only what a store can keep.
 */

const AGENT = fileURLToPath(new URL('./support/text-agent.mjs', import.meta.url));
const principal = testPrincipal();
const ENDED: RunState[] = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];
/** What the agent's `bad(what)` becomes: NUL and each lone surrogate a U+FFFD. */
const clean = (what: string) => `${what}:\ufffd:\ufffd:\ufffd:end`;
/** As printed, inside JSON: the escapes, as text. */
const escaped = (what: string) => `${what}:\\u0000:\\ud800:\\udc00:end`;

describe.each(HOSTILE_STORES)('an agent printing NUL and lone surrogates in every field, on %s', (kind) => {
  const stores = storeFor(kind, 'agent_text');
  let root: string;
  let starts: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentrun-agent-text-'));
    starts = join(root, 'starts.log');
    writeFileSync(starts, '');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** One run of the agent to its end, with its transcript (events but `state`) and the executions it took. */
  async function runAgent(store: Store, outcome: 'succeeded' | 'failed') {
    const errors: unknown[] = [];
    const executor = processExecutor({
      command: process.execPath,
      args: [AGENT, outcome],
      workspaceRoot: join(root, 'runs'),
      env: { set: { AGENTRUN_TEST_STARTS: starts } },
      onError: (e) => errors.push(e),
    });
    const agentrun = createAgentRun({ store, executor });
    const worker = agentrun.worker({ pollIntervalMs: 20, onError: (e) => errors.push(e) });
    worker.start();
    try {
      const { run_id } = (await agentrun.services.runs.create(principal, { prompt: 'hostile text' })).body;
      const deadline = Date.now() + 10_000;
      let run = await agentrun.services.runs.get(principal, run_id);
      while (!ENDED.includes(run.state)) {
        if (Date.now() > deadline) throw new Error(`run ${run_id} did not end: ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        run = await agentrun.services.runs.get(principal, run_id);
      }
      const events = await store.runEvents.list(run_id, { limit: 1000 });
      const executions = readFileSync(starts, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith(`${run_id} `));
      return { run, events: events.filter((e) => e.type !== 'state').map(({ type, data }) => ({ type, data })), executions, errors };
    } finally {
      await worker.stop();
    }
  }

  /** Every event the agent's lines leave, in order; the result leaves none. */
  const transcript = [
    { type: 'output', data: { text: 'line 1' } },
    { type: 'status', data: { message: clean('status'), sanitized: true } },
    { type: 'output', data: { text: 'line 2' } },
    {
      type: 'status',
      data: {
        message: 'Session started',
        session_id: clean('id'),
        session_link: `https://agents.example/${clean('link')}`,
        sanitized: true,
      },
    },
    { type: 'output', data: { text: 'line 3' } },
    { type: 'artifact', data: { type: clean('type'), name: clean('name'), path: clean('path'), url: clean('url'), sanitized: true } },
    { type: 'output', data: { text: 'line 4' } },
    { type: 'output', data: { text: 'plain:\ufffd:raw NUL byte', sanitized: true } },
    { type: 'output', data: { text: 'line 5' } },
    { type: 'output', data: { text: '{"agentrun": not json \ufffd', sanitized: true } },
    { type: 'output', data: { text: 'line 6' } },
    // Not a protocol message: output as printed, its escapes plain text (nothing to clean).
    { type: 'output', data: { text: `{"agentrun":"unknown","text":"${escaped('unknown')}"}` } },
    { type: 'output', data: { text: 'line 7' } },
    { type: 'output', data: { text: 'line 8' } },
  ];

  it('a failed result: FAILED once, its message and error code cleaned, every line kept and the altered ones marked', async () => {
    const { run, events, executions, errors } = await runAgent(await stores.fresh(), 'failed');
    expect(executions).toHaveLength(1);
    expect(run.state).toBe('FAILED');
    expect(run.status_message).toEqual({ message: clean('result'), error_code: clean('code') });
    expect(run.session_id).toBe(clean('id'));
    expect(run.session_link).toBe(`https://agents.example/${clean('link')}`);
    expect(events).toEqual(transcript);
    expect(errors).toEqual([]);
  }, 15_000);

  it('a succeeded result: SUCCEEDED once, its message cleaned, the same transcript', async () => {
    const { run, events, executions, errors } = await runAgent(await stores.fresh(), 'succeeded');
    expect(executions).toHaveLength(1);
    expect(run.state).toBe('SUCCEEDED');
    expect(run.status_message).toEqual({ message: clean('result') });
    expect(events).toEqual(transcript);
    expect(errors).toEqual([]);
  }, 15_000);
});
