import type { ExecutionContext, ProgressUpdate, TranscriptEntry } from '@agentrun/core';

/**
 * One line the agent printed, as the run takes it: its one transcript event, and what it makes
 * the run's `status_message` (docs/executors.md, "The JSON-lines protocol").
 */
export interface AgentLine {
  entry: TranscriptEntry;
  /**
   * The run's status after this line. A protocol message's (`throttled: false`) is written at
   * once; a plain line's (`throttled: true`) at most once per `statusIntervalMs`, the latest
   * winning. Either way it is no event of its own: the line's entry is.
   */
  status?: { update: ProgressUpdate; throttled: boolean };
  /** The bytes of the line as printed, for the output budget (output-budget.ts). */
  bytes?: number;
}

/**
 * Work that writes to the run in its place among the lines, an artifact's report
 * (artifact-reports.ts): the lines before it are written first, and those after it wait until it
 * is done, so its event keeps the place its message was printed in.
 */
interface OrderedWork {
  work: () => Promise<void>;
}

/** What waits in the queue: a line, or work in its place among them. */
type Queued = AgentLine | OrderedWork;

const isWork = (item: Queued): item is OrderedWork => 'work' in item;

/** Stops and restarts the agent's stdout, so lines wait in the pipe, not in memory, while the store is behind. */
interface Backpressure {
  pause(): void;
  resume(): void;
}

/** A write plain lines wait for: a microtask away (`timer` unset), or at the end of the window. */
interface DueWrite {
  timer?: ReturnType<typeof setTimeout>;
}

export interface TranscriptWriterOptions {
  /** The least time between the starts of two writes of plain lines: while lines come faster, they are gathered. Default 50 ms. */
  intervalMs?: number;
  /** The most lines in one write; as many waiting while a write is under way pause stdout. Default 100. */
  maxBatch?: number;
  /** How often a plain line may become the run's status. Default 1000 ms. */
  statusIntervalMs?: number;
  backpressure?: Backpressure;
}

/**
 * Every line of one run, in the order printed, into the run's transcript and status through one
 * queue: each write (`context.record`) takes the next lines, at most `maxBatch`, with the status
 * the last of them leaves, so event ids follow the agent's order and a status line is one event,
 * never a copy of an output line. One write at a time.
 *
 * When plain lines go is a write-coalescing rule, Nagle's with a floor: a plain line is written
 * at once (with the rest of the read it came in) when no write is under way and no write of lines
 * started within the last `intervalMs`; otherwise it is gathered, and the lines waiting go when
 * the write under way is done or `intervalMs` after the last one started, whichever is later. So
 * an agent that prints a line now and then has it on the stream as soon as a protocol message,
 * and a chatty one costs a write per `intervalMs` at most, or one per write the store completes
 * when the store is slower. Nagle's rule alone ("send when nothing is in flight") would need no
 * timer, but its clock is the store's round trip, a few milliseconds on PostgreSQL: a chatty agent
 * would then cost a transaction, a notification and a wake-up of every follower every few
 * milliseconds, the more the faster the store, where the floor holds it to 20 a second a run (at
 * 50 ms) whatever the store's speed.
 *
 * A protocol message is written at once, with the lines before it (after the write under way);
 * so is a full batch. Ordered work (`inOrder`: an artifact being read and reported) is a write of
 * its own in the same queue: the lines before it go first, those after it wait for it, gathered
 * into batches as ever. While a full batch waits for the write or the work before it, stdout is
 * paused (`backpressure`), so memory holds at most a batch and the lines of one read (besides the
 * artifact messages waiting, at most 200 an execution). See docs/executors.md, "The JSON-lines
 * protocol".
 */
export interface TranscriptWriter {
  /**
   * Queue a line; false when it was dropped (stopped, with a batch already waiting). `marker`: the
   * output-truncated marker, queued even then (output-budget.ts).
   */
  add(line: AgentLine, marker?: boolean): boolean;
  /**
   * Queue work that writes to the run in its place among the lines (an artifact's report): done
   * after the lines queued before it are written, before those queued after it. Never dropped, not
   * even after `stop`; its errors go to `onError`.
   */
  inOrder(work: () => Promise<void>): void;
  /**
   * The run was stopped (timeout, cancel, disk cap): from now on less than a batch of lines waits
   * (ordered work is kept), the lines waiting beyond it are dropped (and returned) as are those added later while it is full
   * (`add` says so), and stdout is never paused again, so the agent's pipes drain and `close`
   * costs the write under way and one more, however far behind the store is (docs/executors.md,
   * "Output budget").
   */
  stop(): AgentLine[];
  /**
   * Write every line left and wait for it. A plain line's status still held back by the throttle
   * is dropped: the outcome's message comes next.
   */
  close(): Promise<void>;
}

