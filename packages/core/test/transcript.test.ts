import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRunHandler, type ExecutionContext, type ExecutionOutcome, type Executor, type Worker } from '../src/index.js';

// The transcript's writers (docs/run-api.md, "Run events"): state changes, follow-ups and the
// worker's progress reports each append to the run's log once they committed.

const principal = testPrincipal();

const until = async (check: () => boolean | Promise<boolean>, what: string) => {
  for (let i = 0; !(await check()); i++) {
    if (i > 600) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('transcript writers', () => {
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  it('appends the claim, every state change, each progress report, the executor’s output and artifacts, and each follow-up, in order', async () => {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({ store });
    let ctx: ExecutionContext | undefined;
    let finish: (o: ExecutionOutcome) => void = () => {};
    const received: string[] = [];
    const executor: Executor = {
      execute: (_input, context) =>
        new Promise((resolve, reject) => {
          ctx = context;
          finish = resolve;
          context.onFollowup((f) => received.push(f.message));
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        }),
    };
    const runId = (await handler.service.create(principal, { prompt: 'do it' })).body.run_id;
    worker = handler.app.worker({ executor, pollIntervalMs: 20 });
    worker.start();
    await until(() => ctx !== undefined, 'the execution');
    await until(async () => (await handler.service.get(principal, runId)).state === 'INPROGRESS', 'INPROGRESS');
    await ctx?.report({ message: 'halfway', session_id: 'sess-1' });
    await ctx?.record?.([
      { type: 'output', data: { text: 'x'.repeat(20_000) } },
      { type: 'artifact', data: { type: 'PULL_REQUEST', url: 'https://example.com/pr/1' } },
      { type: 'tool_call', data: { call_id: 'c1', name: 'Bash', input: { command: 'ls' } } },
      { type: 'tool_result', data: { call_id: 'c1', name: 'Bash', output: 'y'.repeat(20_000), is_error: true } },
      { type: 'tool_call', data: { call_id: 'c2', name: 'Write', input: { content: 'z'.repeat(20_000) } } },
    ]);
    await handler.service.followup(principal, runId, { message: 'also the docs' });
    // Received before the run ends (one it did not receive would queue the run again: docs/executors.md, "Follow-ups").
    await until(() => received.length === 1, 'the follow-up delivered');
    finish({ status: 'succeeded', message: 'done' });
    await until(async () => (await handler.service.get(principal, runId)).state === 'SUCCEEDED', 'SUCCEEDED');
    // No worker claims it again: the log ends with the re-queue and its follow-up.
    await worker.stop();
    await handler.service.followup(principal, runId, { message: 'one more thing' });

    const events = await store.runEvents.list(runId, { limit: 100 });
    expect(events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(events.map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'state', data: { from: 'QUEUED', to: 'CLAIMED', status_message: null } },
      { type: 'state', data: { from: 'CLAIMED', to: 'INPROGRESS', status_message: expect.anything() } },
      { type: 'status', data: { message: 'halfway', session_id: 'sess-1' } },
      // An output line is cut at 16,384 characters.
      { type: 'output', data: { text: 'x'.repeat(16_384) } },
      { type: 'artifact', data: { type: 'PULL_REQUEST', url: 'https://example.com/pr/1' } },
      { type: 'tool_call', data: { call_id: 'c1', name: 'Bash', input: { command: 'ls' } } },
      // A tool's output is cut at 16,384 characters, and says so.
      { type: 'tool_result', data: { call_id: 'c1', name: 'Bash', output: 'y'.repeat(16_384), truncated: true, is_error: true } },
      // An input longer than that as JSON is kept as that much of its JSON text.
      {
        type: 'tool_call',
        data: { call_id: 'c2', name: 'Write', input: `{"content":"${'z'.repeat(16_384 - 12)}`, input_truncated: true },
      },
      { type: 'followup', data: { followup_id: expect.any(String), message: 'also the docs', creator_uid: principal.uid } },
      { type: 'state', data: { from: 'INPROGRESS', to: 'SUCCEEDED', status_message: 'done' } },
      { type: 'state', data: { from: 'SUCCEEDED', to: 'QUEUED', status_message: null } },
      { type: 'followup', data: { followup_id: expect.any(String), message: 'one more thing', creator_uid: principal.uid } },
    ]);
  });

  it('keeps the order the executor wrote in, awaited or not; a status given with record sets status_message with no event of its own', async () => {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({ store });
    let ctx: ExecutionContext | undefined;
    const executor: Executor = {
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          ctx = context;
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        }),
    };
    const runId = (await handler.service.create(principal, { prompt: 'do it' })).body.run_id;
    worker = handler.app.worker({ executor, pollIntervalMs: 20 });
    worker.start();
    await until(async () => (await handler.service.get(principal, runId)).state === 'INPROGRESS', 'INPROGRESS');
    const context = ctx as ExecutionContext;
    // None awaited: a report costs a read and a conditional write before its append, a record
    // only its append; still, each lands after the one called before it.
    const writes = [
      context.report({ message: 'first' }),
      context.record?.([{ type: 'output', data: { text: 'one' } }]),
      context.report({ message: 'second', session_id: 'sess-2' }),
      context.record?.(
        [
          { type: 'output', data: { text: 'two' } },
          { type: 'status', data: { message: 'third' } },
          { type: 'output', data: { text: 'three' } },
        ],
        { status: { message: 'three' } },
      ),
    ];
    await Promise.all(writes);
    const events = await store.runEvents.list(runId, { limit: 100 });
    expect(events.slice(2).map((e) => [e.id, e.type, e.data])).toEqual([
      [3, 'status', { message: 'first' }],
      [4, 'output', { text: 'one' }],
      [5, 'status', { message: 'second', session_id: 'sess-2' }],
      [6, 'output', { text: 'two' }],
      [7, 'status', { message: 'third' }],
      [8, 'output', { text: 'three' }],
    ]);
    // The last line is the run's status, without a status event that repeats it.
    expect(await handler.service.get(principal, runId)).toMatchObject({ status_message: { message: 'three' }, session_id: 'sess-2' });
  });

  it('an execution that was aborted records nothing more', async () => {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({ store });
    let ctx: ExecutionContext | undefined;
    const executor: Executor = {
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          ctx = context;
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        }),
    };
    const runId = (await handler.service.create(principal, { prompt: 'do it' })).body.run_id;
    worker = handler.app.worker({ executor, pollIntervalMs: 20 });
    worker.start();
    await until(() => ctx !== undefined, 'the execution');
    await ctx?.record?.([{ type: 'output', data: { text: 'before' } }]);
    await handler.service.cancel(principal, runId);
    await until(() => ctx?.signal.aborted === true, 'the abort');
    await ctx?.record?.([{ type: 'output', data: { text: 'after' } }]);
    const events = await store.runEvents.list(runId, { limit: 100 });
    expect(events.filter((e) => e.type === 'output').map((e) => e.data)).toEqual([{ text: 'before' }]);
    expect(events.at(-1)?.data).toMatchObject({ to: 'CANCELLED' });
  });

  it('a cancel of a queued run is one state event; a refused change appends nothing', async () => {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({ store });
    const runId = (await handler.service.create(principal, { prompt: 'do it' })).body.run_id;
    await handler.service.cancel(principal, runId);
    await expect(handler.service.cancel(principal, runId)).rejects.toThrow();
    await expect(handler.service.followup(principal, runId, { message: 'too late' })).rejects.toThrow();
    const events = await store.runEvents.list(runId, { limit: 100 });
    expect(events.map((e) => [e.type, (e.data as { to?: string }).to])).toEqual([['state', 'CANCELLED']]);
  });
});
