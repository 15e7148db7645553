import { invalidRequest } from '../errors.js';
import type { RunState } from '../models/run-state.js';
import type { Notification } from '../notify/notification.js';
import { requireTeamRun, toRunEventView } from '../run/run-events.js';
import { isTerminal } from '../run/state-machine.js';
import type { Store } from '../store/store.js';

// `GET /agent/runs/{runId}/events` with `Accept: text/event-stream` (docs/run-api.md, "Following a
// run live"): the run's events as Server-Sent Events, woken by the store's notifications, so a
// writer in any process sharing the store is heard at once.

/** A comment line every 15 s keeps proxies from closing an idle stream; each also re-reads the log. */
const HEARTBEAT_MS = 15_000;
/** Without notifications (a store without the port), how often the stream looks. */
const POLL_MS = 1_000;
/**
 * A run's last state event is appended just after its terminal state committed: a stream that
 * sees the run terminal without that event waits this long for it (a truncated log never gets it).
 */
const SETTLE_MS = 1_000;
/** Events read per store call. */
const PAGE = 500;

/** Whether the request asks for the live stream rather than a JSON page. */
export const wantsEventStream = (request: Request): boolean => (request.headers.get('accept') ?? '').includes('text/event-stream');

/** Where the stream starts: `Last-Event-ID` (a reconnect) wins over `after`. */
export function streamStart(request: Request, after: number): number {
  const last = request.headers.get('last-event-id');
  if (last === null || last === '') return after;
  if (!/^\d{1,15}$/.test(last)) throw invalidRequest('Last-Event-ID must be an event id (decimal digits)');
  return Number(last);
}

/** The live stream of a run's events after `after`; the run must be the team's (404 before any byte). */
export async function runEventStream(store: Store, teamUid: string, runId: string, after: number, request: Request): Promise<Response> {
  await requireTeamRun(store, teamUid, runId);
  const encoder = new TextEncoder();
  let closed = false;
  // `dirty`: something may have changed since the last read; a wait ends at once when it is set.
  let dirty = true;
  let endWait: (() => void) | undefined;
  const wake = () => {
    dirty = true;
    endWait?.();
  };
  const woken = (n: Notification) => {
    if (n.type === 'resync' || (n.runId === runId && (n.type === 'run.event' || n.type === 'run.changed'))) wake();
  };
  const stopListening = store.notifications ? await store.notifications.listen(woken) : undefined;
  const close = () => {
    closed = true;
    wake();
  };
  request.signal?.addEventListener('abort', close);
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (dirty || closed) return resolve();
      const done = () => {
        clearTimeout(timer);
        endWait = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      endWait = done;
    });

  async function pump(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    let cursor = after;
    let lastSent = Date.now();
    const send = (text: string) => {
      controller.enqueue(encoder.encode(text));
      lastSent = Date.now();
    };
    let terminalSeen = false;
    let settleBy: number | undefined;
    while (!closed) {
      dirty = false;
      for (;;) {
        const page = await store.runEvents.list(runId, { after: cursor, limit: PAGE });
        for (const event of page) {
          send(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(toRunEventView(event))}\n\n`);
          cursor = event.id;
          if (event.type === 'state') terminalSeen = isTerminal((event.data as { to?: RunState }).to ?? 'QUEUED');
        }
        if (page.length < PAGE) break;
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
      if (!closed && Date.now() - lastSent >= HEARTBEAT_MS) send(': heartbeat\n\n');
    }
  }

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      pump(controller)
        .then(() => {
          if (!closed) controller.close();
        })
        .catch((error) => {
          if (!closed) controller.error(error);
        })
        .finally(() => {
          closed = true;
          request.signal?.removeEventListener('abort', close);
          void stopListening?.();
        });
    },
    cancel: close,
  });
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  });
}
