import { makeRun, testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { isAgentRunError } from '../src/errors.js';
import { createEvents } from '../src/events.js';
import type { ListRunsResponse, RunItem } from '../src/models/run.js';
import { RUN_STATES, type RunState } from '../src/models/run-state.js';
import { encodeCursor } from '../src/run/cursor.js';
import type { RunRecord } from '../src/run/record.js';
import { RunService } from '../src/run/run-service.js';
import type { RunEventType } from '../src/run/state-machine.js';
import { isoTime } from '../src/util/clock.js';
import { base64UrlEncode } from '../src/util/ids.js';
import { expectProblem, type Harness, manualClock, setup, T0 } from './helpers.js';

const HOUR = 3_600_000;
const at = (ms: number) => isoTime(T0 + ms);

let h: Harness;
beforeEach(async () => {
  // `updated_at` lists are fixed at the instant of their first page: keep the clock after every seeded run.
  h = await setup({ clock: manualClock(T0 + 24 * HOUR) });
});

const seed = async (overrides: Partial<RunRecord>): Promise<RunRecord> => {
  const run = makeRun(overrides);
  await h.store.runs.create({ run, attachments: [] });
  return run;
};

const list = async (query: string, key?: string) => {
  const r = await h.json<ListRunsResponse>('GET', `/agent/runs${query ? `?${query}` : ''}`, key === undefined ? {} : { key });
  if (r.status !== 200) throw new Error(`list ${query} failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
const ids = (runs: RunItem[]) => runs.map((r) => r.run_id);

describe('filters', () => {
  let r1: RunRecord;
  let r2: RunRecord;
  let r3: RunRecord;
  let r4: RunRecord;
  let name: Record<string, string>;

  beforeEach(async () => {
    r1 = await seed({
      state: 'QUEUED',
      title: 'Fix the login bug',
      prompt: 'Login fails on Safari',
      config: { name: 'nightly', model_id: 'model-a', environment_id: 'env-1' },
      creator: { type: 'user', uid: 'user-1' },
      source: 'API',
      createdAt: at(1 * HOUR),
      updatedAt: at(5 * HOUR),
    });
    r2 = await seed({
      state: 'FAILED',
      title: 'Deploy',
      prompt: 'Ship it',
      config: { name: 'weekly', model_id: 'model-b', environment_id: 'env-2', skill_spec: 'acme/tools:deploy' },
      creator: { type: 'service_account', uid: 'bot-2' },
      source: 'WEBHOOK',
      factoryUid: 'f-1',
      trigger: { factory_uid: 'f-1', automation_id: 'auto-1', webhook_uid: 'w-1', delivery_id: 'd-1' },
      createdAt: at(2 * HOUR),
      updatedAt: at(3 * HOUR),
    });
    r3 = await seed({
      state: 'SUCCEEDED',
      title: 'Refactor',
      prompt: 'Clean up the LOGIN handler',
      config: { name: 'nightly', model_id: 'model-b' },
      creator: { type: 'user', uid: 'user-1' },
      source: 'CLI',
      factoryUid: 'f-2',
      createdAt: at(3 * HOUR),
      updatedAt: at(4 * HOUR),
    });
    r4 = await seed({
      state: 'INPROGRESS',
      title: 'Other',
      prompt: 'nothing to see',
      config: { skill_spec: 'acme/tools:lint' },
      creator: { type: 'user', uid: 'user-3' },
      source: 'API',
      createdAt: at(4 * HOUR),
      updatedAt: at(4 * HOUR + 1),
    });
    // Another team's run that matches every filter below: it must never show up.
    await seed({
      teamUid: 'team-2',
      state: 'FAILED',
      title: 'login nightly',
      prompt: 'login',
      config: { name: 'nightly', model_id: 'model-b', environment_id: 'env-2', skill_spec: 'acme/tools:deploy' },
      creator: { type: 'user', uid: 'user-1' },
      source: 'WEBHOOK',
      factoryUid: 'f-1',
      trigger: { factory_uid: 'f-1', automation_id: 'auto-1', webhook_uid: 'w-1', delivery_id: 'd-2' },
      createdAt: at(2 * HOUR + 1),
      updatedAt: at(4 * HOUR + 2),
    });
    name = { [r1.id]: 'r1', [r2.id]: 'r2', [r3.id]: 'r3', [r4.id]: 'r4' };
  });

  const names = (runs: RunItem[]) => runs.map((r) => name[r.run_id] ?? `unexpected ${r.run_id} (${r.title})`);
  const e = encodeURIComponent;

  it.each([
    ['', ['r1', 'r4', 'r3', 'r2']],
    ['state=QUEUED&state=FAILED', ['r1', 'r2']],
    ['state=FAILED&state=QUEUED', ['r1', 'r2']],
    ['state=SUCCEEDED', ['r3']],
    ['state=CANCELLED', []],
    ['name=nightly', ['r1', 'r3']],
    ['name=Nightly', []],
    ['model_id=model-b', ['r3', 'r2']],
    ['creator=user-1', ['r1', 'r3']],
    ['creator=bot-2', ['r2']],
    ['source=WEBHOOK', ['r2']],
    ['source=CLI', ['r3']],
    ['source=API', ['r1', 'r4']],
    [`created_after=${e(at(2 * HOUR))}`, ['r4', 'r3']],
    [`created_before=${e(at(2 * HOUR))}`, ['r1']],
    [`created_after=${e(at(1 * HOUR))}&created_before=${e(at(4 * HOUR))}`, ['r3', 'r2']],
    [`created_after=${e('2026-01-01T03:00:00+01:00')}`, ['r4', 'r3']],
    [`created_after=${e('2026-01-01T02:00:00.000z')}`, ['r4', 'r3']],
    [`updated_after=${e(at(4 * HOUR))}`, ['r1', 'r4']],
    [`updated_after=${e(at(3 * HOUR))}`, ['r1', 'r4', 'r3']],
    ['environment_id=env-2', ['r2']],
    [`skill_spec=${e('acme/tools:deploy')}`, ['r2']],
    [`skill=${e('acme/tools:lint')}`, ['r4']],
    [`skill=${e('acme/tools:deploy')}&skill_spec=${e('acme/tools:deploy')}`, ['r2']],
    ['q=login', ['r1', 'r3']],
    ['q=LOGIN', ['r1', 'r3']],
    ['q=sAfArI', ['r1']],
    ['q=refactor', ['r3']],
    [`q=${e('the login')}`, ['r1', 'r3']],
    ['q=zzz', []],
    ['factory_uid=f-1', ['r2']],
    ['factory_uid=f-2', ['r3']],
    ['automation_id=auto-1', ['r2']],
    ['automation_id=auto-2', []],
    ['name=nightly&state=SUCCEEDED', ['r3']],
    ['name=nightly&model_id=model-a&creator=user-1&source=API&environment_id=env-1', ['r1']],
    ['artifact_type=PLAN', []],
    ['schedule_id=s-1', []],
  ])('GET /agent/runs?%s', async (query, expected) => {
    const page = await list(query);
    expect(names(page.runs)).toEqual(expected);
    expect(page.page_info).toEqual({ has_next_page: false });
  });

  it('rejects skill and skill_spec that disagree', async () => {
    const p = await expectProblem(await h.call('GET', `/agent/runs?skill=a%2Fb%3Ac&skill_spec=a%2Fb%3Ad`), 400, 'invalid_request');
    expect(p.detail).toMatch(/skill/);
  });

  it.each([
    ['state=DONE', 'state'],
    ['state=queued', 'state'],
    ['source=EMAIL', 'source'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-01-01', 'created_before'],
    ['updated_after=2026-02-30T00%3A00%3A00Z', 'updated_after'],
    ['name=', 'name'],
    [`q=${'x'.repeat(257)}`, 'q'],
    ['sort_by=name', 'sort_by'],
    ['created_after=0000-01-01T00%3A00%3A00Z', 'created_after'],
    ['created_after=9999-12-31T23%3A59%3A59-23%3A59', 'created_after'],
    ['created_before=2026-01-01T24%3A00%3A00Z', 'created_before'],
    ['updated_after=2026-01-01T00%3A00%3A00%2B24%3A00', 'updated_after'],
    ['execution_location=MOON', 'execution_location'],
    ['sort_order=up', 'sort_order'],
    ['artifact_type=IMAGE', 'artifact_type'],
  ])('rejects %s with a 400 naming %s', async (query, param) => {
    const p = await expectProblem(await h.call('GET', `/agent/runs?${query}`), 400, 'invalid_request');
    expect(p.detail).toContain(param);
  });

  it.each([
    ['updated_at', 'desc', ['r1', 'r4', 'r3', 'r2']],
    ['updated_at', 'asc', ['r2', 'r3', 'r4', 'r1']],
    ['created_at', 'desc', ['r4', 'r3', 'r2', 'r1']],
    ['created_at', 'asc', ['r1', 'r2', 'r3', 'r4']],
  ])('sorts by %s %s', async (sortBy, order, expected) => {
    expect(names((await list(`sort_by=${sortBy}&sort_order=${order}`)).runs)).toEqual(expected);
    // defaults: sort_order=desc, sort_by=updated_at
    if (order === 'desc') expect(names((await list(`sort_by=${sortBy}`)).runs)).toEqual(expected);
    if (sortBy === 'updated_at') expect(names((await list(`sort_order=${order}`)).runs)).toEqual(expected);
  });
});

describe('ties', () => {
  it('breaks ties on the sort key by run id, in the same direction', async () => {
    const same = at(HOUR);
    const runs = await Promise.all(['b', 'a', 'c', 'e', 'd'].map((id) => seed({ id, createdAt: same, updatedAt: same })));
    const sorted = runs.map((r) => r.id).sort();
    for (const sortBy of ['updated_at', 'created_at']) {
      expect(ids((await list(`sort_by=${sortBy}&sort_order=asc`)).runs)).toEqual(sorted);
      expect(ids((await list(`sort_by=${sortBy}&sort_order=desc`)).runs)).toEqual([...sorted].reverse());
      // and pages split ties without losing or repeating any
      const walked = await walk(`sort_by=${sortBy}&sort_order=asc&limit=2`);
      expect(walked).toEqual(sorted);
    }
  });
});

/** Every page of a query, following next_cursor; returns the run ids in order. */
async function walk(query: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const page = await list(cursor === undefined ? query : `${query}&cursor=${encodeURIComponent(cursor)}`);
    out.push(...ids(page.runs));
    if (!page.page_info.has_next_page) {
      expect(page.page_info.next_cursor).toBeUndefined();
      return out;
    }
    expect(page.runs.length).toBeGreaterThan(0);
    cursor = page.page_info.next_cursor;
    expect(typeof cursor).toBe('string');
  }
  throw new Error('walk did not end');
}

describe('limit', () => {
  beforeEach(async () => {
    for (let i = 0; i < 25; i++) await seed({ createdAt: at(i * 1000), updatedAt: at(i * 1000) });
  });

  it('defaults to 20', async () => {
    const page = await list('');
    expect(page.runs).toHaveLength(20);
    expect(page.page_info.has_next_page).toBe(true);
    expect(page.page_info.next_cursor).toEqual(expect.any(String));
  });

  it.each([1, 5, 24, 25, 26, 500])('returns at most limit=%i runs', async (limit) => {
    const page = await list(`limit=${limit}`);
    expect(page.runs).toHaveLength(Math.min(limit, 25));
    expect(page.page_info.has_next_page).toBe(limit < 25);
  });

  it.each(['0', '501', 'abc', '-1', '1.5', '', '1e2', '0x10', '99999', ' 5'])('rejects limit=%j with a 400 naming limit', async (limit) => {
    const p = await expectProblem(await h.call('GET', `/agent/runs?limit=${encodeURIComponent(limit)}`), 400, 'invalid_request');
    expect(p.detail).toContain('limit');
  });

  it('accepts leading zeros', async () => {
    expect((await list('limit=007')).runs).toHaveLength(7);
  });
});

describe('cursor paging', () => {
  let all: RunRecord[];
  beforeEach(async () => {
    all = [];
    // created and updated in different orders, so the two sort keys give different walks
    for (let i = 0; i < 11; i++) all.push(await seed({ createdAt: at(i * 1000), updatedAt: at(((i * 7) % 11) * 1000 + 1) }));
  });

  it.each([
    ['updated_at', 'desc'],
    ['updated_at', 'asc'],
    ['created_at', 'desc'],
    ['created_at', 'asc'],
  ] as const)('walks every run once in %s %s order', async (sortBy, order) => {
    const key = (r: RunRecord) => (sortBy === 'updated_at' ? r.updatedAt : r.createdAt);
    const expected = [...all].sort((a, b) => (key(a) < key(b) ? -1 : 1)).map((r) => r.id);
    if (order === 'desc') expected.reverse();
    for (const limit of [1, 3, 4, 10, 11, 12]) {
      expect(await walk(`sort_by=${sortBy}&sort_order=${order}&limit=${limit}`)).toEqual(expected);
    }
  });

  it('pages through a filtered list', async () => {
    for (const r of all.slice(0, 6)) await h.handler.service.cancel(h.principal, r.id);
    const walked = await walk('state=CANCELLED&limit=4');
    expect(walked.sort()).toEqual(
      all
        .slice(0, 6)
        .map((r) => r.id)
        .sort(),
    );
  });

  it('does not let a cursor cross teams', async () => {
    const otherKey = await h.keyFor(testPrincipal({ uid: 'x', team_uid: 'team-x' }));
    const page = await list('limit=3');
    const cursor = encodeURIComponent(page.page_info.next_cursor as string);
    const theirs = await list(`limit=3&cursor=${cursor}`, otherKey);
    expect(theirs.runs).toEqual([]);
  });

  describe('bad cursors', () => {
    const wire = (o: unknown) => base64UrlEncode(new TextEncoder().encode(JSON.stringify(o)));
    const good = { v: 1, s: 'updated_at', o: 'desc', k: '2026-01-01T00:00:00.000Z', i: 'run-1' };
    it.each([
      ['garbage', 'not a cursor!'],
      ['a single character', 'x'],
      ['base64 of text', base64UrlEncode(new TextEncoder().encode('hello world'))],
      ['base64 of invalid UTF-8', base64UrlEncode(new Uint8Array([0xff, 0xfe, 0xfd]))],
      ['base64 of JSON null', wire(null)],
      ['base64 of a JSON array', wire([1, 2])],
      ['base64 of a JSON string', wire('cursor')],
      ['base64 of an unrelated object', wire({ page: 2 })],
      ['a wrong version', wire({ ...good, v: 2 })],
      ['a bad timestamp', wire({ ...good, k: 'yesterday' })],
      ['a numeric id', wire({ ...good, i: 5 })],
      ['an overlong id', wire({ ...good, i: 'x'.repeat(300) })],
      ['a bad asOf', wire({ ...good, a: 'later' })],
      ['an unknown sort', wire({ ...good, s: 'title' })],
      ['standard base64 with padding', `${Buffer.from(JSON.stringify(good)).toString('base64')}==`],
      ['an overlong cursor', 'A'.repeat(2000)],
    ])('rejects %s with a 400 naming the cursor', async (_, cursor) => {
      const p = await expectProblem(await h.call('GET', `/agent/runs?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request');
      expect(p.detail).toContain('cursor');
    });

    it('accepts a well-formed cursor (control for the cases above)', async () => {
      const page = await list(`cursor=${wire(good)}`);
      expect(page.runs).toEqual([]);
    });

    it.each([
      ['sort_by=created_at', ''],
      ['', 'sort_by=created_at'],
      ['sort_order=asc', ''],
      ['', 'sort_order=asc'],
      ['sort_by=created_at&sort_order=asc', 'sort_by=created_at&sort_order=desc'],
    ])('rejects a cursor of "%s" used with "%s"', async (from, to) => {
      const page = await list(`limit=2${from ? `&${from}` : ''}`);
      const cursor = encodeURIComponent(page.page_info.next_cursor as string);
      const p = await expectProblem(await h.call('GET', `/agent/runs?limit=2&cursor=${cursor}${to ? `&${to}` : ''}`), 400);
      expect(p.detail).toContain('cursor');
      expect(p.detail).toMatch(/sort_by=\w+&sort_order=\w+/);
    });

    it('rejects a cursor for the other sort key forged by hand', async () => {
      const cursor = encodeCursor({ sortBy: 'created_at', order: 'desc', value: at(0), id: 'x' });
      const p = await expectProblem(await h.call('GET', `/agent/runs?cursor=${cursor}`), 400);
      expect(p.detail).toContain('cursor');
    });
  });
});

