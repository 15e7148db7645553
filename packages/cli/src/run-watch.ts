import { type ResponseOf, WaitTimeoutError } from '@agentrun/client';
import { checkRunEvent } from './answer-check.js';
import { PLAN_RULE, planTextUid } from './artifact-lines.js';
import type { Context, OptionSpec } from './command.js';
import { CliError, UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { DEFAULT_WIDTH, formatEvent } from './run-events-view.js';
import { printRun } from './run-view.js';
import { startSpinner } from './spinner.js';
import { terminalJson } from './terminal-text.js';

/**
 * Staying with a run until it ends (`run --wait/--follow`, `runs wait/follow`; docs/cli.md):
 * the exit code is the run's, 0 when it SUCCEEDED and 5 otherwise.
 */

/** Poll until the run ends (client.runs.wait), a spinner on a terminal's stderr meanwhile. */
export const WAIT_TIMEOUT_OPTION: OptionSpec = {
  type: 'string',
  valueName: 'seconds',
  description: 'with --wait: give up after this long (exit 4)',
};

/** `--timeout <seconds>` in milliseconds, when given. */
export function waitTimeoutMs(context: Context): number | undefined {
  const text = context.string('timeout');
  if (text === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(text) || Number(text) <= 0) throw new UsageError(`--timeout ${text}: must be a number of seconds above 0`);
  return Number(text) * 1000;
}

export async function wait(context: Context, runId: string, timeoutMs: number | undefined): Promise<number> {
  const spinner = startSpinner(context.io, `Run ${runId}: waiting for it to finish`);
  let finished: ResponseOf<'getRun'>;
  try {
    finished = await context.client().runs.wait(runId, timeoutMs !== undefined ? { timeoutMs } : {});
  } catch (error) {
    if (error instanceof WaitTimeoutError) {
      throw new CliError(
        `gave up waiting for run ${runId} after ${timeoutMs! / 1000} s${error.lastState ? `; it is ${error.lastState}` : ''}`,
        EXIT.network,
      );
    }
    throw error;
  } finally {
    spinner.stop();
  }
  if (context.json) context.printJson(finished);
  else printRun(context, finished);
  return outcome(context, finished);
}

/** Print the transcript as it happens (client.runs.stream), then answer by the run's final state. */
export async function follow(context: Context, runId: string): Promise<number> {
  const client = context.client();
  context.note(`Run ${runId}: following its transcript`);
  const { isTTY, columns } = context.io.stdout;
  const view = { width: isTTY && columns ? columns : DEFAULT_WIDTH, toolNames: new Map<string, string>() };
  for await (const event of client.runs.stream(runId)) {
    checkRunEvent(event);
    if (context.json) context.io.stdout.write(`${terminalJson(event)}\n`);
    else {
      context.print(formatEvent(event, view));
      const plan = event.type === 'artifact' ? planTextUid(event.data) : undefined;
      if (plan) context.print(await planText(context, plan));
    }
  }
  // The stream ends when the run does; the run itself says how.
  return outcome(context, await client.runs.get(runId));
}

/** The longest plan printed; a longer one is there to download. */
const MAX_PLAN_BYTES = 256 * 1024;

/** A plan's Markdown, between rules, as text (context.print keeps control characters out). */
async function planText(context: Context, uid: string): Promise<string> {
  try {
    const bytes = await context.client().artifacts.download(uid);
    if (bytes.byteLength > MAX_PLAN_BYTES) return `  (the plan is ${bytes.byteLength} bytes: download it to read it)`;
    return [PLAN_RULE, new TextDecoder().decode(bytes).replace(/\n+$/, ''), PLAN_RULE].join('\n');
  } catch (error) {
    return `  (the plan's text could not be read: ${error instanceof Error ? error.message : String(error)})`;
  }
}

function outcome(context: Context, finished: ResponseOf<'getRun'>): number {
  if (finished.state === 'SUCCEEDED') return EXIT.ok;
  context.note(`Run ${finished.run_id} ended ${finished.state}${finished.status_message ? `: ${finished.status_message.message}` : ''}`);
  return EXIT.runNotSucceeded;
}
