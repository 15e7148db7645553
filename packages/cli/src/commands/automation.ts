import type { AgentRunClient, BodyOf, ResponseOf } from '@agentrun/client';
import type { Command, Context, OptionSpec } from '../command.js';
import { readAutomation } from '../definitions/automation-file.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { readDataFile } from '../files.js';
import { cell, details, table } from '../output.js';

/**
 * `agentrun automation create|list|show|enable|disable` (docs/management-api.md, "Automations";
 * docs/cli.md, "Automations"). `create` reads an automation file, the one a definitions directory
 * holds (docs/definitions.md), so the same file can later move into a directory `apply` keeps.
 */

type Automation = ResponseOf<'getAutomation'>;
type Webhooks = ResponseOf<'listWebhooks'>['webhooks'];

const FACTORY: Record<string, OptionSpec> = {
  factory: { type: 'string', valueName: 'uid', description: 'the factory (required)' },
};

/** The factory's live webhooks, to show a trigger's UIDs by name. */
const webhooksOf = async (client: AgentRunClient, factory: string): Promise<Webhooks> => (await client.webhooks.list(factory)).webhooks;

/** A trigger's webhooks by name where the factory has them (a deleted one by its UID). */
const webhookNames = (ids: readonly string[], webhooks: Webhooks): string =>
  ids.map((uid) => webhooks.find((w) => w.uid === uid)?.name ?? uid).join(', ');

function show(context: Context, a: Automation, webhooks: Webhooks): void {
  if (context.json) {
    context.printJson(a);
    return;
  }
  context.print(
    details([
      ['id', a.id],
      ['name', a.name],
      ['enabled', a.enabled ? 'yes' : 'no'],
      ['config', a.config ? cell(JSON.stringify(a.config), 120) : undefined],
      ...a.triggers.map((t, i): [string, string] => [
        `triggers.${i}`,
        cell(
          `${webhookNames(t.filter.webhook_ids, webhooks)}${t.filter.payload ? `; payload ${JSON.stringify(t.filter.payload)}` : ''}`,
          120,
        ),
      ]),
      ['created_at', a.created_at],
      ['updated_at', a.updated_at],
    ]),
  );
  context.print(`\n${a.prompt}`);
}

export const automationList: Command = {
  name: 'automation list',
  summary: 'List a factory’s automations',
  options: FACTORY,
  async run(context) {
    const factory = context.requireString('factory');
    const client = context.client();
    const [{ automations }, webhooks] = await Promise.all([client.automations.list(factory), webhooksOf(client, factory)]);
    if (context.json) context.printJson(automations);
    else if (automations.length === 0) context.note('No automations.');
    else
      context.print(
        table(
          ['ID', 'NAME', 'ENABLED', 'WEBHOOKS', 'UPDATED'],
          automations.map((a) => [
            a.id,
            cell(a.name, 40),
            a.enabled ? 'yes' : 'no',
            cell(webhookNames([...new Set(a.triggers.flatMap((t) => t.filter.webhook_ids))], webhooks), 40),
            a.updated_at,
          ]),
        ),
      );
    return EXIT.ok;
  },
};

export const automationShow: Command = {
  name: 'automation show',
  summary: 'Show an automation: its triggers (webhooks and payload filter), config and prompt',
  arguments: ['<automation-id>'],
  options: FACTORY,
  async run(context) {
    const factory = context.requireString('factory');
    const client = context.client();
    const [automation, webhooks] = await Promise.all([
      client.automations.get(factory, context.positionals[0] as string),
      webhooksOf(client, factory),
    ]);
    show(context, automation, webhooks);
    return EXIT.ok;
  },
};

export const automationCreate: Command = {
  name: 'automation create',
  summary: 'Create an automation from an automation file (prompt, enabled, config, triggers)',
  description: [
    'The file is an automation file as a definitions directory holds it (docs/definitions.md,',
    '"automations/<name>.yaml"), YAML or JSON; its name is the file name unless --name gives one. A',
    'trigger names webhooks by name (`webhooks: [github]`), looked up among the factory’s webhooks, or by',
    'UID in the API’s shape (`filter: { webhook_ids: [...] }`). The file and its payload filters are',
    'checked before any request (exit 2); a webhook name the factory lacks exits 3.',
  ].join('\n'),
  arguments: ['<file>'],
  options: { ...FACTORY, name: { type: 'string', description: 'its name (default: the file name without .yaml, .yml or .json)' } },
  examples: [
    'agentrun automation create automations/triage-issues.yaml --factory $FACTORY',
    'agentrun automation create review.json --factory $FACTORY --name "Review PRs to main"',
  ],
  async run(context) {
    const factory = context.requireString('factory');
    const path = context.positionals[0] as string;
    const read = readAutomation(readDataFile(path, 'the automation file'), path);
    const client = context.client();
    const webhooks = read.triggers.some((t) => t.byName) ? await webhooksOf(client, factory) : [];
    const body: BodyOf<'createAutomation'> = {
      name: context.string('name') ?? read.name,
      prompt: read.automation.prompt,
      enabled: read.automation.enabled,
      ...(read.automation.config ? { config: read.automation.config } : {}),
      triggers: read.triggers.map((t) => ({
        provider: 'webhook',
        event: 'received',
        filter: {
          webhook_ids: t.byName ? t.webhooks.map((name, k) => uidOf(name, `${t.webhooksPath}.${k}`, webhooks, factory)) : [...t.webhooks],
          ...(t.filter ? { payload: t.filter } : {}),
        },
      })),
    };
    show(context, await client.automations.create(factory, body), webhooks);
    return EXIT.ok;
  },
};

/** The UID of the factory's one webhook named `name`: none, or two of that name, is a check against the API that failed (exit 3). */
function uidOf(name: string, path: string, webhooks: Webhooks, factory: string): string {
  const named = webhooks.filter((w) => w.name === name);
  if (named.length === 1) return (named[0] as Webhooks[number]).uid;
  throw new CliError(
    named.length === 0
      ? `${path}: factory ${factory} has no webhook named ${name} (agentrun webhook list --factory ${factory})`
      : `${path}: factory ${factory} has ${named.length} webhooks named ${name}: name one by UID instead (filter: { webhook_ids: [${named.map((w) => w.uid).join(', ')}] })`,
    EXIT.api,
  );
}

const toggle = (enabled: boolean): Command => ({
  name: enabled ? 'automation enable' : 'automation disable',
  summary: enabled ? 'Enable an automation' : 'Disable an automation (it starts no run until enabled)',
  arguments: ['<automation-id>'],
  options: FACTORY,
  async run(context) {
    const automation = await context
      .client()
      .automations.update(context.requireString('factory'), context.positionals[0] as string, { enabled });
    if (context.json) context.printJson(automation);
    else context.print(`${enabled ? 'Enabled' : 'Disabled'} automation ${automation.id} (${automation.name})`);
    return EXIT.ok;
  },
});

export const automationEnable: Command = toggle(true);
export const automationDisable: Command = toggle(false);
