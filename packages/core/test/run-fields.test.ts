import { makeRun, testPrincipal } from '@agentrun/core/testing';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionOutcome, Executor } from '../src/index.js';
import { type RunItem, RunItemSchema } from '../src/models/run.js';
import { MAX_ANCESTORS } from '../src/run/record.js';
import { driveTo, expectProblem, type Harness, setup, T0 } from './helpers.js';

// The RunItem fields and calls the published clients read (docs/run-api.md): started_at, source as the
// client declares it, parent_run_id and the list's ancestor_run_id, execution_location, the
// session redirect, and request_usage as the executor reports it. Stores: memory here; the store
// conformance suite runs the filter on both (packages/core/src/testing/runs-conformance.ts).

let h: Harness;
beforeEach(async () => {
  h = await setup();
});

const createId = async (body: Record<string, unknown>, key?: string) => {
  const r = await h.json<{ run_id: string }>('POST', '/agent/run', { body, ...(key !== undefined ? { key } : {}) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.run_id;
};
const getRun = async (id: string) => {
  const r = await h.json<RunItem>('GET', `/agent/runs/${id}`);
  expect(r.status).toBe(200);
  return v.parse(RunItemSchema, r.body);
};
const listIds = async (query: string) => {
  const r = await h.json<{ runs: RunItem[] }>('GET', `/agent/runs?limit=500&sort_by=created_at&sort_order=asc&${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.runs.map((run) => run.run_id);
};

describe('started_at', () => {
  it('is null until the run first goes INPROGRESS, then that instant, kept through a block and a resume', async () => {
    const id = await createId({ prompt: 'p' });
    expect((await getRun(id)).started_at).toBeNull();
    await driveTo(h.handler.service, id, 'CLAIMED');
    expect((await getRun(id)).started_at).toBeNull();
    h.clock.set(T0 + 7000);
    await h.handler.service.applyEvent(id, { type: 'start' });
    expect((await getRun(id)).started_at).toBe(new Date(T0 + 7000).toISOString());
    h.clock.set(T0 + 9000);
    await h.handler.service.applyEvent(id, { type: 'block' });
    await h.handler.service.applyEvent(id, { type: 'resume' });
    const run = await getRun(id);
    expect(run.started_at).toBe(new Date(T0 + 7000).toISOString());
    expect(run.updated_at).toBe(new Date(T0 + 9000).toISOString());
  });
});

describe('source', () => {
  it('is API unless the client declares CLI; no client may declare another', async () => {
    const api = await createId({ prompt: 'p' });
    const cli = await createId({ prompt: 'p', source: 'CLI' });
    expect((await getRun(api)).source).toBe('API');
    expect((await getRun(cli)).source).toBe('CLI');
    for (const source of ['WEBHOOK', 'SCHEDULED_AGENT', 'cli', 7]) {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', source } }), 400, 'invalid_request');
      expect(p.detail).toContain('source');
    }
    expect(await listIds('source=CLI')).toEqual([cli]);
  });
});

describe('execution_location', () => {
  it('is REMOTE on every run, which the list filter agrees with', async () => {
    const id = await createId({ prompt: 'p' });
    expect((await getRun(id)).execution_location).toBe('REMOTE');
    expect(await listIds('execution_location=REMOTE')).toEqual([id]);
    expect(await listIds('execution_location=LOCAL')).toEqual([]);
  });
});

describe('parent_run_id and ancestor_run_id', () => {
  it('lists the runs a run started, and theirs, by ancestor_run_id', async () => {
    const root = await createId({ prompt: 'root' });
    const child = await createId({ prompt: 'child', parent_run_id: root });
    const grandchild = await createId({ prompt: 'grandchild', parent_run_id: child });
    const sibling = await createId({ prompt: 'sibling', parent_run_id: root });
    await createId({ prompt: 'unrelated' });
    expect((await getRun(grandchild)).parent_run_id).toBe(child);
    // The conversation is the parent's unless one is named.
    expect((await getRun(grandchild)).conversation_id).toBe((await getRun(root)).conversation_id);
    // One instant (the test's clock): the order is by run ID.
    expect(await listIds(`ancestor_run_id=${root}`)).toEqual([child, grandchild, sibling].sort());
    expect(await listIds(`ancestor_run_id=${child}`)).toEqual([grandchild]);
    expect(await listIds(`ancestor_run_id=${grandchild}`)).toEqual([]);
    expect(await listIds(`ancestor_run_id=${root}&state=CANCELLED`)).toEqual([]);
  });

  it("refuses a parent or an ancestor of another team's, or none", async () => {
    const otherKey = await h.keyFor(testPrincipal({ uid: 'u-2', team_uid: 'team-2' }));
    const theirs = await createId({ prompt: 'theirs' }, otherKey);
    for (const parent of [theirs, 'no-such-run']) {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', parent_run_id: parent } }), 400);
      expect(p.detail).toContain('parent_run_id');
      const q = await expectProblem(await h.call('GET', `/agent/runs?ancestor_run_id=${parent}`), 400);
      expect(q.detail).toContain('ancestor_run_id');
    }
  });

  it(`keeps at most ${MAX_ANCESTORS} ancestors: a run under a parent that has as many is a 400`, async () => {
    const ancestors = Array.from({ length: MAX_ANCESTORS }, (_, i) => `a-${i}`);
    const deep = makeRun({ teamUid: h.principal.team_uid, ancestorRunIds: ancestors, parentRunId: ancestors[0] as string });
    await h.store.runs.create({ run: deep, attachments: [] });
    const p = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', parent_run_id: deep.id } }), 400);
    expect(p.detail).toContain(`${MAX_ANCESTORS} ancestors`);
    const shallower = makeRun({ teamUid: h.principal.team_uid, ancestorRunIds: ancestors.slice(1) });
    await h.store.runs.create({ run: shallower, attachments: [] });
    const id = await createId({ prompt: 'p', parent_run_id: shallower.id });
    expect((await h.store.runs.get(id))?.ancestorRunIds).toEqual([shallower.id, ...ancestors.slice(1)]);
  });
});

describe('GET /agent/sessions/{sessionUuid}/redirect', () => {
  it("answers {} while the session's run is active, its conversation once it ended, 404 for an unknown or another team's session", async () => {
    const team = h.principal.team_uid;
    const running = makeRun({ teamUid: team, sessionId: 'sess-1', state: 'INPROGRESS', conversationId: 'conv-1' });
    await h.store.runs.create({ run: running, attachments: [] });
    expect(await h.json('GET', '/agent/sessions/sess-1/redirect')).toMatchObject({ status: 200, body: {} });
    await h.handler.service.applyEvent(running.id, { type: 'succeed' });
    expect((await h.json('GET', '/agent/sessions/sess-1/redirect')).body).toEqual({ conversation_id: 'conv-1' });

    await h.store.runs.create({ run: makeRun({ teamUid: 'team-2', sessionId: 'sess-2', state: 'SUCCEEDED' }), attachments: [] });
    for (const session of ['sess-2', 'nope'])
      await expectProblem(await h.call('GET', `/agent/sessions/${session}/redirect`), 404, 'not_found');
  });

  it('follows the newest run of a session', async () => {
    const team = h.principal.team_uid;
    await h.store.runs.create({ run: makeRun({ teamUid: team, sessionId: 's', state: 'FAILED', conversationId: 'old' }), attachments: [] });
    const later = new Date(T0 + 60_000).toISOString();
    await h.store.runs.create({ run: makeRun({ teamUid: team, sessionId: 's', createdAt: later, updatedAt: later }), attachments: [] });
    expect((await h.json('GET', '/agent/sessions/s/redirect')).body).toEqual({});
  });
});

describe('request_usage, reported through the execution context', () => {
  it('is absent until reported; reports merge into the run, bounded, and land before the outcome', async () => {
    const reports: Record<string, unknown>[] = [
      { compute_cost: 1, inference_cost: 2 },
      { inference_cost: 5, platform_cost_usd: 0.25, tokens: 99, compute_cost: 'lots' },
      { compute_cost: 1e30, inference_cost: Number.NaN, platform_cost: -3 },
    ];
    const executor: Executor = {
      async execute(_input, ctx): Promise<ExecutionOutcome> {
        // Not awaited, as an agent's lines are not: the worker writes them in order, merged.
        for (const r of reports) void ctx.reportUsage?.(r);
        return { status: 'succeeded' };
      },
    };
    const id = await createId({ prompt: 'p' });
    expect((await getRun(id)).request_usage).toBeUndefined();
    const worker = h.handler.app.worker({ executor, pollIntervalMs: 10_000 });
    await worker.poll();
    await worker.idle();
    const run = await getRun(id);
    expect(run.state).toBe('SUCCEEDED');
    expect(run.request_usage).toEqual({ compute_cost: 1e12, inference_cost: 5, platform_cost: 0, platform_cost_usd: 0.25 });
    await worker.stop();
  });
});
