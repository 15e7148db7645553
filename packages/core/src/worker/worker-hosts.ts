import type { RunStatusMessage } from '../models/run.js';
import type { WorkerRecord } from '../store/workers.js';

// Which worker takes which run, and what a run routed to a host no live worker serves says
// (docs/operations.md, "Worker hosts"). The one decider of both: the memory store's claim and the
// run service use these; the PostgreSQL claim statement mirrors `takesRun` in SQL (store-postgres
// runs-sql.ts `claimSql`) and the generated `runs.worker_host` column mirrors `runWorkerHost`.

/** A worker's host when none is given (`createWorker`); the reference server uses the OS hostname. */
export const DEFAULT_WORKER_HOST = 'default';

/**
 * How often a worker writes its presence record, and after how many missed heartbeats it no
 * longer counts as live (is not listed, and maintenance deletes its record).
 */
export const WORKER_PRESENCE = { heartbeatMs: 5_000, liveForMs: 15_000 } as const;

/** The host a run is routed to: its `config.worker_host`; an empty one names none. */
export const runWorkerHost = (config: { worker_host?: string | undefined }): string | undefined =>
  config.worker_host === undefined || config.worker_host === '' ? undefined : config.worker_host;

/** Whether a worker of `host` (taking unrouted runs unless `unrouted` is false) takes a run routed to `runHost`. */
export const takesRun = (worker: { host?: string | undefined; unrouted?: boolean | undefined }, runHost: string | undefined): boolean =>
  runHost === undefined ? worker.unrouted !== false : runHost === worker.host;

const WAITING = 'waiting for a worker on host';

/**
 * The status a queued run routed to `host` has: a message saying no live worker serves the host,
 * or `null` when one does (`live`: the workers listed as live now).
 */
export const waitingStatus = (host: string, live: readonly Pick<WorkerRecord, 'host'>[]): RunStatusMessage | null =>
  live.some((w) => w.host === host) ? null : { message: `${WAITING} '${host}': none is live` };

/** Whether a run's status is one `waitingStatus` wrote (and so is the worker-host sweep's to replace). */
export const isWaitingStatus = (status: RunStatusMessage | null): boolean => status?.message.startsWith(WAITING) === true;

/** The `seenSince` of the live workers at `now` (ms). */
export const liveSince = (now: number): number => now - WORKER_PRESENCE.liveForMs;
