import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { cell, table } from '../output.js';

/**
 * `agentrun harnesses list`: the agent CLIs the server's executor runs, which a run's
 * `config.harness.type` may name (docs/cli.md, "harnesses list").
 */

export const harnessesList: Command = {
  name: 'harnesses list',
  summary: 'List the agent CLIs the server runs (GET /agent/harnesses)',
  description:
    "A run's config.harness.type must be one of these types; oz, or no type, runs the one marked default. An executor that does not say what it runs (the reference server's demo executor) lists none.",
  examples: ['agentrun harnesses list', "agentrun harnesses list --json | jq -r '.[] | select(.default) | .type'"],
  async run(context) {
    const { harnesses } = await context.client().agents.harnesses();
    if (context.json) context.printJson(harnesses);
    else if (harnesses.length === 0) context.note('No harnesses listed.');
    else
      context.print(
        table(
          ['TYPE', 'VERSION', 'DEFAULT'],
          harnesses.map((h) => [h.type, cell(h.version), h.default ? 'yes' : 'no']),
        ),
      );
    return EXIT.ok;
  },
};
