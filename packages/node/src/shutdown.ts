import type { Server } from 'node:http';
import type { AgentRun } from '@agentrun/core';

/** Options of {@link shutdownGracefully} (docs/operations.md, "Graceful shutdown"). */
export interface GracefulShutdownOptions {
  /** The agentrun to shut down: its `/readyz` turns 503, its workers stop, its store closes. */
  agentrun: Pick<AgentRun, 'close' | 'store'>;
  /**
   * The HTTP servers to stop accepting on: `http.createServer()`'s, what Express's `app.listen()`
   * returns, Fastify's `app.server`. Requests already in flight may finish until the bound.
   */
  servers?: readonly Server[];
  /** The bound on the whole shutdown, in ms. Default 10 000. */
  timeoutMs?: number;
  /**
   * How long running executions may take to finish before they are handed back to the queue
   * (docs/executors.md, "Stopping a worker"). Default: `timeoutMs` less 2 s for the hand-back
   * (and half of it when that leaves less than half).
   */
  graceMs?: number;
  /** Whether to close agentrun's store at the end (a pool it owns). Default true. */
  closeStore?: boolean;
}

export interface ShutdownReport {
  /** Whether the bound was reached: connections still open then were cut (a live event stream, a slow upload). */
  timedOut: boolean;
}

/** Idle keep-alive connections are closed this often while in-flight requests finish. */
const IDLE_SWEEP_MS = 50;

/**
 * Shut a Node process's agentrun down without losing work, within `timeoutMs`: stop accepting
 * connections (the listening sockets close at once) while `/readyz` answers 503; let requests in
 * flight finish (a delivery being received is answered and kept); stop the workers, whose
 * executions get `graceMs` to finish and are then handed back to the queue for another process;
 * at the bound, cut the connections left; then close the store. Resolves when all of that is
 * done, never later than the bound plus the store's own close.
 */
export async function shutdownGracefully(options: GracefulShutdownOptions): Promise<ShutdownReport> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const graceMs = options.graceMs ?? (timeoutMs >= 4_000 ? timeoutMs - 2_000 : Math.floor(timeoutMs / 2));
  const servers = options.servers ?? [];
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve();
    }, timeoutMs);
  });

  // Workers first, with the store still open: readiness fails at once and executions start winding down.
  const workers = options.agentrun.close({ graceMs, closeStore: false });
  const drained = Promise.all(servers.map(drain));
  await Promise.race([Promise.all([workers, drained]), bound]);
  clearTimeout(timer);
  if (timedOut) for (const server of servers) server.closeAllConnections();
  // A worker still handing runs back at the bound (a store that does not answer) is not waited
  // for: its runs' leases expire and another process's worker re-queues them.
  if (options.closeStore ?? true) await options.agentrun.store.close?.();
  return { timedOut };
}

/** Stop accepting, then wait for the server's connections to end, closing each as it goes idle. */
function drain(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
