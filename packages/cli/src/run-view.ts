import type { ResponseOf } from '@agentrun/client';
import type { Context } from './command.js';
import { cell, details, table } from './output.js';

/** How runs print for a human: one per row in lists, every field that is set for one run. */

type RunItem = ResponseOf<'getRun'>;

export function printRuns(context: Context, runs: readonly RunItem[]): void {
  if (runs.length === 0) {
    context.note('No runs.');
    return;
  }
  context.print(
    table(
      ['RUN ID', 'STATE', 'TITLE', 'SOURCE', 'CREATED'],
      runs.map((r) => [r.run_id, r.state, cell(r.title, 48), cell(r.source), r.created_at]),
    ),
  );
}

export function printRun(context: Context, run: RunItem): void {
  context.print(
    details([
      ['run_id', run.run_id],
      ['state', run.state],
      ['title', cell(run.title, 200)],
      ['prompt', cell(run.prompt, 200)],
      ['status', run.status_message ? cell(run.status_message.message, 200) : undefined],
      ['error_code', run.status_message?.error_code],
      ['source', run.source],
      ['creator', run.creator ? (run.creator.display_name ?? run.creator.uid) : undefined],
      ['skill', run.agent_skill?.spec],
      ['model', run.agent_config?.model_id],
      ['session', run.session_link],
      ['parent_run_id', run.parent_run_id],
      ['usage', run.request_usage ? usageText(run.request_usage) : undefined],
      ['created_at', run.created_at],
      ['started_at', run.started_at],
      ['updated_at', run.updated_at],
      ['attachments', run.attachments?.map((a) => a.file_name).join(', ')],
    ]),
  );
}

/** `request_usage` on one line: each reported amount by name (`compute_cost 1.5, inference_cost 2`). */
function usageText(usage: NonNullable<RunItem['request_usage']>): string {
  return Object.entries(usage)
    .map(([name, amount]) => `${name} ${amount}`)
    .join(', ');
}
