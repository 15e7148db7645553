import type { AgentOutput } from './agent-output.js';
import type { RunStops } from './run-stops.js';
import type { AgentProcess } from './spawn-agent.js';

/** How much of stderr's end a failed run's message carries. */
const STDERR_TAIL_BYTES = 2048;

/** A running agent wired to its run: see `pipeAgent`. */
export interface PipedAgent {
  /**
   * Once the agent exited (`onExit` then, before anything else: it reads no more input), every
   * descendant it left ended, its output written and the disk checked a last time: its exit code
   * (null after a signal) and the end of its stderr.
   */
  settle(onExit?: () => void): Promise<{ code: number | null; stderrTail: string }>;
  /** No more watching: the stop listener and the watchdog. */
  release(): void;
}

/**
 * One wiring for every agent a run starts, its command's or a harness's CLI: stdout read into its
 * output (agent-output.ts) as fast as the store takes it, the end of stderr kept for the run's
 * message, and a stop (cancel, timeout, disk cap) ending it without waiting for queued lines
 * (docs/executors.md, "Output budget").
 */
export function pipeAgent(agent: AgentProcess, output: AgentOutput, stops: RunStops): PipedAgent {
  const { child } = agent;
  const offStop = stops.on((why) => {
    output.stop(why.reason);
    agent.terminate();
  });
  let stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => output.write(chunk));
  child.stdout?.on('end', () => output.end());
  return {
    async settle(onExit) {
      const code = await agent.exited;
      onExit?.();
      // Every descendant it left goes too (spawn-agent.ts). Its output already in the pipes is
      // still read to the end, but a pipe some escaped process holds open is not waited on.
      await agent.finish();
      await output.close();
      // What the agent wrote in its last moments, before the next periodic check would have seen it.
      await stops.checkDisk();
      return { code, stderrTail: stderrTail.trim() };
    },
    release() {
      offStop();
      agent.release();
    },
  };
}
