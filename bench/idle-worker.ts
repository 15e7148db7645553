import type { AgentRun } from '@agentrun/core';
import type { PostgresStore } from '@agentrun/store-postgres';

const HOUR = 60 * 60 * 1000;

/**
 * The body of a forked bench worker (bench/notify-worker.ts, bench/executor-worker.ts): a worker
 * whose polls and heartbeats are an hour apart, so only the store's notifications make it act.
 * Says `ready` once it listens, and stops (its runs handed back, the store closed) on `stop` or
 * when the bench goes away.
 */
export async function runIdleWorker(
  agentrun: AgentRun,
  store: PostgresStore,
  send: (report: { kind: 'ready' }) => void,
  concurrency: number,
): Promise<void> {
  const worker = agentrun.worker({ pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR, concurrency });
  worker.start();
  await worker.idle();
  // The worker's listener shares the store's one listening connection: once this resolves, it listens.
  await store.notifications?.listen(() => {});
  send({ kind: 'ready' });
  const stop = async () => {
    await worker.stop();
    await store.close();
    process.exit(0);
  };
  process.on('message', (message) => {
    if (message === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}
