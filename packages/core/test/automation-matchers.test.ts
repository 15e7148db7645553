import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import type { AutomationRecord } from '@agentrun/core/store';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileFilter } from '../src/filter/index.js';
import { createAutomationMatcher as createMatcher } from '../src/ingress/automation-matchers.js';

// Count compilations, to see what the matcher reuses; the real compiler still does the work.
const compiled = vi.fn(compileFilter);
const createAutomationMatcher = () => createMatcher(compiled);

const AT = '2026-01-01T00:00:00.000Z';
const trigger = (webhookIds: string[], payload?: Record<string, unknown>): AutomationRecord['triggers'][number] => ({
  provider: 'webhook',
  event: 'received',
  filter: { webhook_ids: webhookIds, ...(payload !== undefined ? { payload } : {}) },
});
const automation = (id: string, triggers: AutomationRecord['triggers']): AutomationRecord => ({
  id,
  teamUid: 'team-1',
  factoryUid: 'factory-1',
  name: 'Triage',
  prompt: 'Triage it.',
  enabled: true,
  config: null,
  triggers,
  // The same instant for every version: the matcher must not take it for a version.
  createdAt: AT,
  updatedAt: AT,
});

describe('createAutomationMatcher', () => {
  afterEach(() => {
    compiled.mockClear();
  });

  // wh-any: every delivery; wh-filtered: only opened pull requests into main.
  const record = () =>
    automation('auto-1', [
      trigger(['wh-any']),
      trigger(['wh-filtered'], { action: ['opened'], pull_request: { base: { ref: ['main'] } } }),
    ]);

  it('matches deliveries to its webhooks whose payload passes that trigger, and nothing else', () => {
    const wants = createAutomationMatcher();
    const a = record();
    const opened = { action: 'opened', pull_request: { base: { ref: 'main' } } };
    expect(wants(a, 'wh-any', { action: 'closed' })).toBe(true);
    expect(wants(a, 'wh-any', 'not even an object')).toBe(true);
    expect(wants(a, 'wh-filtered', opened)).toBe(true);
    expect(wants(a, 'wh-filtered', { ...opened, action: 'closed' })).toBe(false);
    expect(wants(a, 'wh-filtered', { action: 'opened', pull_request: { base: { ref: 'dev' } } })).toBe(false);
    expect(wants(a, 'wh-filtered', { action: 'opened' })).toBe(false);
    expect(wants(a, 'wh-other', opened)).toBe(false);
    // One filter, compiled once for all of the above.
    expect(compiled).toHaveBeenCalledTimes(1);
  });

  it('keeps working, without recompiling, for a record whose triggers are an equal new array', () => {
    const wants = createAutomationMatcher();
    expect(wants(record(), 'wh-filtered', { action: 'opened', pull_request: { base: { ref: 'main' } } })).toBe(true);
    // A store reading fresh rows hands out a new but equal array each time (here also with keys reordered).
    const fresh = structuredClone(record());
    fresh.triggers[1] = trigger(['wh-filtered'], { pull_request: { base: { ref: ['main'] } }, action: ['opened'] });
    expect(fresh.triggers).not.toBe(record().triggers);
    expect(wants(fresh, 'wh-filtered', { action: 'opened', pull_request: { base: { ref: 'main' } } })).toBe(true);
    expect(wants(fresh, 'wh-filtered', { action: 'closed', pull_request: { base: { ref: 'main' } } })).toBe(false);
    expect(wants(fresh, 'wh-any', {})).toBe(true);
    expect(compiled).toHaveBeenCalledTimes(1);
  });

  it('recompiles a record with the same id and updatedAt but other triggers', () => {
    const wants = createAutomationMatcher();
    const before = automation('auto-1', [trigger(['wh-1'], { action: ['opened'] })]);
    const patched = automation('auto-1', [trigger(['wh-1'], { action: ['closed'] })]);
    const moved = automation('auto-1', [trigger(['wh-2'], { action: ['closed'] })]);
    expect(wants(before, 'wh-1', { action: 'opened' })).toBe(true);
    expect(wants(patched, 'wh-1', { action: 'opened' })).toBe(false);
    expect(wants(patched, 'wh-1', { action: 'closed' })).toBe(true);
    // The selected webhooks count as much as the filter.
    expect(wants(moved, 'wh-1', { action: 'closed' })).toBe(false);
    expect(wants(moved, 'wh-2', { action: 'closed' })).toBe(true);
    // And back again: the first version's array is not mistaken for the cached one.
    expect(wants(before, 'wh-1', { action: 'opened' })).toBe(true);
    expect(wants(before, 'wh-1', { action: 'closed' })).toBe(false);
    expect(compiled).toHaveBeenCalledTimes(4);
  });

  it('keeps automations apart by id', () => {
    const wants = createAutomationMatcher();
    const opened = automation('auto-1', [trigger(['wh-1'], { action: ['opened'] })]);
    const closed = automation('auto-2', [trigger(['wh-1'], { action: ['closed'] })]);
    for (let i = 0; i < 3; i++) {
      expect(wants(opened, 'wh-1', { action: 'opened' })).toBe(true);
      expect(wants(closed, 'wh-1', { action: 'opened' })).toBe(false);
      expect(wants(closed, 'wh-1', { action: 'closed' })).toBe(true);
      expect(wants(opened, 'wh-1', { action: 'closed' })).toBe(false);
    }
    expect(compiled).toHaveBeenCalledTimes(2);
  });
});

