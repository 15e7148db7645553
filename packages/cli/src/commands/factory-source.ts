import type { SourceApplyView, SourceView } from '@agentrun/core/api';
import type { Command, Context } from '../command.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';

/**
 * `agentrun factory source set|show|clear|sync` and `agentrun factory applies`: a factory applied
 * from a repository's branch (docs/cli.md, "Factories from a repository"; docs/repositories.md).
 */

const factoryOption = {
  factory: { type: 'string', valueName: 'uid', description: 'the factory (required)' },
} as const;

export const factorySourceSet: Command = {
  name: 'factory source set',
  summary: 'Apply a factory from a registered repository’s branch (each new commit applies once)',
  arguments: ['<owner/repo>'],
  options: {
    ...factoryOption,
    branch: { type: 'string', valueName: 'branch', description: 'the production branch (default: the repository’s default branch)' },
    dir: { type: 'string', valueName: 'path', description: 'the definitions directory in the repository (default: its root)' },
    'push-scheme': { type: 'string', valueName: 'scheme', description: 'verify push notifications: github, gitlab or standard-webhooks' },
    'push-secret': { type: 'string', valueName: 'name', description: 'the team secret push notifications are signed with' },
  },
  examples: [
    'agentrun factory source set acme/factory --factory "$FACTORY" --dir agentrun --push-scheme github --push-secret factory-push',
  ],
  async run(context) {
    const factoryUid = context.requireString('factory');
    const branch = context.string('branch');
    const scheme = context.string('push-scheme');
    const secret = context.string('push-secret');
    const source = await context.client().sources.set(factoryUid, {
      repository: context.positionals[0] as string,
      ...(branch !== undefined ? { branch } : {}),
      directory: context.string('dir') ?? '',
      ...(scheme !== undefined ? { push_scheme: scheme as 'github' } : {}),
      ...(secret !== undefined ? { push_secret: secret } : {}),
    });
    printSource(context, source);
    return EXIT.ok;
  },
};

export const factorySourceShow: Command = {
  name: 'factory source show',
  summary: 'Show a factory’s source, its last apply and its last applied commit',
  options: factoryOption,
  async run(context) {
    printSource(context, await context.client().sources.get(context.requireString('factory')));
    return EXIT.ok;
  },
};

export const factorySourceClear: Command = {
  name: 'factory source clear',
  summary: 'Stop applying a factory from its repository (it keeps what was applied)',
  options: factoryOption,
  async run(context) {
    await context.client().sources.clear(context.requireString('factory'));
    context.note('Source cleared.');
    return EXIT.ok;
  },
};

export const factorySourceSync: Command = {
  name: 'factory source sync',
  summary: 'Fetch the branch now and apply its head commit (once: an applied or failed commit is not applied again)',
  description: 'Exits 3 when the branch head failed to apply (now or before); its errors are printed at file:line.',
  options: factoryOption,
  async run(context) {
    const result = await context.client().sources.sync(context.requireString('factory'));
    if (context.json) context.printJson(result);
    else {
      const said = {
        applied: 'applied',
        failed: 'failed to apply (nothing changed)',
        already: `already ${result.apply?.status ?? 'seen'}`,
        superseded: 'not applied: a sync that fetched the branch later applied what it found',
        busy: 'not applied: another commit of this factory is being applied; try again',
      }[result.outcome];
      context.print(
        `Commit ${result.commit}: ${said}${result.apply?.version != null ? ` (definitions version ${result.apply.version})` : ''}`,
      );
      if (result.apply) printErrors(context, result.apply);
    }
    // The branch head did not apply: this sync failed it, or an earlier one did.
    if (result.apply?.status === 'failed') throw new CliError('the commit was not applied', EXIT.api);
    return EXIT.ok;
  },
};

export const factoryApplies: Command = {
  name: 'factory applies',
  summary: 'List the commits applied from a factory’s source, newest first',
  options: {
    ...factoryOption,
    limit: { type: 'string', valueName: 'n', description: 'how many (default 20, at most 100)' },
  },
  async run(context) {
    const limit = context.string('limit');
    const page = await context
      .client()
      .sources.appliesPage(context.requireString('factory'), limit !== undefined ? { limit: Number(limit) } : {});
    if (context.json) context.printJson(page.applies);
    else if (page.applies.length === 0) context.note('No applies yet.');
    else
      context.print(
        table(
          ['COMMIT', 'STATUS', 'TRIGGER', 'VERSION', 'ERRORS', 'STARTED'],
          page.applies.map((a) => [
            a.commit.slice(0, 12),
            a.status,
            a.triggered_by,
            cell(a.version),
            String(a.errors.length),
            a.started_at,
          ]),
        ),
      );
    return EXIT.ok;
  },
};

function printSource(context: Context, s: SourceView): void {
  if (context.json) {
    context.printJson(s);
    return;
  }
  const outcome = (a: SourceApplyView | null) => (a ? `${a.commit.slice(0, 12)} ${a.status} (${a.triggered_by}, ${a.started_at})` : '-');
  context.print(
    details([
      ['repository', s.repository],
      ['url', s.url ?? '(no longer registered)'],
      ['branch', s.branch],
      ['directory', s.directory || '.'],
      ['push', s.push ? `${s.push.scheme} ${s.push.url} (secret ${s.push.secret_name})` : '- (polled only)'],
      ['last_apply', outcome(s.last_apply)],
      ['last_applied', outcome(s.last_applied)],
    ]),
  );
  if (s.last_apply) printErrors(context, s.last_apply);
}

function printErrors(context: Context, a: SourceApplyView): void {
  for (const e of a.errors) context.print(`  ${e.path}${e.line > 0 ? `:${e.line}` : ''}: ${e.message}`);
}
