import type { ExecutionContext, ExecutionInput, ExecutionOutcome, Executor } from './executor.js';

export interface DemoExecutorOptions {
  /** Total time a run works, split over its steps. Default 3000 ms. */
  durationMs?: number;
}

const STEPS = ['Reading the task', 'Working on it', 'Wrapping up'] as const;
const DEMO_PLAN = '# Demo plan\n\n1. Read the task\n2. Work on it\n3. Wrap up\n';
const DEMO_REPORT = 'The demo agent did its three steps.\n';

/**
 * A stand-in agent for demos and tests: works through three steps, reporting each in
 * `status_message`, then succeeds, unless the latest instruction (the last follow-up, else the
 * prompt) contains the word "fail", in which case it fails. An instruction containing "artifact"
 * makes it report two (docs/artifacts.md): a plan and a small text file.
 */
export function demoExecutor(options: DemoExecutorOptions = {}): Executor {
  const stepMs = (options.durationMs ?? 3000) / STEPS.length;
  return {
    async execute(input: ExecutionInput, ctx: ExecutionContext): Promise<ExecutionOutcome> {
      const latest = input.followups.at(-1)?.message ?? input.run.prompt;
      for (const [i, step] of STEPS.entries()) {
        await ctx.report({ message: `${step} (${i + 1}/${STEPS.length})` });
        await sleep(stepMs, ctx.signal);
      }
      if (/artifact/i.test(latest)) {
        await ctx.reportArtifact?.({ type: 'PLAN', title: 'Demo plan', content: DEMO_PLAN });
        await ctx.reportArtifact?.({
          type: 'FILE',
          filepath: 'demo/report.txt',
          content: new TextEncoder().encode(DEMO_REPORT),
          content_type: 'text/plain',
        });
      }
      if (/fail/i.test(latest)) {
        return { status: 'failed', message: 'The demo agent was asked to fail', error_code: 'demo_failure' };
      }
      return { status: 'succeeded', message: 'Done' };
    },
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
