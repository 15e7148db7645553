import type { Command } from '../command.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';

/**
 * `agentrun repo add|list|remove` and `agentrun skills list`: the repositories a team's skills
 * come from, and the skills it can run (docs/cli.md, "Repositories and skills";
 * docs/repositories.md).
 */

export const repoAdd: Command = {
  name: 'repo add',
  summary: 'Register a repository the team’s skills come from',
  arguments: ['<owner/repo>'],
  options: {
    url: { type: 'string', description: 'the clone URL (https://, or a path on the server where it allows local paths)', valueName: 'url' },
    branch: { type: 'string', description: 'the branch skills are read at (default main)', valueName: 'branch' },
    'credential-secret': { type: 'string', description: 'a team secret holding a read token', valueName: 'name' },
  },
  examples: ['agentrun repo add acme/skills --url https://git.example.com/acme/skills.git --credential-secret git-read'],
  async run(context) {
    const name = context.positionals[0] as string;
    const branch = context.string('branch');
    const secret = context.string('credential-secret');
    const created = await context.client().repositories.create({
      name,
      url: context.requireString('url'),
      ...(branch !== undefined ? { default_branch: branch } : {}),
      ...(secret !== undefined ? { credential_secret: secret } : {}),
    });
    if (context.json) context.printJson(created);
    else
      context.print(
        details([
          ['name', created.name],
          ['url', created.url],
          ['default_branch', created.default_branch],
          ['credential_secret', created.credential_secret ?? '-'],
        ]),
      );
    return EXIT.ok;
  },
};

export const repoList: Command = {
  name: 'repo list',
  summary: 'List the team’s repositories',
  async run(context) {
    const { repositories } = await context.client().repositories.list();
    if (context.json) context.printJson(repositories);
    else if (repositories.length === 0) context.note('No repositories.');
    else
      context.print(
        table(
          ['NAME', 'URL', 'BRANCH', 'CREDENTIAL SECRET', 'CREATED'],
          repositories.map((r) => [cell(r.name), cell(r.url, 60), cell(r.default_branch), cell(r.credential_secret ?? '-'), r.created_at]),
        ),
      );
    return EXIT.ok;
  },
};

export const repoRemove: Command = {
  name: 'repo remove',
  summary: 'Unregister a repository: its skills no longer resolve',
  arguments: ['<owner/repo>'],
  async run(context) {
    const name = context.positionals[0] as string;
    await context.client().repositories.delete(name);
    if (context.json) context.printJson({ name, removed: true });
    else context.print(`Removed repository ${name}`);
    return EXIT.ok;
  },
};

export const skillsList: Command = {
  name: 'skills list',
  summary: 'List the skills the team can run (GET /agent)',
  options: {
    repo: { type: 'string', description: 'only this repository (owner/repo)', valueName: 'owner/repo' },
    'sort-by': { type: 'string', description: 'name (default) or last_run', valueName: 'order' },
    malformed: { type: 'boolean', description: 'also list malformed SKILL.md files, with their error' },
    refresh: { type: 'boolean', description: 'fetch the repositories anew' },
  },
  examples: ['agentrun skills list --repo acme/skills --malformed'],
  async run(context) {
    const sortBy = context.string('sort-by');
    if (sortBy !== undefined && sortBy !== 'name' && sortBy !== 'last_run') throw new UsageError('--sort-by must be name or last_run');
    const repo = context.string('repo');
    const { agents } = await context.client().agents.list({
      ...(repo !== undefined ? { repo } : {}),
      ...(sortBy !== undefined ? { sort_by: sortBy } : {}),
      ...(context.flag('malformed') ? { include_malformed_skills: 'true' } : {}),
      ...(context.flag('refresh') ? { refresh: 'true' } : {}),
    });
    if (context.json) context.printJson(agents);
    else if (agents.length === 0) context.note('No skills.');
    else
      context.print(
        table(
          ['NAME', 'SPEC', 'DESCRIPTION'],
          agents.flatMap((a) =>
            a.variants.map((v) => [cell(a.name), cell(v.id, 60), cell(v.error ? `malformed: ${v.error}` : v.description, 60)]),
          ),
        ),
      );
    return EXIT.ok;
  },
};
