import type { RunState } from '../models/run-state.js';
import type { Notification } from '../notify/notification.js';
import type { RunEventRecord } from '../store/run-events.js';
import type { Store } from '../store/store.js';
import { type RenderedEvent, renderedEventReader } from './rendered-events.js';

// One reader of a run's new events per process, shared by every live stream of that run
// (docs/production.md, "Event streams: one read per run"). Without it, each open stream read the
// store on every notification: 100 streams on one run cost 100 reads per event. Here a feed per
// (store, run) reads once per notification, renders each event once, and hands it to every stream
// that is caught up. A stream that is behind (it joined late, or fell behind and dropped its
// queue) reads by itself, from its own position, up to the feed's; then it joins. So each stream
// gets every event once and in order, and a slow one never holds up the others: its queue is
// bounded, and past the bound it is emptied and the stream goes back to reading by itself.

/** With notifications, how often a feed reads anyway (a notification may be lost); without, how often it polls. */
const REFRESH_MS = 15_000;
const POLL_MS = 1_000;

/** What a stream sees of its run. */
export interface RunEventFollower {
  /**
   * The events after the stream's position, in order, each once: what the feed queued for it, or
   * what it reads by itself while behind. Ends when it has given every event known so far.
   */
  drain(): AsyncGenerator<RenderedEvent, void, undefined>;
  /** The run's state as last heard (its own write, a notification, a read), `undefined` once the run is gone. */
  state(): RunState | undefined;
  /** Until the feed has news (or `interrupt()`), at most `ms`; at once if news came since the last `drain`. */
  wait(ms: number): Promise<void>;
  /** End a `wait` now (the stream was closed). */
  interrupt(): void;
  /** Leave the feed; the last to leave ends its reads and its listening. */
  close(): void;
}

interface Subscriber {
  cursor: number;
  /** The most text it holds queued (UTF-16 code units). */
  queueChars: number;
  queue: RenderedEvent[];
  chars: number;
  /** Caught up: the feed queues new events for it. */
  live: boolean;
  news: boolean;
  wakeUp: (() => void) | undefined;
  read: ReturnType<typeof renderedEventReader>;
}

interface Feed {
  store: Store;
  /** The store's feeds, this one among them while open. */
  feeds: Map<string, Feed>;
  runId: string;
  /** The last event id the feed has read and queued; -1 until a stream's own read established it. */
  head: number;
  state: RunState | undefined;
  subscribers: Set<Subscriber>;
  read: ReturnType<typeof renderedEventReader>;
  reading: boolean;
  again: boolean;
  againFull: boolean;
  failure: unknown;
  timer: ReturnType<typeof setInterval> | undefined;
  ready: Promise<void>;
  stopListening: (() => Promise<void>) | undefined;
  closed: boolean;
}

const feedsByStore = new WeakMap<Store, Map<string, Feed>>();

/**
 * Follow `runId`'s events after `after` (`state`: the run's state as the caller just read it).
 * `render` must be the same function for every follower of a store (the feed renders once for
 * all); `queueChars` bounds what this stream holds queued while its client does not read.
 */
export async function followRunEvents(
  store: Store,
  runId: string,
  state: RunState,
  after: number,
  render: (event: RunEventRecord) => string,
  queueChars: number,
): Promise<RunEventFollower> {
  let feeds = feedsByStore.get(store);
  if (!feeds) {
    feeds = new Map();
    feedsByStore.set(store, feeds);
  }
  let feed = feeds.get(runId);
  if (!feed) {
    feed = openFeed(store, feeds, runId, state, render);
    feeds.set(runId, feed);
  }
  feed.state = state;
  const sub: Subscriber = {
    cursor: after,
    queueChars,
    queue: [],
    chars: 0,
    live: false,
    news: false,
    wakeUp: undefined,
    read: renderedEventReader(store, runId, render),
  };
  feed.subscribers.add(sub);
  const f = feed;
  // Listening before the first read: what is written after it is heard.
  await f.ready;
  return {
    drain: () => drain(f, sub),
    state: () => f.state,
    wait: (ms) => wait(f, sub, ms),
    interrupt: () => sub.wakeUp?.(),
    close: () => leave(f, sub),
  };
}

