import { fakeRepositoryReader } from '@agentrun/core/testing';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun factory source set|show|sync|clear` and `agentrun factory applies` (docs/cli.md,
// "Factories from a repository") against a reference server reading a fake repository; the
// same against real git repositories is packages/server/test/factory-sources.test.ts.

const URL = 'file:///fake/acme/factory';
const C1 = '1'.repeat(40);
const C2 = '2'.repeat(40);
const reader = fakeRepositoryReader({
  [URL]: {
    branches: { main: C1 },
    commits: {
      [C1]: { 'agentrun/webhooks/ci.yaml': 'secretName: ci-token\n' },
      [C2]: { 'agentrun/webhooks/ci.yaml': 'authMode: token\nsecretName: no-such-secret\n' },
    },
  },
});
let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer({ repositories: reader });
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

describe('agentrun factory source', () => {
  it('set, sync applies the head once, a broken commit exits 3 with its errors at file:line, applies lists both, clear', async () => {
    const { uid } = await cliJson<{ uid: string }>(['factory', 'create', 'From git'], { env });
    expect((await cli(['secret', 'create', 'ci-token', '--team'], { env, input: 'token-value-1234\n' })).code).toBe(0);
    expect((await cli(['repo', 'add', 'acme/factory', '--url', URL], { env })).code).toBe(0);

    const set = await cli(['factory', 'source', 'set', 'acme/factory', '--factory', uid, '--dir', 'agentrun'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^directory:\s+agentrun$/m);
    expect(set.stdout).toMatch(/^push:\s+- \(polled only\)$/m);

    const synced = await cli(['factory', 'source', 'sync', '--factory', uid], { env });
    expect(synced.code, synced.stderr).toBe(0);
    // Applied by this sync (or, should the server's poll come first, already).
    expect(synced.stdout).toMatch(new RegExp(`Commit ${C1}: (already )?applied \\(definitions version 1\\)`));
    expect((await cli(['factory', 'source', 'sync', '--factory', uid], { env })).stdout).toContain('already applied');

    const repo = reader.repositories.get(URL);
    if (!repo) throw new Error('no fake repository');
    repo.branches.main = C2;
    const broken = await cli(['factory', 'source', 'sync', '--factory', uid], { env });
    expect(broken.code).toBe(3);
    expect(broken.stdout).toContain('agentrun/webhooks/ci.yaml:2: secretName: no team secret named no-such-secret');
    const shown = await cli(['factory', 'source', 'show', '--factory', uid], { env });
    expect(shown.stdout).toMatch(new RegExp(`^last_applied:\\s+${C1.slice(0, 12)} applied \\(manual`, 'm'));
    expect(shown.stdout).toMatch(new RegExp(`^last_apply:\\s+${C2.slice(0, 12)} failed`, 'm'));

    const applies = await cliJson<{ commit: string; status: string }[]>(['factory', 'applies', '--factory', uid], { env });
    expect(applies.map((a) => [a.commit, a.status])).toEqual([
      [C2, 'failed'],
      [C1, 'applied'],
    ]);
    expect((await cli(['factory', 'source', 'clear', '--factory', uid], { env })).code).toBe(0);
    expect((await cli(['factory', 'source', 'show', '--factory', uid], { env })).code).not.toBe(0);
  });
});
