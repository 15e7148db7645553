import type { BodyOf } from '@agentrun/client';
import { RunAgentRequestSchema } from '@agentrun/core/api';
import * as v from 'valibot';
import { type Attachment, readAttachment } from '../attachments.js';
import type { Command, Context } from '../command.js';
import { InvalidInputError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { readDataFile } from '../files.js';
import { describeIssues } from '../issues.js';
import { follow, WAIT_TIMEOUT_OPTION, wait, waitTimeoutMs } from '../run-watch.js';

/** `agentrun run`: start a run (`POST /agent/run`), and with --wait or --follow stay until it ends (docs/cli.md, "run"). */

type RunBody = BodyOf<'runAgent'>;

export const run: Command = {
  name: 'run',
  summary: 'Start a run; --wait until it ends, or --follow its transcript live',
  description: [
    'The body is checked here before it is sent (a bad one exits 2). With --wait or --follow the exit code',
    'is the run’s: 0 when it SUCCEEDED, 5 when it ended otherwise (FAILED, ERROR, CANCELLED).',
    '--mcp takes a JSON or YAML file of MCP servers: a map of name to server ({ "command": … } or',
    '{ "url": … }), or that map under "mcpServers" or "mcp_servers".',
  ].join('\n'),
  arguments: ['[prompt]'],
  options: {
    name: { type: 'string', description: 'the config name (config.name)' },
    skill: { type: 'string', valueName: 'spec', description: 'a skill to run (the prompt is then optional)' },
    model: { type: 'string', valueName: 'id', description: 'the model (config.model_id)' },
    environment: { type: 'string', valueName: 'id', description: 'the environment (config.environment_id)' },
    mcp: { type: 'string', valueName: 'file', description: 'MCP servers, a JSON or YAML file (config.mcp_servers)' },
    title: { type: 'string', description: 'the run’s title' },
    parent: {
      type: 'string',
      valueName: 'run-id',
      description: 'the run that starts this one, of your team (parent_run_id; an agent passes "$AGENTRUN_RUN_ID")',
    },
    attach: { type: 'string', multiple: true, valueName: 'file', description: 'a file sent with the run (at most 5, 5 MB each)' },
    'idempotency-key': {
      type: 'string',
      valueName: 'key',
      description: 'the same key with the same body starts one run, however often sent',
    },
    wait: { type: 'boolean', description: 'wait until the run ends, then print it' },
    follow: { type: 'boolean', description: 'print the run’s transcript live until it ends (--json: one event per line)' },
    timeout: WAIT_TIMEOUT_OPTION,
  },
  examples: [
    'agentrun run "Fix the flaky test in auth.test.ts" --wait',
    'agentrun run "Summarise this log" --attach build.log --title "CI failure" --follow',
    'agentrun run --skill acme/triage --mcp mcp.yaml --json',
    'agentrun run "Review the migration" --parent "$AGENTRUN_RUN_ID"   # from an agent: a run of its run',
  ],
  async run(context) {
    const body = requestBody(context);
    const timeoutMs = waitTimeout(context);
    const idempotencyKey = context.string('idempotency-key');
    const client = context.client();
    const created = await client.runs.create(body, idempotencyKey ? { idempotencyKey } : {});
    if (context.flag('follow')) return follow(context, created.run_id);
    if (context.flag('wait')) return wait(context, created.run_id, timeoutMs);
    if (context.json) context.printJson(created);
    else context.print(`Started run ${created.run_id} (${created.state})`);
    return EXIT.ok;
  },
};

function requestBody(context: Context): RunBody {
  const prompt = context.positionals[0];
  const config: NonNullable<RunBody['config']> = {};
  const name = context.string('name');
  const model = context.string('model');
  const environment = context.string('environment');
  const mcp = context.string('mcp');
  if (name !== undefined) config.name = name;
  if (model !== undefined) config.model_id = model;
  if (environment !== undefined) config.environment_id = environment;
  if (mcp !== undefined) config.mcp_servers = mcpServers(mcp);
  const attachments: Attachment[] = context.strings('attach').map(readAttachment);
  const skill = context.string('skill');
  const title = context.string('title');
  const parent = context.string('parent');
  const body: RunBody = {
    // Runs this command starts say so (docs/run-api.md, "Start a run": `source`, API or CLI).
    source: 'CLI',
    ...(prompt !== undefined ? { prompt } : {}),
    ...(skill !== undefined ? { skill } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(parent !== undefined ? { parent_run_id: parent } : {}),
    ...(Object.keys(config).length > 0 ? { config } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
  // The server's own schema, so a bad request is a usage error (exit 2) naming the field, before any request.
  const checked = v.safeParse(RunAgentRequestSchema, body, { abortPipeEarly: true });
  if (!checked.success) throw new InvalidInputError(`invalid run: ${describeIssues(checked.issues)}`);
  return body;
}

/** The servers map of an --mcp file, in any of the shapes help names. */
function mcpServers(path: string): NonNullable<RunBody['config']>['mcp_servers'] {
  const data = readDataFile(path, 'the MCP file');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new InvalidInputError(`the MCP file ${path} must hold an object of MCP servers by name`);
  }
  const record = data as Record<string, unknown>;
  const servers = record.mcpServers ?? record.mcp_servers ?? record;
  return servers as NonNullable<RunBody['config']>['mcp_servers'];
}

function waitTimeout(context: Context): number | undefined {
  if (context.string('timeout') !== undefined && (!context.flag('wait') || context.flag('follow'))) {
    throw new UsageError('--timeout goes with --wait (not --follow)');
  }
  return waitTimeoutMs(context);
}
