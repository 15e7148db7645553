import { type CallbackOptions, demoExecutor, type Executor, type RepositoryReader } from '@agentrun/core';
import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { ensureAppBuilt } from '../../scripts/build-app.js';

/**
 * The reference server the browser tests drive, with the dashboard at /dashboard. The app is
 * built first when dist/app is missing or older than its sources, so `npm test` needs no build.
 *
 * Its executor finishes a run in `finishMs`, except a run whose prompt says "hold", which works
 * until it is cancelled (for the Cancel test).
 */
export async function startDashboardServer(
  options: { finishMs?: number; repositories?: RepositoryReader; callbacks?: CallbackOptions } = {},
): Promise<ReferenceServer> {
  await ensureAppBuilt();
  const demo = demoExecutor({ durationMs: options.finishMs ?? 1500 });
  const executor: Executor = {
    async execute(input, context) {
      if (!/hold/i.test(input.run.prompt)) return demo.execute(input, context);
      await context.report({ message: 'Holding until cancelled' });
      await new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
      throw new Error('unreachable');
    },
  };
  return startReferenceServer({
    port: 0,
    secretKey: new Uint8Array(32).fill(9),
    executor,
    pollIntervalMs: 100,
    ...(options.repositories ? { repositories: options.repositories } : {}),
    ...(options.callbacks ? { callbacks: options.callbacks } : {}),
  });
}
