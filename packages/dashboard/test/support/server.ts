import {
  type CallbackOptions,
  demoExecutor,
  type Executor,
  type HarnessInfo,
  type RepositoryReader,
  type TranscriptEntry,
} from '@agentrun/core';
import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { ensureAppBuilt } from '../../scripts/build-app.js';

/**
 * The reference server the browser tests drive, with the dashboard at /dashboard. The app is
 * built first when dist/app is missing or older than its sources, so `npm test` needs no build.
 *
 * Its executor finishes a run in `finishMs`, except a run whose prompt says "hold", which works
 * until it is cancelled (for the Cancel test), and a run whose prompt says "artifacts", which
 * reports a pull request, a screenshot (a 1×1 PNG) and a file, then succeeds, and a run whose
 * prompt says "script", which records `script` (`context.record`) and then works until cancelled.
 * Given `harnesses`, the executor says it runs those (GET /agent/harnesses); else it says nothing.
 * Given `executor`, that runs every run instead.
 */
/** A 1×1 PNG: a screenshot the browser can draw. */
const ONE_PIXEL_PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

export async function startDashboardServer(
  options: {
    finishMs?: number;
    repositories?: RepositoryReader;
    callbacks?: CallbackOptions;
    script?: readonly TranscriptEntry[];
    harnesses?: readonly HarnessInfo[];
    executor?: Executor;
  } = {},
): Promise<ReferenceServer> {
  await ensureAppBuilt();
  const demo = demoExecutor({ durationMs: options.finishMs ?? 1500 });
  const listed = options.harnesses;
  const executor: Executor = {
    async execute(input, context) {
      if (/artifacts/i.test(input.run.prompt)) {
        await context.reportArtifact?.({ type: 'PULL_REQUEST', url: 'https://github.com/acme/app/pull/9', branch: 'fix/flaky' });
        await context.reportArtifact?.({ type: 'SCREENSHOT', filepath: 'home.png', content: ONE_PIXEL_PNG, description: 'The home page' });
        await context.reportArtifact?.({
          type: 'FILE',
          filepath: 'out/report.txt',
          content: new TextEncoder().encode('report'),
          content_type: 'text/plain',
        });
        return { status: 'succeeded', message: 'Reported artifacts' };
      }
      const scripted = /script/i.test(input.run.prompt);
      if (scripted) await context.record?.(options.script ?? []);
      if (!scripted && !/hold/i.test(input.run.prompt)) return demo.execute(input, context);
      await context.report({ message: 'Holding until cancelled' });
      await new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
      throw new Error('unreachable');
    },
    ...(listed ? { harnesses: async () => listed } : {}),
  };
  return startReferenceServer({
    port: 0,
    secretKey: new Uint8Array(32).fill(9),
    executor: options.executor ?? executor,
    pollIntervalMs: 100,
    ...(options.repositories ? { repositories: options.repositories } : {}),
    ...(options.callbacks ? { callbacks: options.callbacks } : {}),
  });
}
