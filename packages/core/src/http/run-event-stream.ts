import { invalidRequest } from '../errors.js';
import type { RunState } from '../models/run-state.js';
import type { Notification } from '../notify/notification.js';
import { renderedEventReader } from '../run/rendered-events.js';
import { requireTeamRun, toRunEventView } from '../run/run-events.js';
import { isTerminal } from '../run/state-machine.js';
import type { RunEventRecord } from '../store/run-events.js';
import type { Store } from '../store/store.js';
import { DEFAULT_STREAM_LIMITS, pacedBody, type StreamLimits } from './paced-body.js';

// `GET /agent/runs/{runId}/events` with `Accept: text/event-stream` (docs/run-api.md, "Following a
// run live"): the run's events as Server-Sent Events, woken by the store's notifications, so a
// writer in any process sharing the store is heard at once. The body is paced by its client
// (paced-body.ts): a client that stops reading stops the store reads, and one that stays behind
// is dropped.

/** A comment line every 15 s keeps proxies from closing an idle stream; each also re-reads the log. */
const HEARTBEAT_MS = 15_000;
/** Without notifications (a store without the port), how often the stream looks. */
const POLL_MS = 1_000;
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
  await requireTeamRun(store, teamUid, runId);
  const body = pacedBody((stopped) => sseFrames(store, teamUid, runId, after, [stopped, request.signal]), limits);
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  });
}

/**
 * The frames, each produced when the body has room for it. It listens for notifications while it
 * runs and stops listening when it ends, is cancelled, or its client is dropped.
 */
async function* sseFrames(
  store: Store,
  teamUid: string,
  runId: string,
  after: number,
  signals: readonly (AbortSignal | undefined)[],
): AsyncGenerator<string, void, undefined> {
  const closed = () => signals.some((s) => s?.aborted);
  // `dirty`: something may have changed since the last read; a wait ends at once when it is set.
  let dirty = true;
  let endWait: (() => void) | undefined;
  const wake = () => {
    dirty = true;
    endWait?.();
  };
  const woken = (n: Notification) => {
    if (n.type === 'resync' || ((n.type === 'run.event' || n.type === 'run.changed') && n.runId === runId)) wake();
  };
  let stopListening: (() => Promise<void>) | undefined;
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (dirty || closed()) return resolve();
      const done = () => {
        clearTimeout(timer);
        endWait = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      endWait = done;
    });
  for (const s of signals) s?.addEventListener('abort', wake);
  try {
    stopListening = store.notifications ? await store.notifications.listen(woken) : undefined;
    const read = renderedEventReader(store, runId, sseFrame);
    let cursor = after;
    let lastSent = Date.now();
    let terminalSeen = false;
    let settleBy: number | undefined;
    while (!closed()) {
      dirty = false;
      for await (const { event, text } of read(cursor)) {
        yield text;
        lastSent = Date.now();
        cursor = event.id;
        if (event.type === 'state') terminalSeen = isTerminal((event.data as { to?: RunState }).to ?? 'QUEUED');
      }
      const run = await store.runs.get(runId, teamUid);
      if (!run) return;
      let ms = store.notifications ? HEARTBEAT_MS : POLL_MS;
      if (isTerminal(run.state)) {
        if (terminalSeen) return;
        settleBy ??= Date.now() + SETTLE_MS;
        if (Date.now() >= settleBy) return;
        ms = settleBy - Date.now();
      } else settleBy = undefined;
      await wait(ms);
      if (!closed() && Date.now() - lastSent >= HEARTBEAT_MS) {
        yield ': heartbeat\n\n';
        lastSent = Date.now();
      }
    }
  } finally {
    for (const s of signals) s?.removeEventListener('abort', wake);
    // A failure to unlisten is the notification port's to report; the stream has ended either way.
    await stopListening?.().catch(() => {});
  }
}
