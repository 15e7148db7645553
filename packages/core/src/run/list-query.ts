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
  automationId?: string;
}

export type RunSortKey = 'updated_at' | 'created_at';
export type SortOrder = 'asc' | 'desc';

/** A page request: keyset pagination over (sort key, run id). */
export interface RunListQuery {
  teamUid: string;
  filter: RunFilter;
  sortBy: RunSortKey;
  order: SortOrder;
  /** Rows to return; services ask for one more than the page size to learn if another follows. */
  limit: number;
  /** Return only rows strictly after this position in the sort order. */
  after?: { value: string; id: string };
  /**
   * With `sortBy: 'updated_at'`: only runs with `updated_at <= asOf`. A walk over pages fixes this
   * at its first page, so a run updated mid-walk (which moves in the order) is never seen twice.
   */
  asOf?: string;
}

export const sortValue = (run: RunRecord, key: RunSortKey): string => (key === 'updated_at' ? run.updatedAt : run.createdAt);

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
  if (f.q !== undefined) {
    const needle = f.q.toLowerCase();
    const hay = [run.title, run.prompt, run.config.skill_spec ?? ''];
    if (!hay.some((h) => h.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** Whether `run` lies strictly after the keyset position `after` in the query's order. */
export function isAfterPosition(run: RunRecord, q: Pick<RunListQuery, 'sortBy' | 'order' | 'after'>): boolean {
  if (!q.after) return true;
  const value = sortValue(run, q.sortBy);
  const cmp = value < q.after.value ? -1 : value > q.after.value ? 1 : run.id < q.after.id ? -1 : run.id > q.after.id ? 1 : 0;
  return q.order === 'asc' ? cmp > 0 : cmp < 0;
}

/** Comparator for the query's order; ties on the sort key break on run id, in the same direction. */
export function compareRuns(sortBy: RunSortKey, order: SortOrder): (a: RunRecord, b: RunRecord) => number {
  const dir = order === 'asc' ? 1 : -1;
  return (a, b) => {
    const va = sortValue(a, sortBy);
    const vb = sortValue(b, sortBy);
    if (va !== vb) return va < vb ? -dir : dir;
    return a.id < b.id ? -dir : a.id > b.id ? dir : 0;
  };
}