function openFeed(store: Store, feeds: Map<string, Feed>, runId: string, state: RunState, render: (event: RunEventRecord) => string): Feed {
  const feed: Feed = {
    store,
    feeds,
    runId,
    head: -1,
    state,
    subscribers: new Set(),
    read: renderedEventReader(store, runId, render),
    reading: false,
    again: false,
    againFull: false,
    failure: undefined,
    timer: undefined,
    ready: Promise.resolve(),
    stopListening: undefined,
    closed: false,
  };
  const heard = (n: Notification) => {
    if (n.type === 'resync') void refresh(feed, true);
    else if (!('runId' in n) || n.runId !== runId) return;
    else if (n.type === 'run.event') void refresh(feed, false);
    else if (n.type === 'run.changed') {
      feed.state = n.state;
      wakeAll(feed);
    }
  };
  if (store.notifications) {
    feed.ready = store.notifications.listen(heard).then((stop) => {
      if (feed.closed) void stop().catch(() => {});
      else feed.stopListening = stop;
    });
  }
  feed.timer = setInterval(() => void refresh(feed, true), store.notifications ? REFRESH_MS : POLL_MS);
  return feed;
}

/**
 * The feed's one read: the events after its head (queued for every caught-up stream), and with
 * `full` the run itself (its state, or that it is gone). Calls while a read runs make it read
 * once more after, so a burst of notifications costs at most two reads.
 */
async function refresh(feed: Feed, full: boolean): Promise<void> {
  if (feed.closed) return;
  if (feed.reading) {
    feed.again = true;
    feed.againFull ||= full;
    return;
  }
  feed.reading = true;
  try {
    let withRun = full;
    do {
      feed.again = false;
      if (feed.head >= 0) for await (const item of feed.read(feed.head)) deliver(feed, item);
      if (withRun) feed.state = (await feed.store.runs.get(feed.runId))?.state;
      withRun = feed.againFull;
      feed.againFull = false;
    } while (feed.again && !feed.closed);
  } catch (error) {
    // Every stream of the run ends with the failure; the next one opens a fresh feed.
    feed.failure = error;
    shut(feed);
  } finally {
    feed.reading = false;
    wakeAll(feed);
  }
}

/** Queue one event for every caught-up stream; a stream whose queue would pass its bound drops it and falls behind. */
function deliver(feed: Feed, item: RenderedEvent): void {
  feed.head = item.event.id;
  for (const sub of feed.subscribers) {
    if (!sub.live) continue;
    if (sub.queue.length > 0 && sub.chars + item.text.length > sub.queueChars) {
      sub.queue = [];
      sub.chars = 0;
      sub.live = false;
      continue;
    }
    sub.queue.push(item);
    sub.chars += item.text.length;
  }
}

async function* drain(feed: Feed, sub: Subscriber): AsyncGenerator<RenderedEvent, void, undefined> {
  sub.news = false;
  for (;;) {
    if (feed.failure !== undefined) throw feed.failure;
    const item = sub.queue.shift();
    if (item) {
      sub.chars -= item.text.length;
      sub.cursor = item.event.id;
      yield item;
      continue;
    }
    if (sub.live) return;
    if (feed.head < 0) {
      // No stream has established where the log ends: read it all, then this is the feed's head.
      for await (const own of sub.read(sub.cursor)) {
        sub.cursor = own.event.id;
        yield own;
      }
      if (feed.head < 0) {
        feed.head = sub.cursor;
        sub.live = true;
        // Anything written while it read is read by the feed now.
        void refresh(feed, false);
      }
      continue;
    }
    if (sub.cursor > feed.head) return; // ahead of the feed: nothing to give until it passes
    if (sub.cursor === feed.head) {
      sub.live = true;
      return;
    }
    const from = sub.cursor;
    for await (const own of sub.read(sub.cursor, feed.head)) {
      sub.cursor = own.event.id;
      yield own;
    }
    if (sub.cursor === from) return; // the log did not reach the feed's head (it cannot): wait, do not spin
  }
}

function wait(feed: Feed, sub: Subscriber, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (sub.news || feed.failure !== undefined || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      sub.wakeUp = undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    sub.wakeUp = done;
  });
}

function wakeAll(feed: Feed): void {
  for (const sub of feed.subscribers) {
    sub.news = true;
    sub.wakeUp?.();
  }
}

function leave(feed: Feed, sub: Subscriber): void {
  feed.subscribers.delete(sub);
  sub.queue = [];
  sub.wakeUp?.();
  if (feed.subscribers.size === 0) shut(feed);
}

/** No more reads, no more listening; a later stream of the run opens a new feed. */
function shut(feed: Feed): void {
  if (feed.closed) return;
  feed.closed = true;
  if (feed.feeds.get(feed.runId) === feed) feed.feeds.delete(feed.runId);
  clearInterval(feed.timer);
  // A failure to unlisten is the notification port's to report.
  void feed.stopListening?.().catch(() => {});
}
