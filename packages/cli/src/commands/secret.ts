import type { Command, Context, OptionSpec } from '../command.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, table } from '../output.js';
import { readSecretValue } from '../secret-input.js';

/**
 * `agentrun secret create|update|list|delete`: the team's secrets (docs/management-api.md, "Team
 * secrets"). A value is read from stdin or a hidden prompt, never from argv, and never printed
 * (secret-input.ts). The API's PUT creates or replaces, so create and update look first and refuse
 * to do the other's job.
 */

/** Team secrets are the only kind; the flag lets a script say so, and is the default. */
const TEAM: Record<string, OptionSpec> = {
  team: { type: 'boolean', description: 'a team secret (the only kind, so the default)' },
};

const VALUE_HELP =
  'The value is read from stdin when it is not a terminal (one trailing newline is removed), else\nfrom a prompt that does not echo. It is never an argument, so it stays out of shell history.';

async function exists(context: Context, name: string): Promise<boolean> {
  const { secrets } = await context.client().secrets.list();
  return secrets.some((s) => s.name === name);
}

async function put(context: Context, mode: 'create' | 'update'): Promise<number> {
  const name = context.positionals[0] as string;
  const found = await exists(context, name);
  if (mode === 'create' && found)
    throw new CliError(`the secret ${name} already exists; to replace its value: agentrun secret update ${name}`, EXIT.api);
  if (mode === 'update' && !found) throw new CliError(`there is no secret ${name}; to create it: agentrun secret create ${name}`, EXIT.api);
  const value = await readSecretValue(context.io, `Value of ${name} (not shown): `);
  const saved = await context.client().secrets.put(name, { value });
  if (context.json) context.printJson(saved);
  else context.print(`${mode === 'create' ? 'Created' : 'Updated'} secret ${saved.name}`);
  return EXIT.ok;
}

export const secretCreate: Command = {
  name: 'secret create',
  summary: 'Create a team secret (fails when the name exists)',
  description: VALUE_HELP,
  arguments: ['<name>'],
  options: TEAM,
  examples: [
    'printf %s "$GITHUB_WEBHOOK_SECRET" | agentrun secret create github-webhook',
    'agentrun secret create slack-token   # prompts',
  ],
  run: (context) => put(context, 'create'),
};

export const secretUpdate: Command = {
  name: 'secret update',
  summary: 'Replace the value of a team secret (fails when there is none)',
  description: VALUE_HELP,
  arguments: ['<name>'],
  options: TEAM,
  examples: ['agentrun secret update github-webhook < new-secret.txt'],
  run: (context) => put(context, 'update'),
};

export const secretList: Command = {
  name: 'secret list',
  summary: 'List the team’s secrets (names and times; values are never shown)',
  options: TEAM,
  async run(context) {
    const { secrets } = await context.client().secrets.list();
    if (context.json) context.printJson(secrets);
    else if (secrets.length === 0) context.note('No secrets.');
    else
      context.print(
        table(
          ['NAME', 'CREATED', 'UPDATED'],
          secrets.map((s) => [cell(s.name), s.created_at, s.updated_at]),
        ),
      );
    return EXIT.ok;
  },
};

export const secretDelete: Command = {
  name: 'secret delete',
  summary: 'Delete a team secret (refused while a live webhook uses it)',
  arguments: ['<name>'],
  options: TEAM,
  async run(context) {
    const name = context.positionals[0] as string;
    await context.client().secrets.delete(name);
    if (context.json) context.printJson({ name, deleted: true });
    else context.print(`Deleted secret ${name}`);
    return EXIT.ok;
  },
};
