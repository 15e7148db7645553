import { createLoop, type LoopHealth } from '../runner/loop.js';
import { isoTime } from '../util/clock.js';
import type { RunWorkContext } from './worker-context.js';
import { WORKER_PRESENCE } from './worker-hosts.js';

/** What a worker says of itself beside what its context holds (docs/operations.md, "Worker hosts"). */
export interface PresenceInfo {
  host: string;
  unrouted: boolean;
  executor: string;
  version: string;
}

export interface Presence {
  /** The record written now, and then every `WORKER_PRESENCE.heartbeatMs`. */
  start(): void;
  /** No more heartbeats; the record is removed (a failure is reported; the record then expires). */
  stop(): Promise<void>;
  /** How its heartbeats go (runner/loop.ts), for the health report. */
  health(): LoopHealth;
}

/**
 * A worker's presence record (`store.workers`), heartbeated on the runner's loop (runner/loop.ts)
 * as a part of its own: its host, capacity and the runs it holds now, for `GET /api/v1/workers`
 * and for the status of runs routed to a host (worker-hosts.ts). A worker that dies stops
 * heartbeating and is no longer listed once `WORKER_PRESENCE.liveForMs` passed.
 */
export function workerPresence(ctx: RunWorkContext, info: PresenceInfo, heartbeatMs: number = WORKER_PRESENCE.heartbeatMs): Presence {
  const { store, clock, id, onError, running } = ctx;
  let startedAt = '';
  // One write at a time (the loop's passes): a slow store does not pile heartbeats up. A failed
  // one is tried again at the next beat, not sooner nor later, so that a live worker stays listed.
  const loop = createLoop<unknown>({
    pass: () =>
      store.workers.heartbeat({
        id,
        host: info.host,
        unrouted: info.unrouted,
        capacity: ctx.concurrency,
        runs: [...running.values()].map((e) => ({ id: e.run.id, teamUid: e.run.teamUid })),
        executor: info.executor,
        version: info.version,
        startedAt,
        lastSeenAt: isoTime(clock.now()),
      }),
    nextMs: () => heartbeatMs,
    backoff: { baseMs: heartbeatMs, maxMs: heartbeatMs, jitter: 0 },
    onError,
    failed: undefined,
  });
  return {
    start() {
      if (loop.started) return;
      startedAt = isoTime(clock.now());
      loop.start();
    },
    async stop() {
      if (!loop.started) return;
      // The removal comes after the last heartbeat.
      await loop.stop();
      await store.workers.remove(id).catch(onError);
    },
    health: loop.health,
  };
}
