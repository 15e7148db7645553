// The run-events part of the Store port (docs/stores.md, "Run events"): each run's transcript, an
// append-only log of what happened to it (state changes, agent output, status messages,
// follow-ups, artifacts, the agent's tool calls and their results), read in pages and followed live (docs/run-api.md, "Run events").

/** What a transcript entry tells: `truncated` is the store's own marker, written once at the cap. */
export const RUN_EVENT_TYPES = ['state', 'output', 'status', 'followup', 'artifact', 'tool_call', 'tool_result', 'truncated'] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/**
 * How many events a run keeps, the `truncated` marker included: events beyond it are dropped, and
 * the first one dropped leaves that marker in the last place, so a reader sees the log was cut.
 */
export const RUN_EVENTS_PER_RUN = 10_000;

export interface RunEventRecord {
  /** 1, 2, 3, … per run, in the order the events were appended (commit order). */
  id: number;
  runId: string;
  at: string;
  type: RunEventType;
  /** A JSON value (an object for every type core writes). */
  data: unknown;
  /**
   * Only on events listed with `maxBytes`: the store's count of the bytes of `data` as JSON text
   * (UTF-8), the measure that bound applies to.
   */
  size?: number;
}

/** An event to append: the store gives it its id. Writers never append `truncated` themselves. */
export interface NewRunEvent {
  at: string;
  type: Exclude<RunEventType, 'truncated'>;
  data: unknown;
}

export interface RunEventListQuery {
  /** Only events with an id greater than this (a page's cursor, or SSE's `Last-Event-ID`). */
  after?: number;
  limit: number;
  /**
   * Stop early, so a read of large events holds a bounded amount of memory: events are returned
   * while the sizes of those before them total less than this (so at least one, and the one that
   * reaches it), each with its `size`. Core bounds pages this way (docs/run-api.md, "A page").
   */
  maxBytes?: number;
}

export interface RunEventStore {
  /**
   * Append events to a run's log, in order, atomically: all of them get the next ids, or (past
   * `RUN_EVENTS_PER_RUN`) those that fit and one `truncated` marker, at the time of the first
   * event dropped, with data `{ limit }`. Once the marker is there, appends add nothing. Appending
   * to a run that does not exist adds nothing. Publishes `run.event` (the last id) when it added.
   */
  append(runId: string, events: readonly NewRunEvent[]): Promise<void>;
  /**
   * A run's events after `after`, by id ascending, at most `limit` (fewer with `maxBytes`, above);
   * none for an unknown run.
   */
  list(runId: string, query: RunEventListQuery): Promise<RunEventRecord[]>;
}