describe('the ingress after an automation changes at the same instant', () => {
  const ORIGIN = 'http://agentrun.test';
  const FIXED_MS = Date.UTC(2026, 0, 1);

  it('applies the patched filter to the next delivery', async () => {
    const store = createMemoryStore();
    const errors: unknown[] = [];
    const handler = createAgentRunHandler({
      store,
      // Frozen time: the created and the patched automation share one updatedAt.
      clock: { now: () => FIXED_MS },
      secretKey: Buffer.alloc(32, 3).toString('base64'),
      onError: (error) => errors.push(error),
    });
    const principal = testPrincipal();
    const key = await createApiKey(store.apiKeys, principal);
    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await handler(
        new Request(`${ORIGIN}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return (await res.json()) as T;
    };

    const factory = (await api<{ uid: string }>('POST', '/factories', { name: 'Acme' })).uid;
    const { webhook, secret } = await api<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, {
      name: 'CI',
    });
    const triggers = (action: string) => [
      { provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid], payload: { action: [action] } } },
    ];
    const created = await api<{ id: string; updated_at: string }>('POST', `/factories/${factory}/automations`, {
      name: 'Triage',
      prompt: 'Triage the event.',
      triggers: triggers('opened'),
    });
    const deliver = async (body: string) => {
      const res = await handler(
        new Request(`${ORIGIN}/webhooks/w/${webhook.uid}`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body }),
      );
      expect(res.status).toBe(202);
      await handler.app.evaluator.drain(); // its runs are made after the 202
      return ((await res.json()) as { delivery_id: string }).delivery_id;
    };
    const runs = async () =>
      (await api<{ runs: { trigger: { automation_id: string; delivery_id: string } }[] }>('GET', '/agent/runs?source=WEBHOOK')).runs;

    const first = await deliver('{"action":"opened"}');
    expect((await runs()).map((r) => r.trigger)).toMatchObject([{ automation_id: created.id, delivery_id: first }]);

    const patched = await api<{ updated_at: string }>('PATCH', `/factories/${factory}/automations/${created.id}`, {
      triggers: triggers('closed'),
    });
    expect(created.updated_at).toBe(new Date(FIXED_MS).toISOString());
    expect(patched.updated_at).toBe(created.updated_at);

    await deliver('{"action":"opened","n":2}');
    expect(await runs()).toHaveLength(1);
    const closed = await deliver('{"action":"closed"}');
    const after = await runs();
    expect(after).toHaveLength(2);
    expect(after.map((r) => r.trigger.delivery_id).sort()).toEqual([first, closed].sort());
    expect(errors).toEqual([]);
  });
});
