import { invalidRequest } from '../errors.js';
import type { RunState } from '../models/run-state.js';
import type { RunRecord } from '../run/record.js';
import { followRunEvents } from '../run/run-event-feed.js';
import { toRunEventView } from '../run/run-event-view.js';
import { requireTeamRun } from '../run/run-events.js';
import { isTerminal } from '../run/state-machine.js';
import type { RunEventRecord } from '../store/run-events.js';
import type { Store } from '../store/store.js';
import { DEFAULT_STREAM_LIMITS, pacedBody, type StreamLimits } from './paced-body.js';

// `GET /agent/runs/{runId}/events` with `Accept: text/event-stream` (docs/run-api.md, "Following a
// run live"): the run's events as Server-Sent Events, woken by the store's notifications, so a
// writer in any process sharing the store is heard at once. The body is paced by its client
// (paced-body.ts): a client that stops reading stops the store reads, and one that stays behind
// is dropped.

/** A comment line every 15 s keeps proxies from closing an idle stream (the feed re-reads the log as often). */
const HEARTBEAT_MS = 15_000;
/**
 * A run's last state event is appended just after its terminal state committed: a stream that
 * sees the run terminal without that event waits this long for it (a truncated log never gets it).
 */
const SETTLE_MS = 1_000;

/** Whether the request asks for the live stream rather than a JSON page. */
export const wantsEventStream = (request: Request): boolean => (request.headers.get('accept') ?? '').includes('text/event-stream');

/** Where the stream starts: `Last-Event-ID` (a reconnect) wins over `after`. */
export function streamStart(request: Request, after: number): number {
  const last = request.headers.get('last-event-id');
  if (last === null || last === '') return after;
  if (!/^\d{1,15}$/.test(last)) throw invalidRequest('Last-Event-ID must be an event id (decimal digits)');
  return Number(last);
}

const sseFrame = (event: RunEventRecord) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(toRunEventView(event))}\n\n`;

/** The live stream of a run's events after `after`; the run must be the team's (404 before any byte). */
export async function runEventStream(
  store: Store,
  teamUid: string,
  runId: string,
  after: number,
  request: Request,
  limits: StreamLimits = DEFAULT_STREAM_LIMITS,
): Promise<Response> {
  const run = await requireTeamRun(store, teamUid, runId);
  const body = pacedBody((stopped) => sseFrames(store, run, after, limits.queueBytes, [stopped, request.signal]), limits);
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  });
}

/**
 * The frames, each produced when the body has room for it, from the run's shared feed
 * (run-event-feed.ts): the stream reads the store only while it is behind the feed.
 */
async function* sseFrames(
  store: Store,
  run: RunRecord,
  after: number,
  queueBytes: number,
  signals: readonly (AbortSignal | undefined)[],
): AsyncGenerator<string, void, undefined> {
  const closed = () => signals.some((s) => s?.aborted);
  const follower = await followRunEvents(store, run.id, run.state, after, sseFrame, queueBytes);
  const interrupt = () => follower.interrupt();
  for (const s of signals) s?.addEventListener('abort', interrupt);
  try {
    let lastSent = Date.now();
    let terminalSeen = false;
    let settleBy: number | undefined;
    while (!closed()) {
      for await (const { event, text } of follower.drain()) {
        yield text;
        lastSent = Date.now();
        if (event.type === 'state') terminalSeen = isTerminal((event.data as { to?: RunState }).to ?? 'QUEUED');
      }
      const state = follower.state();
      if (state === undefined) return;
      let ms = HEARTBEAT_MS - (Date.now() - lastSent);
      if (isTerminal(state)) {
        if (terminalSeen) return;
        settleBy ??= Date.now() + SETTLE_MS;
        if (Date.now() >= settleBy) return;
        ms = Math.min(ms, settleBy - Date.now());
      } else settleBy = undefined;
      await follower.wait(ms);
      if (!closed() && Date.now() - lastSent >= HEARTBEAT_MS) {
        yield ': heartbeat\n\n';
        lastSent = Date.now();
      }
    }
  } finally {
    for (const s of signals) s?.removeEventListener('abort', interrupt);
    follower.close();
  }
}
