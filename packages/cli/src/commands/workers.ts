import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../output.js';

/**
 * `agentrun workers`: the live workers, their hosts and what they hold (docs/cli.md, "workers";
 * docs/operations.md, "Worker hosts").
 */
export const workersList: Command = {
  name: 'workers',
  summary: 'List the live workers and the runs they hold (GET /workers)',
  description:
    "Each live worker: its host (a run's config.worker_host sends it there), whether it also takes runs that name no host, how many runs it holds of its capacity, and which of them are your team's. A worker that stopped heartbeating for 15 s is not listed.",
  examples: ['agentrun workers', 'agentrun workers --json | jq -r \'.[] | select(.host == "gpu-1") | .id\''],
  async run(context) {
    const { workers } = await context.client().workers.list();
    if (context.json) context.printJson(workers);
    else if (workers.length === 0) context.note('No live workers.');
    else
      context.print(
        table(
          ['HOST', 'ID', 'UNROUTED', 'HELD', 'EXECUTOR', 'VERSION', 'LAST SEEN', 'YOUR RUNS'],
          workers.map((w) => [
            w.host,
            w.id,
            w.unrouted ? 'yes' : 'no',
            `${w.runs_held}/${w.capacity}`,
            w.executor,
            w.version,
            w.last_seen_at,
            w.runs.length === 0 ? '-' : w.runs.join(','),
          ]),
        ),
      );
    return EXIT.ok;
  },
};
