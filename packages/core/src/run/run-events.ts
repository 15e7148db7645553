import { notFound } from '../errors.js';
import { ListRunEventsQuerySchema } from '../models/requests.js';
import type { ListRunEventsResponse, RunEventView } from '../models/run-events.js';
import { parseOrThrow } from '../models/validate.js';
import type { RunEventRecord } from '../store/run-events.js';
import type { Store } from '../store/store.js';
import { keysetPage } from '../util/keyset-page.js';

/** An event as the API shows it (the run's id is the URL's). */
export const toRunEventView = (e: RunEventRecord): RunEventView => ({ id: e.id, at: e.at, type: e.type, data: e.data });

/** The run, if it is the team's: a run's events are shown only to those who may see the run. */
export async function requireTeamRun(store: Store, teamUid: string, runId: string) {
  const run = await store.runs.get(runId, teamUid);
  if (!run) throw notFound(`run ${runId} not found`);
  return run;
}

/** The query of `GET /agent/runs/{runId}/events`, checked (a 400 names what is wrong). */
export const parseRunEventsQuery = (input: Record<string, unknown>) => parseOrThrow(ListRunEventsQuerySchema, input, 'query');

/**
 * One page of a run's events (docs/run-api.md, "Run events"): ids after `after`, ascending;
 * `next_cursor` is the last id shown, to pass as `after`.
 */
export async function listRunEvents(
  store: Store,
  teamUid: string,
  runId: string,
  input: Record<string, unknown>,
): Promise<ListRunEventsResponse> {
  const { after, limit } = parseRunEventsQuery(input);
  await requireTeamRun(store, teamUid, runId);
  const rows = await store.runEvents.list(runId, { after, limit: limit + 1 });
  const { page, pageInfo } = keysetPage(rows, limit, (last) => String(last.id));
  return { events: page.map(toRunEventView), page_info: pageInfo };
}
