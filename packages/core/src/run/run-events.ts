import { notFound } from '../errors.js';
import { ListRunEventsQuerySchema } from '../models/requests.js';
import { parseOrThrow } from '../models/validate.js';
import type { Store } from '../store/store.js';
import { buildEventPage, type EventPage } from './event-page.js';

/** The run, if it is the team's: a run's events are shown only to those who may see the run. */
export async function requireTeamRun(store: Store, teamUid: string, runId: string) {
  const run = await store.runs.get(runId, teamUid);
  if (!run) throw notFound(`run ${runId} not found`);
  return run;
}

/** The query of `GET /agent/runs/{runId}/events`, checked (a 400 names what is wrong). */
export const parseRunEventsQuery = (input: Record<string, unknown>) => parseOrThrow(ListRunEventsQuerySchema, input, 'query');

/**
 * One page of a run's events (docs/run-api.md, "A page"): ids after `after`, ascending, up to
 * `limit` events and `EVENT_PAGE_BYTES` of body; `next_cursor` is the last id shown, to pass as
 * `after`. `build` runs the page's reads and serialization (the route bounds how many run at once).
 */
export async function listRunEvents(
  store: Store,
  teamUid: string,
  runId: string,
  input: Record<string, unknown>,
  build: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
): Promise<EventPage> {
  const { after, limit } = parseRunEventsQuery(input);
  await requireTeamRun(store, teamUid, runId);
  return build(() => buildEventPage(store, runId, after, limit));
}
