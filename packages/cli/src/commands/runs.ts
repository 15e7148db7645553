import type { QueryOf } from '@agentrun/client';
import { RUN_SOURCES, RUN_STATES } from '@agentrun/core/api';
import type { Command, Context, OptionSpec } from '../command.js';
import { InvalidInputError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { printRun, printRuns } from '../run-view.js';
import { follow, WAIT_TIMEOUT_OPTION, wait, waitTimeoutMs } from '../run-watch.js';

/** `agentrun runs list|get|wait|follow|cancel|followup` (docs/cli.md, "runs …"; docs/run-api.md for the API). */

type ListQuery = Omit<QueryOf<'listRuns'>, 'cursor'>;

/**
 * Every filter of `GET /agent/runs` (core's ListRunsQuerySchema), as a flag and its query
 * parameter; the aliases `config_name` and `skill` are left out for their canonical names.
 */
const LIST_FILTERS = {
  state: ['state', { type: 'string', multiple: true, valueName: 'state', description: `${RUN_STATES.join(', ')}` }],
  name: ['name', { type: 'string', description: 'the config name' }],
  model: ['model_id', { type: 'string', valueName: 'id', description: 'the model ID' }],
  creator: ['creator', { type: 'string', valueName: 'uid', description: 'the creator UID' }],
  source: ['source', { type: 'string', valueName: 'source', description: RUN_SOURCES.join(', ') }],
  'created-after': ['created_after', { type: 'string', valueName: 'time', description: 'RFC 3339, e.g. 2026-01-31T00:00:00Z' }],
  'created-before': ['created_before', { type: 'string', valueName: 'time', description: 'RFC 3339' }],
  'updated-after': ['updated_after', { type: 'string', valueName: 'time', description: 'RFC 3339' }],
  environment: ['environment_id', { type: 'string', valueName: 'id', description: 'the environment ID' }],
  skill: ['skill_spec', { type: 'string', valueName: 'spec', description: 'the skill spec' }],
  query: ['q', { type: 'string', short: 'q', valueName: 'text', description: 'a substring of the title, prompt or skill spec' }],
  factory: ['factory_uid', { type: 'string', valueName: 'uid', description: 'runs of a factory' }],
  automation: ['automation_id', { type: 'string', valueName: 'id', description: 'runs an automation started' }],
  'artifact-type': [
    'artifact_type',
    { type: 'string', valueName: 'type', description: 'runs holding an artifact of this type: PLAN, PULL_REQUEST, SCREENSHOT or FILE' },
  ],
  schedule: ['schedule_id', { type: 'string', valueName: 'id', description: 'accepted for the published clients; matches nothing' }],
  'ancestor-run': ['ancestor_run_id', { type: 'string', valueName: 'id', description: 'runs started by this run, or by runs it started' }],
  'execution-location': ['execution_location', { type: 'string', valueName: 'where', description: 'REMOTE (every run) or LOCAL (none)' }],
  executor: ['executor', { type: 'string', valueName: 'uid', description: 'the UID that executed the run (its creator)' }],
  'sort-by': [
    'sort_by',
    {
      type: 'string',
      valueName: 'key',
      description: 'created_at (default: a walk that never skips a run), updated_at (may skip runs updated meanwhile), title or agent',
    },
  ],
  'sort-order': ['sort_order', { type: 'string', valueName: 'order', description: 'desc (default) or asc' }],
} as const satisfies Record<string, readonly [keyof ListQuery, OptionSpec]>;

const LIST_OPTIONS: Record<string, OptionSpec> = {
  ...Object.fromEntries(Object.entries(LIST_FILTERS).map(([flag, [, spec]]) => [flag, spec])),
  limit: { type: 'string', valueName: 'n', description: 'at most this many runs (default: all, page after page)' },
};

/** The API's page size when no limit is given: its largest, for the fewest requests. */
const PAGE_MAX = 500;

function listQuery(context: Context): { query: ListQuery; limit: number | undefined } {
  const query: Record<string, unknown> = {};
  for (const [flag, [param]] of Object.entries(LIST_FILTERS)) {
    if (flag === 'state') {
      const states = context.strings('state');
      const bad = states.find((s) => !(RUN_STATES as readonly string[]).includes(s));
      if (bad !== undefined) throw new UsageError(`--state ${bad}: must be one of ${RUN_STATES.join(', ')}`);
      if (states.length > 0) query.state = states;
      continue;
    }
    const value = context.string(flag);
    if (value !== undefined) query[param] = value;
  }
  if (query.source !== undefined && !(RUN_SOURCES as readonly string[]).includes(query.source as string)) {
    throw new UsageError(`--source ${query.source}: must be one of ${RUN_SOURCES.join(', ')}`);
  }
  const limitText = context.string('limit');
  let limit: number | undefined;
  if (limitText !== undefined) {
    if (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1)
      throw new UsageError(`--limit ${limitText}: must be a whole number of at least 1`);
    limit = Number(limitText);
  }
  query.limit = Math.min(limit ?? PAGE_MAX, PAGE_MAX);
  return { query: query as ListQuery, limit };
}

export const runsList: Command = {
  name: 'runs list',
  summary: 'List runs, newest first, with every filter of the API',
  description:
    'Without --limit every matching run is listed, page after page; --json prints them as one array. ' +
    'Newest created first: a run updated while the pages are read keeps its place, so none is skipped or repeated ' +
    '(with --sort-by updated_at such a run moves and may be skipped).',
  options: LIST_OPTIONS,
  examples: [
    'agentrun runs list --state FAILED --state ERROR --created-after 2026-01-01T00:00:00Z',
    "agentrun runs list --source WEBHOOK --factory fac_123 --limit 20 --json | jq -r '.[].run_id'",
  ],
  async run(context) {
    const { query, limit } = listQuery(context);
    const runs = [];
    for await (const run of context.client().runs.list(query)) {
      runs.push(run);
      if (limit !== undefined && runs.length >= limit) break;
    }
    if (context.json) context.printJson(runs);
    else printRuns(context, runs);
    return EXIT.ok;
  },
};

export const runsGet: Command = {
  name: 'runs get',
  summary: 'Show one run',
  arguments: ['<run-id>'],
  examples: ['agentrun runs get 0f8e…', 'agentrun runs get $RUN_ID --json | jq -r .state'],
  async run(context) {
    const run = await context.client().runs.get(context.positionals[0] as string);
    if (context.json) context.printJson(run);
    else printRun(context, run);
    return EXIT.ok;
  },
};

export const runsCancel: Command = {
  name: 'runs cancel',
  summary: 'Cancel a run that has not ended (a run that has ended is an API error, exit 3)',
  arguments: ['<run-id>'],
  examples: ['agentrun runs cancel $RUN_ID'],
  async run(context) {
    const runId = await context.client().runs.cancel(context.positionals[0] as string);
    // The API answers the run's ID as text; --json prints it as a JSON string.
    if (context.json) context.printJson(runId);
    else context.print(`Cancelled ${runId}`);
    return EXIT.ok;
  },
};

export const runsFollowup: Command = {
  name: 'runs followup',
  summary: 'Send a follow-up message to a run (a finished run is queued again)',
  arguments: ['<run-id>', '<message>'],
  examples: ['agentrun runs followup $RUN_ID "Also update the changelog"'],
  async run(context) {
    const [runId, message] = context.positionals as [string, string];
    if (message.trim() === '') throw new InvalidInputError('the follow-up message is empty');
    const answer = await context.client().runs.followup(runId, { message });
    if (context.json) context.printJson(answer);
    else context.print(`Follow-up sent to ${runId}`);
    return EXIT.ok;
  },
};

export const runsWait: Command = {
  name: 'runs wait',
  summary: 'Wait until a run ends, then print it (exit 0 when it SUCCEEDED, 5 otherwise)',
  arguments: ['<run-id>'],
  options: { timeout: { ...WAIT_TIMEOUT_OPTION, description: 'give up after this long (exit 4)' } },
  examples: ['agentrun runs wait $RUN_ID --timeout 600'],
  run: (context) => wait(context, context.positionals[0] as string, waitTimeoutMs(context)),
};

export const runsFollow: Command = {
  name: 'runs follow',
  summary: 'Print a run’s transcript, from its start and then live, until it ends (exit 0 or 5)',
  description: '--json prints one event per line (JSON Lines), as the API sends them.',
  arguments: ['<run-id>'],
  examples: ['agentrun runs follow $RUN_ID'],
  run: (context) => follow(context, context.positionals[0] as string),
};
