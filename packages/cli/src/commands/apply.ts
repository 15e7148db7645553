import { BadRequestError } from '@agentrun/client';
import { type ApplyResult, type FieldProblem, fileKey, type LoadedDefinitions, locateProblems, problemLine } from '@agentrun/core/api';
import type { Command } from '../command.js';
import { loadDefinitions } from '../definitions/load.js';
import { CliError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { columns } from '../output.js';

/** `agentrun apply [dir]` (docs/definitions.md): plan, print the plan, then apply it as one operation. */
export const apply: Command = {
  name: 'apply',
  summary: 'Apply a factory’s definition files (webhooks/*.yaml, automations/*.yaml, environments/*.yaml, schedules/*.yaml)',
  description:
    'Prints the plan first, then applies it as one operation. The factory is --factory, else factory.yaml (uid: …) in the directory. Files removed since the last apply are refused unless --prune deletes what they defined.',
  arguments: ['[dir]'],
  options: {
    factory: { type: 'string', valueName: 'uid', description: 'the factory to apply to (default: uid in <dir>/factory.yaml)' },
    'dry-run': { type: 'boolean', description: 'print the plan and change nothing' },
    prune: { type: 'boolean', description: 'delete webhooks, automations, environments and schedules that have no file' },
  },
  examples: ['agentrun apply ./factory --dry-run', 'agentrun apply ./factory --factory fac_123 --prune'],
  async run(context) {
    const dir = context.positionals[0] ?? '.';
    const loaded = loadDefinitions(dir);
    const factoryUid = context.string('factory') ?? loaded.factoryUid;
    if (factoryUid === undefined)
      throw new UsageError(`no factory: give --factory <uid>, or put "uid: <factory uid>" in ${dir}/factory.yaml`);
    const client = context.client();
    const body = {
      webhooks: loaded.webhooks,
      automations: loaded.automations,
      environments: loaded.environments,
      schedules: loaded.schedules,
      prune: context.flag('prune'),
    } as Parameters<typeof client.factories.apply>[1];
    const call = (dryRun: boolean) => client.factories.apply(factoryUid, { ...body, dry_run: dryRun }).catch(explained(loaded, dir));

    const plan = await call(true);
    const pending = changeCount(plan);
    if (context.flag('dry-run') || pending === 0) {
      if (context.json) context.printJson(plan);
      else {
        context.print(planText(plan, factoryUid));
        context.note(pending === 0 ? 'No changes.' : `Dry run: ${summary(plan)}; nothing applied.`);
      }
      return EXIT.ok;
    }
    if (!context.json) context.print(planText(plan, factoryUid));
    const applied = await call(false);
    if (context.json) context.printJson(applied);
    else {
      const created = applied.webhooks.filter((w) => w.action === 'create');
      if (created.length > 0)
        context.print(
          [
            'Ingress URLs:',
            ...columns(
              created.map((w) => [`webhooks/${w.name}.yaml`, w.ingress_url]),
              INDENT,
            ),
          ].join('\n'),
        );
      context.note(`Applied (definitions version ${applied.version}): ${summary(applied)}.`);
    }
    return EXIT.ok;
  },
};

/** A 400 with `errors`: each at its file, key and line; exit 3 (the server refused). */
const explained =
  (loaded: LoadedDefinitions, dir: string) =>
  (error: unknown): never => {
    const problems = error instanceof BadRequestError ? (error.body as { errors?: FieldProblem[] } | undefined)?.errors : undefined;
    if (!Array.isArray(problems)) throw error;
    const lines = locateProblems(problems, loaded, dir).map(problemLine);
    throw new CliError(`the definitions were not applied (nothing changed):\n${lines.map((l) => `  ${l}`).join('\n')}`, EXIT.api);
  };

const MARK = { create: '+', adopt: '+', update: '~', unchanged: '=', delete: '-' } as const;

function planText(plan: ApplyResult, factoryUid: string): string {
  const rows: string[][] = [];
  for (const w of plan.webhooks) {
    const changes = w.changes.map(fileKey).join(', ');
    // A create's UID (so its URL) is only provisional until it applies: shown after, not here.
    const url = w.action === 'create' || w.action === 'delete' ? '' : w.ingress_url;
    const last =
      w.action !== 'unchanged'
        ? url
        : w.secret_pending
          ? 'its team secret has a new value, which takes effect when this webhook next applies'
          : '';
    rows.push([`${MARK[w.action]} webhooks/${w.name}.yaml`, w.action, changes, last]);
  }
  for (const a of plan.automations)
    rows.push([`${MARK[a.action]} automations/${a.name}.yaml`, a.action, a.changes.map(fileKey).join(', ')]);
  for (const e of plan.environments ?? [])
    rows.push([`${MARK[e.action]} environments/${e.name}.yaml`, e.action, e.changes.map(fileKey).join(', ')]);
  for (const s of plan.schedules ?? [])
    rows.push([`${MARK[s.action]} schedules/${s.name}.yaml`, s.action, s.changes.map(fileKey).join(', ')]);
  return [`Plan for factory ${factoryUid}:`, ...columns(rows, INDENT)].join('\n');
}

const INDENT = { indent: '  ' };

const changeCount = (plan: ApplyResult) =>
  [...plan.webhooks, ...plan.automations, ...(plan.environments ?? []), ...(plan.schedules ?? [])].filter((x) => x.action !== 'unchanged')
    .length;

function summary(plan: ApplyResult): string {
  const counts = new Map<string, number>();
  for (const x of [...plan.webhooks, ...plan.automations, ...(plan.environments ?? []), ...(plan.schedules ?? [])])
    counts.set(x.action, (counts.get(x.action) ?? 0) + 1);
  return (
    (['create', 'adopt', 'update', 'delete', 'unchanged'] as const)
      .filter((a) => counts.has(a))
      .map((a) => `${counts.get(a)} ${a === 'unchanged' ? 'unchanged' : `to ${a}`}`)
      .join(', ') || 'nothing'
  );
}
