import { fakeSkillRepositories } from '@agentrun/core/testing';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun repo add|list|remove` and `agentrun skills list` (docs/cli.md, "Repositories and
// skills") against a reference server reading a fake repository (docs/repositories.md).

const skills = fakeSkillRepositories(['acme/skills:deploy', 'acme/skills:lint']);
let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer({ repositories: skills.reader });
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

describe('agentrun repo and skills', () => {
  it('add registers, list shows it, skills list reads its skills, remove unregisters; a second add is refused', async () => {
    const added = await cli(['repo', 'add', 'acme/skills', '--url', 'file:///fake/acme/skills'], { env });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^default_branch:\s+main$/m);
    const again = await cli(['repo', 'add', 'acme/skills', '--url', 'file:///fake/acme/skills'], { env });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already registered');

    expect((await cli(['repo', 'list'], { env })).stdout).toContain('file:///fake/acme/skills');
    const listed = await cliJson<{ name: string; variants: { id: string }[] }[]>(['skills', 'list', '--sort-by', 'name'], { env });
    expect(listed.map((a) => [a.name, a.variants[0]?.id])).toEqual([
      ['deploy', 'acme/skills:skills/deploy/SKILL.md'],
      ['lint', 'acme/skills:skills/lint/SKILL.md'],
    ]);
    expect((await cli(['skills', 'list', '--sort-by', 'size'], { env })).code).toBe(2);

    expect((await cli(['repo', 'remove', 'acme/skills'], { env })).code).toBe(0);
    expect((await cli(['skills', 'list'], { env })).stderr).toContain('No skills.');
  });
});
