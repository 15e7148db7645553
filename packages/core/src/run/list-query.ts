import type { ArtifactType } from '../artifacts/model.js';
import type { RunSourceType, RunState } from '../models/run-state.js';
import type { RunRecord } from './record.js';

/** Filters of `GET /agent/runs`, already validated. All given filters must hold. */
export interface RunFilter {
  states?: readonly RunState[];
  /** Config name, exact. */
  name?: string;
  modelId?: string;
  /** Creator UID, exact. */
  creatorUid?: string;
  source?: RunSourceType;
  /** Strictly after / before these instants (RFC 3339 UTC, as stored). */
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  environmentId?: string;
  skillSpec?: string;
  /** Case-insensitive substring of title, prompt or skill spec. */
  q?: string;
  factoryUid?: string;
  /** Only runs of some factory (`factoryUid` not null): the factory inbox (run/inbox.ts). */
  withFactory?: true;
  automationId?: string;
  /** Runs started (directly or through other runs) by this run: it is among their `ancestorRunIds`. */
  ancestorRunId?: string;
  /** Runs holding at least one artifact of this type (docs/artifacts.md). */
  artifactType?: ArtifactType;
  /** The run's `session_id`, exact (the session redirect; not a query parameter). */
  sessionId?: string;
  /** The run's `conversation_id`, exact (the conversation redirect; not a query parameter). */
  conversationId?: string;
  /** The schedule that started the run (docs/schedules.md). */
  scheduleId?: string;
}

/**
 * Orders of `GET /agent/runs` (docs/run-api.md, "List runs"). `title` and `agent` (the skill
 * spec) are the Python client's text orders: by Unicode code point, the order Postgres gives
 * under `COLLATE "C"`, so both stores agree; runs without a skill come last in either direction.
 */
export const RUN_SORT_KEYS = ['updated_at', 'created_at', 'title', 'agent'] as const;
export type RunSortKey = (typeof RUN_SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';

/** A keyset position: the sort value (`null` only for `agent`: a run without a skill) and the run id. */
export interface RunPosition {
  value: string | null;
  id: string;
}

/** A page request: keyset pagination over (sort key, run id). */
export interface RunListQuery {
  teamUid: string;
  filter: RunFilter;
  sortBy: RunSortKey;
  order: SortOrder;
  /** Rows to return; services ask for one more than the page size to learn if another follows. */
  limit: number;
  /** Return only rows strictly after this position in the sort order. */
  after?: RunPosition;
  /**
   * With `sortBy: 'updated_at'`: only runs with `updated_at <= asOf`. An ascending walk fixes this
   * at its first page, so a run updated mid-walk (which moves to the end) is left out rather than
   * seen twice, unless the update is stamped at or before the bound (docs/run-api.md, "Walking
   * every run").
   */
  asOf?: string;
}

export const sortValue = (run: RunRecord, key: RunSortKey): string | null => {
  switch (key) {
    case 'updated_at':
      return run.updatedAt;
    case 'created_at':
      return run.createdAt;
    case 'title':
      return run.title;
    case 'agent':
      return run.config.skill_spec ?? null;
  }
};

/**
 * Strings by Unicode code point (UTF-8 byte order, Postgres's `COLLATE "C"`), not by UTF-16
 * unit as `<` compares them: the two differ where a character beyond U+FFFF meets one in
 * U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rankUnit(x) - rankUnit(y);
  }
  return a.length - b.length;
}
/** Moves surrogates (which encode code points above U+FFFF) after U+E000–U+FFFF. */
const rankUnit = (u: number) => (u < 0xd800 ? u : u < 0xe000 ? u + 0x2000 : u - 0x800);

/** Position order: a `null` value (no skill) last in both directions, then value, then id. */
export function comparePositions(order: SortOrder): (a: RunPosition, b: RunPosition) => number {
  const dir = order === 'asc' ? 1 : -1;
  return (a, b) => {
    if ((a.value === null) !== (b.value === null)) return a.value === null ? 1 : -1;
    const byValue = a.value === null || b.value === null ? 0 : compareCodePoints(a.value, b.value);
    if (byValue !== 0) return dir * byValue;
    return dir * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  };
}

const positionOf = (run: RunRecord, key: RunSortKey): RunPosition => ({ value: sortValue(run, key), id: run.id });

/**
 * The reference semantics of a filter, in JavaScript. The memory store uses it directly; a SQL
 * store translates the same rules, and the conformance suite checks that both agree.
 */
export function matchesRunFilter(run: RunRecord, f: RunFilter): boolean {
  if (f.states && f.states.length > 0 && !f.states.includes(run.state)) return false;
  if (f.name !== undefined && run.config.name !== f.name) return false;
  if (f.modelId !== undefined && run.config.model_id !== f.modelId) return false;
  if (f.creatorUid !== undefined && run.creator.uid !== f.creatorUid) return false;
  if (f.source !== undefined && run.source !== f.source) return false;
  if (f.createdAfter !== undefined && !(run.createdAt > f.createdAfter)) return false;
  if (f.createdBefore !== undefined && !(run.createdAt < f.createdBefore)) return false;
  if (f.updatedAfter !== undefined && !(run.updatedAt > f.updatedAfter)) return false;
  if (f.environmentId !== undefined && run.config.environment_id !== f.environmentId) return false;
  if (f.skillSpec !== undefined && run.config.skill_spec !== f.skillSpec) return false;
  if (f.factoryUid !== undefined && run.factoryUid !== f.factoryUid) return false;
  if (f.automationId !== undefined && run.trigger?.automation_id !== f.automationId) return false;
  if (f.ancestorRunId !== undefined && !run.ancestorRunIds.includes(f.ancestorRunId)) return false;
  if (f.artifactType !== undefined && !run.artifacts.some((a) => a.artifact_type === f.artifactType)) return false;
  if (f.sessionId !== undefined && run.sessionId !== f.sessionId) return false;
  if (f.conversationId !== undefined && run.conversationId !== f.conversationId) return false;
  if (f.withFactory && run.factoryUid === null) return false;
  if (f.scheduleId !== undefined && run.schedule?.schedule_id !== f.scheduleId) return false;
  if (f.q !== undefined) {
    const needle = f.q.toLowerCase();
    const hay = [run.title, run.prompt, run.config.skill_spec ?? ''];
    if (!hay.some((h) => h.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** Whether `run` lies strictly after the keyset position `after` in the query's order. */
export function isAfterPosition(run: RunRecord, q: Pick<RunListQuery, 'sortBy' | 'order' | 'after'>): boolean {
  return !q.after || comparePositions(q.order)(positionOf(run, q.sortBy), q.after) > 0;
}

/** Comparator for the query's order; ties on the sort key break on run id, in the same direction. */
export function compareRuns(sortBy: RunSortKey, order: SortOrder): (a: RunRecord, b: RunRecord) => number {
  const compare = comparePositions(order);
  return (a, b) => compare(positionOf(a, sortBy), positionOf(b, sortBy));
}
