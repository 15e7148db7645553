// The workers part of the Store port (docs/operations.md, "Worker hosts"): each running worker's
// presence record, written by its heartbeat and read for `GET /api/v1/workers` and for the status
// of runs routed to a host no live worker serves.

/** A run a worker holds now, with its team: a caller is shown only its own team's run ids. */
export interface WorkerRunRef {
  id: string;
  teamUid: string;
}

/** One worker as its last heartbeat told it. */
export interface WorkerRecord {
  id: string;
  /** The host id runs are routed to (`config.worker_host`). */
  host: string;
  /** Whether it also takes runs that name no host. */
  unrouted: boolean;
  /** Runs it executes at once (its `concurrency`). */
  capacity: number;
  /** The runs it holds now. */
  runs: WorkerRunRef[];
  /** The executor it runs them with. */
  executor: string;
  /** The agentrun version it runs. */
  version: string;
  startedAt: string;
  lastSeenAt: string;
}

export interface WorkerStore {
  /** Create or replace the record of `worker.id`. */
  heartbeat(worker: WorkerRecord): Promise<void>;
  /** The records seen at or after `seenSince` (the live ones), by host then id. */
  list(input: { seenSince: string }): Promise<WorkerRecord[]>;
  /** Delete a worker's record (it stopped); nothing when there is none. */
  remove(id: string): Promise<void>;
  /** Delete the records last seen before `seenBefore` (maintenance); resolves to how many. */
  sweep(input: { seenBefore: string }): Promise<number>;
}
