import { invalidRequest } from '../errors.js';
import type { ListRunsResponse } from '../models/run.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import { keysetPage } from '../util/keyset-page.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type RunFilter, type RunSortKey, type SortOrder, sortValue } from './list-query.js';
import { parseListRequest, runFilterOf } from './list-request.js';
import { toRunItem } from './record.js';

/**
 * One page of a team's runs (docs/run-api.md, "List runs"). The cursor is checked before
 * anything else is decided, so a tampered cursor is a 400 even when the filter matches nothing.
 */
export async function listRuns(
  deps: { store: Store; clock: Clock },
  teamUid: string,
  input: Record<string, unknown>,
): Promise<ListRunsResponse> {
  const request = parseListRequest(input);
  const { limit, sort_by: sortBy, sort_order: order } = request.query;
  const cursor = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor, sortBy, order);
  const filter = runFilterOf(request);
  // The Python client documents that the ancestor must exist and be the caller's to see.
  if (filter?.ancestorRunId !== undefined && !(await deps.store.runs.get(filter.ancestorRunId, teamUid))) {
    throw invalidRequest(`invalid query: ancestor_run_id: no run ${filter.ancestorRunId} in this team`);
  }
  if (!filter) return { runs: [], page_info: { has_next_page: false } };

  const asOf = cursor ? cursor.asOf : await walkSnapshot(deps, teamUid, filter, sortBy, order);
  const rows = await deps.store.runs.list({
    teamUid,
    filter,
    sortBy,
    order,
    limit: limit + 1,
    ...(cursor ? { after: { value: cursor.value, id: cursor.id } } : {}),
    ...(asOf !== undefined ? { asOf } : {}),
  });
  const { page, pageInfo } = keysetPage(rows, limit, (last) =>
    encodeCursor({ sortBy, order, value: sortValue(last, sortBy), id: last.id, ...(asOf !== undefined ? { asOf } : {}) }),
  );
  return { runs: page.map(toRunItem), page_info: pageInfo };
}

/**
 * The bound of a walk in ascending `updated_at` order, fixed at its first page. Only that order
 * needs one: a run updated mid-walk moves to the end, past the cursor, and would be listed twice.
 * (In descending order it moves behind the cursor and cannot repeat; `created_at` never moves.)
 * The bound is the newest matching `updated_at` or now, whichever is later, so runs stamped by
 * another instance whose clock runs ahead are not hidden.
 */
async function walkSnapshot(
  deps: { store: Store; clock: Clock },
  teamUid: string,
  filter: RunFilter,
  sortBy: RunSortKey,
  order: SortOrder,
): Promise<string | undefined> {
  if (sortBy !== 'updated_at' || order !== 'asc') return undefined;
  const [newest] = await deps.store.runs.list({ teamUid, filter, sortBy: 'updated_at', order: 'desc', limit: 1 });
  const now = isoTime(deps.clock.now());
  return newest && newest.updatedAt > now ? newest.updatedAt : now;
}