export function transcriptWriter(
  context: ExecutionContext,
  onError: (error: unknown) => void,
  { intervalMs = 50, maxBatch = 100, statusIntervalMs = 1000, backpressure }: TranscriptWriterOptions = {},
): TranscriptWriter {
  const queue: Queued[] = [];
  /** The lines in `queue` (ordered work aside): a batch's worth pauses stdout. */
  let lines = 0;
  let writing: Promise<void> | undefined;
  /** A write was asked for while one was under way: the next follows it at once. */
  let again = false;
  /** When the last write of lines started (`performance.now()`): plain lines wait until `intervalMs` after it. */
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  /** The write plain lines wait for: at the end of the current read's lines, or at the window's end. */
  let due: DueWrite | undefined;
  let paused = false;
  let closing = false;
  let stopped = false;
  const status = statusThrottle(statusIntervalMs, () => start());
  /** A protocol message or ordered work: written (done) at once, after the lines before it. */
  const urgent = (item: Queued) => isWork(item) || (item.status !== undefined && !item.status.throttled);

  /** The next write: ordered work at the head is done alone; else the lines up to the next work, at most a batch. */
  const take = (): OrderedWork | AgentLine[] => {
    const head = queue[0];
    if (head !== undefined && isWork(head)) return queue.shift() as OrderedWork;
    let end = 0;
    while (end < queue.length && end < maxBatch && !isWork(queue[end] as Queued)) end++;
    lines -= end;
    return queue.splice(0, end) as AgentLine[];
  };
  const writeNext = async () => {
    const next = take();
    if (!Array.isArray(next)) {
      // The work writes to the context itself; it counts as the write under way (`writing`).
      try {
        await next.work();
      } catch (error) {
        onError(error);
      }
      return;
    }
    const batch = next;
    if (paused && lines < maxBatch) {
      paused = false;
      backpressure?.resume();
    }
    const update = status.take(batch, closing);
    if (batch.length === 0 && update === undefined) return;
    // A write of the throttle's status alone (once a second at most) holds no line back.
    if (batch.length > 0) lastWriteAt = performance.now();
    const entries = batch.map((line) => line.entry);
    try {
      if (context.record) await context.record(entries, update ? { status: update } : undefined);
      else if (update) await context.report(update);
    } catch (error) {
      onError(error);
    }
  };
  /** The next batch, now or right after the write under way. */
  function start() {
    clearTimeout(due?.timer);
    due = undefined;
    if (writing) {
      again = true;
      return;
    }
    again = false;
    writing = writeNext().finally(() => {
      writing = undefined;
      if (again || lines >= maxBatch || queue.some(urgent)) start();
      else schedule();
    });
  }
  /**
   * Plain lines are waiting and no write is under way (a write's end calls this again): write them
   * once the window since the last write has passed. When it has, the write is a microtask away,
   * so the other lines of the same read (added in the same turn) go in it too.
   */
  function schedule() {
    if (writing || due || queue.length === 0) return;
    const mine: DueWrite = {};
    due = mine;
    const wait = lastWriteAt + intervalMs - performance.now();
    const fire = () => {
      if (due === mine) start();
    };
    if (wait > 0) mine.timer = setTimeout(fire, wait);
    else queueMicrotask(fire);
  }

  return {
    add(line, marker = false) {
      // Stopped: a batch waits at most, the marker the caller adds when this says no the last of it.
      if (stopped && !marker && lines >= maxBatch - 1) return false;
      queue.push(line);
      lines++;
      if (urgent(line) || lines >= maxBatch) start();
      else schedule();
      if (writing && !paused && !stopped && lines >= maxBatch) {
        paused = true;
        backpressure?.pause();
      }
      return true;
    },
    inOrder(work) {
      queue.push({ work });
      start();
    },
    stop() {
      stopped = true;
      // The first lines up to a batch stay, with every ordered work wherever it is; the other lines go.
      const dropped: AgentLine[] = [];
      let kept = 0;
      const stay = queue.filter((item) => {
        if (isWork(item) || kept < maxBatch - 1) {
          if (!isWork(item)) kept++;
          return true;
        }
        dropped.push(item);
        return false;
      });
      queue.splice(0, queue.length, ...stay);
      lines = kept;
      if (paused) {
        paused = false;
        backpressure?.resume();
      }
      return dropped;
    },
    async close() {
      closing = true;
      status.stop();
      for (;;) {
        if (writing) await writing;
        else if (queue.length > 0) start();
        else break;
      }
      clearTimeout(due?.timer);
      due = undefined;
    },
  };
}

/**
 * The status a batch of lines leaves: the last protocol message's, or a plain line's after it
 * when one may be written (the session fields of the batch's messages kept). A plain line that
 * must wait is held, and `due` is called when it may go; a later protocol message replaces it.
 */
function statusThrottle(intervalMs: number, due: () => void) {
  let held: string | undefined;
  let lastAt = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    take(batch: readonly AgentLine[], closing: boolean): ProgressUpdate | undefined {
      let message: ProgressUpdate | undefined;
      let plain = held;
      for (const { status } of batch) {
        if (!status) continue;
        if (status.throttled) {
          plain = status.update.message;
          continue;
        }
        message = { ...message, ...status.update };
        plain = undefined;
      }
      held = undefined;
      clearTimeout(timer);
      timer = undefined;
      const now = performance.now();
      if (plain !== undefined && now - lastAt >= intervalMs) message = { ...message, message: plain };
      else if (plain !== undefined && !closing) {
        held = plain;
        timer = setTimeout(due, lastAt + intervalMs - now);
      }
      if (message) lastAt = now;
      return message;
    },
    stop() {
      held = undefined;
      clearTimeout(timer);
    },
  };
}