// ─────────────────────────────────────────────── the walk property

type Action =
  | { kind: 'insert' }
  | { kind: 'cancel'; pick: number }
  | { kind: 'followup'; pick: number }
  | { kind: 'event'; pick: number; type: RunEventType };

const EVENT_TYPES: readonly RunEventType[] = ['claim', 'prepare', 'start', 'block', 'resume', 'succeed', 'fail', 'error', 'lease_expired'];
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.constant({ kind: 'insert' as const }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('followup' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('event' as const), pick: fc.nat(), type: fc.constantFrom(...EVENT_TYPES) }),
);

describe('walk property', () => {
  it('never returns a run twice, and returns every run that existed before the walk and was not updated during it exactly once', async () => {
    const principal = testPrincipal();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          initial: fc.integer({ min: 0, max: 30 }),
          before: fc.array(actionArb, { maxLength: 30 }),
          sortBy: fc.constantFrom('updated_at' as const, 'created_at' as const),
          order: fc.constantFrom('asc' as const, 'desc' as const),
          states: fc.option(fc.subarray([...RUN_STATES], { minLength: 1 }), { nil: undefined }),
          limits: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
          during: fc.array(fc.array(actionArb, { maxLength: 4 }), { maxLength: 30 }),
        }),
        async ({ initial, before, sortBy, order, states, limits, during }) => {
          const store = createMemoryStore();
          // Every reading of the clock is a new millisecond: the clock only moves forward.
          const service = new RunService({ store, events: createEvents(), clock: manualClock(T0, 1) });
          const known: string[] = [];
          const perform = async (action: Action) => {
            const target = known.length === 0 ? undefined : known[('pick' in action ? action.pick : 0) % known.length];
            try {
              if (action.kind === 'insert') known.push((await service.create(principal, { prompt: `run ${known.length}` })).body.run_id);
              else if (target === undefined) return;
              else if (action.kind === 'cancel') await service.cancel(principal, target);
              else if (action.kind === 'followup') await service.followup(principal, target, { message: 'more' });
              else await service.applyEvent(target, { type: action.type }, { teamUid: principal.team_uid });
            } catch (error) {
              if (!isAgentRunError(error)) throw error;
            }
          };
          for (let i = 0; i < initial; i++) await perform({ kind: 'insert' });
          for (const action of before) await perform(action);

          const snapshot = new Map<string, RunRecord>();
          for (const id of known) snapshot.set(id, (await store.runs.get(id)) as RunRecord);

          const seen: RunItem[] = [];
          let cursor: string | undefined;
          for (let page = 0; ; page++) {
            expect(page).toBeLessThan(500);
            const query: Record<string, string | string[]> = {
              limit: String(limits[page % limits.length]),
              sort_by: sortBy,
              sort_order: order,
            };
            if (states) query.state = states;
            if (cursor !== undefined) query.cursor = cursor;
            const result = await service.list(principal, query);
            expect(result.runs.length).toBeLessThanOrEqual(Number(query.limit));
            seen.push(...result.runs);
            if (!result.page_info.has_next_page) break;
            cursor = result.page_info.next_cursor;
            for (const action of during[page] ?? []) await perform(action);
          }

          // No run twice.
          const seenIds = seen.map((r) => r.run_id);
          expect(new Set(seenIds).size).toBe(seenIds.length);
          // The walk is in the requested order.
          const keyOf = (r: RunItem) => `${sortBy === 'updated_at' ? r.updated_at : r.created_at} ${r.run_id}`;
          for (let i = 1; i < seen.length; i++) {
            const [a, b] = [keyOf(seen[i - 1] as RunItem), keyOf(seen[i] as RunItem)];
            expect(order === 'asc' ? a < b : a > b).toBe(true);
          }
          // Every run that existed before, was not updated during the walk and matches: exactly once.
          const count = new Map<string, number>();
          for (const id of seenIds) count.set(id, (count.get(id) ?? 0) + 1);
          for (const [id, was] of snapshot) {
            const now = (await store.runs.get(id)) as RunRecord;
            const untouched = now.updatedAt === was.updatedAt;
            const matches = states === undefined || states.includes(was.state as RunState);
            if (untouched && matches) expect(count.get(id)).toBe(1);
            // Sorted by created_at, a run keeps its place when updated: it is still seen once if it matches throughout.
            if (sortBy === 'created_at' && states === undefined) expect(count.get(id)).toBe(1);
          }
          // Only runs of the walk's query come back.
          for (const r of seen) if (states) expect(states).toContain(r.state);
        },
      ),
      { numRuns: 120 },
    );
  });
});
