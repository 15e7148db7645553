import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { RunItem } from '../models/run.js';
import { comparePositions, RUN_SORT_KEYS, type RunPosition, type RunSortKey, type SortOrder } from '../run/list-query.js';
import { listRuns } from '../run/list-runs.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { makeRun } from './fixtures.js';
import type { StoreConformanceOptions } from './store-conformance.js';

/** What happens between two page fetches: a run created (titled and given a skill by `look`), or one updated, stamped `second`. */
type Change = { kind: 'create'; second: number; look: number } | { kind: 'update'; pick: number; second: number };

const T0 = Date.UTC(2026, 0, 1);
/** Stamps are whole seconds in a small range, so runs often share one and ties break on run ID. */
const at = (second: number) => isoTime(T0 + second * 1000);
/** The runs made before the walk are stamped up to here; the walk starts at this instant. */
const START = 6;
/** Few titles and skills (and runs without one), so the text orders have ties too. */
const TITLES = ['b', 'a', 'B'];
const SKILLS = ['s/x:1', 's/a:2', undefined];
const looks = (look: number) => {
  const skill = SKILLS[look % SKILLS.length];
  return { title: TITLES[look % TITLES.length] as string, config: skill === undefined ? {} : { skill_spec: skill } };
};

const arbChange: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), second: fc.integer({ min: 0, max: 12 }), look: fc.nat() }),
  fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), second: fc.integer({ min: 0, max: 12 }) }),
);

/**
 * Walking `GET /agent/runs` page by page (through core's `listRuns`, so with real cursors) while
 * runs are created and updated between the pages, checked against what docs/run-api.md
 * ("Walking every run") promises of each order:
 *
 * - `created_at`, either direction: every run that existed when the walk started is seen exactly
 *   once, whenever the changes are stamped (a clock behind or ahead included), because
 *   `created_at` never changes and the cursor is the strict tuple (created_at, run ID). The same
 *   holds for `title` and `agent`: no update changes a run's title or skill.
 * - `updated_at` descending: no run twice (a run only moves towards the front, behind the
 *   cursor), and every run that existed and was not updated during the walk exactly once.
 * - `updated_at` ascending: the same, for updates stamped after the walk's first page (the walk's
 *   bound leaves a run updated later out; one stamped at or before the bound could repeat).
 *
 * Stores have no delete, so "existed when the walk started" is every run made before it.
 */
export function describeListWalkConformance(current: () => Store, options: StoreConformanceOptions): void {
  it('a walk over pages while runs change: created_at (title, agent) sees every earlier run once; no order repeats a run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ created: fc.integer({ min: 0, max: START }), delta: fc.integer({ min: 0, max: START }), look: fc.nat() }), {
          maxLength: 16,
        }),
        fc.constantFrom<RunSortKey>(...RUN_SORT_KEYS),
        fc.constantFrom<SortOrder>('asc', 'desc'),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.array(arbChange, { maxLength: 3 }), { maxLength: 20 }),
        async (initial, sortBy, order, limits, between) => {
          const store = current();
          // A team of its own per case: the cases share the test's store.
          const teamUid = `walk-${newId()}`;
          const before = initial.map(({ created, delta, look }) =>
            makeRun({ teamUid, createdAt: at(created), updatedAt: at(Math.min(created + delta, START)), ...looks(look) }),
          );
          for (const run of before) await store.runs.create({ run, attachments: [] });
          const known = before.map((r) => r.id);
          const updated = new Set<string>();
          // Only an ascending updated_at walk needs its changes stamped after its start (see above).
          const stamp = (second: number) => (sortBy === 'updated_at' && order === 'asc' ? START + 1 + second : second);
          const change = async (c: Change, n: number) => {
            const when = at(stamp(c.second));
            if (c.kind === 'create') {
              const run = makeRun({ teamUid, createdAt: when, updatedAt: when, ...looks(c.look) });
              await store.runs.create({ run, attachments: [] });
              known.push(run.id);
              return;
            }
            const runId = known[c.pick % known.length];
            if (runId === undefined) return;
            const run = await store.runs.get(runId, teamUid);
            if (!run) throw new Error(`run ${runId} is gone`);
            const out = await store.runs.transition({
              runId,
              teamUid,
              expect: { state: run.state },
              patch: { sessionId: `session-${n}` },
              now: when,
            });
            expect(out.result?.applied).toBe(true);
            // A stamp at or before the run's updatedAt leaves it where it is (it never goes back).
            if (out.result?.run?.updatedAt !== run.updatedAt) updated.add(runId);
          };

          const clock = { now: () => T0 + START * 1000 };
          const seen: RunItem[] = [];
          let cursor: string | undefined;
          for (let page = 0; ; page++) {
            expect(page, 'the walk ends').toBeLessThan(200);
            const limit = limits[page % limits.length] as number;
            const input: Record<string, unknown> = { limit: String(limit), sort_by: sortBy, sort_order: order };
            if (cursor !== undefined) input.cursor = cursor;
            const result = await listRuns({ store, clock }, teamUid, input);
            expect(result.runs.length).toBeLessThanOrEqual(limit);
            seen.push(...result.runs);
            if (!result.page_info.has_next_page) break;
            cursor = result.page_info.next_cursor;
            for (const [i, c] of (between[page] ?? []).entries()) await change(c, page * 10 + i);
          }

          const ids = seen.map((r) => r.run_id);
          expect(new Set(ids).size, 'no run is seen twice').toBe(ids.length);
          // Each page starts strictly after the last run shown, so the walk as a whole is in order.
          const position = (r: RunItem): RunPosition => ({ value: sortValueOf(r, sortBy), id: r.run_id });
          const compare = comparePositions(order);
          for (let i = 1; i < seen.length; i++) {
            expect(compare(position(seen[i - 1] as RunItem), position(seen[i] as RunItem))).toBeLessThan(0);
          }
          const expectedOnce = before.map((r) => r.id).filter((id) => sortBy !== 'updated_at' || !updated.has(id));
          expect(
            expectedOnce.filter((id) => !ids.includes(id)),
            'runs of before the walk that it missed',
          ).toEqual([]);
        },
      ),
      { numRuns: options.listCases ?? 25 },
    );
  });
}

/** The sort value a list item shows (core's `sortValue`, read from the API's view of the run). */
function sortValueOf(item: RunItem, key: RunSortKey): string | null {
  switch (key) {
    case 'updated_at':
      return item.updated_at;
    case 'created_at':
      return item.created_at;
    case 'title':
      return item.title;
    case 'agent':
      return item.agent_config?.skill_spec ?? null;
  }
}
