import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';

/** `agentrun factory list|create` (docs/management-api.md, "Factories"). */

export const factoryList: Command = {
  name: 'factory list',
  summary: 'List the team’s factories',
  async run(context) {
    const { factories } = await context.client().factories.list();
    if (context.json) context.printJson(factories);
    else if (factories.length === 0) context.note('No factories.');
    else
      context.print(
        table(
          ['UID', 'NAME', 'FOREMAN', 'CREATED'],
          factories.map((f) => [f.uid, cell(f.name), cell(f.foreman_agent_identity_uid), f.created_at]),
        ),
      );
    return EXIT.ok;
  },
};

export const factoryCreate: Command = {
  name: 'factory create',
  summary: 'Create a factory (it owns webhooks and automations)',
  arguments: ['<name>'],
  options: {
    foreman: { type: 'string', valueName: 'identity-uid', description: 'the agent identity whose runs are this factory’s runs' },
  },
  examples: ['agentrun factory create "Acme CI"', 'FACTORY=$(agentrun factory create Acme --json | jq -r .uid)'],
  async run(context) {
    const foreman = context.string('foreman');
    const factory = await context.client().factories.create({
      name: context.positionals[0] as string,
      ...(foreman !== undefined ? { foreman_agent_identity_uid: foreman } : {}),
    });
    if (context.json) context.printJson(factory);
    else
      context.print(
        details([
          ['uid', factory.uid],
          ['name', factory.name],
          ['foreman', factory.foreman_agent_identity_uid],
          ['created_at', factory.created_at],
        ]),
      );
    return EXIT.ok;
  },
};
