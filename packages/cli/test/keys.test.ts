import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun keys create|list|revoke` (docs/cli.md, "keys …") against a reference server, with
// its bootstrap key (which may manage keys): the key printed once, the exit codes, escaping.

let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer();
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

interface Key {
  id: string;
  name: string;
  prefix: string;
  scopes: string[] | null;
  key?: string;
  expires_at: string | null;
}

describe('agentrun keys', () => {
  it('create prints the key once, list shows it without the key, the new key works within its scopes, revoke stops it', async () => {
    const created = await cli(['keys', 'create', '--name', 'ci', '--scope', 'read_runs', '--expires-in', '30d'], { env });
    expect(created.code, created.stderr).toBe(0);
    const key = /^key:\s+(ar_\S+)$/m.exec(created.stdout)?.[1] as string;
    expect(key).toMatch(/^ar_/);
    expect(created.stderr).toContain('shown this once');
    const id = /^id:\s+(\S+)$/m.exec(created.stdout)?.[1] as string;

    const listed = await cli(['keys', 'list'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('read_runs');
    expect(listed.stdout).not.toContain(key);
    // The reference server's bootstrap key: named, with every scope.
    expect(listed.stdout).toMatch(/^bootstrap +ar_\S+ +bootstrap +read_runs,write_runs,read_factory,manage_factory,manage_keys /m);

    const asKey = { ...env, AGENTRUN_API_KEY: key };
    expect((await cli(['runs', 'list'], { env: asKey })).code).toBe(0);
    const refused = await cli(['run', 'hello'], { env: asKey });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('write_runs');

    const revoked = await cli(['keys', 'revoke', id], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await cli(['runs', 'list'], { env: asKey })).code).toBe(3);
    const json = await cliJson<Key[]>(['keys', 'list', '--json'], { env });
    expect(json.map((k) => k.id)).not.toContain(id);
  });

  it('--json create answers the key and its view; a name with control characters is escaped in the table', async () => {
    const created = await cliJson<Key>(['keys', 'create', '--name', 'evil\u001b[31m', '--scope', 'read_runs', '--json'], { env });
    expect(created).toMatchObject({ name: 'evil\u001b[31m', scopes: ['read_runs'], key: expect.stringMatching(/^ar_/) });
    const listed = await cli(['keys', 'list'], { env });
    expect(listed.stdout).not.toContain('\u001b');
    expect(listed.stdout).toContain('evil');
  });

  it('refuses bad input before any request (exit 2) and an unknown key id with the API’s 404 (exit 3)', async () => {
    for (const args of [
      ['keys', 'create', '--scope', 'read_runs'],
      ['keys', 'create', '--name', 'x'],
      ['keys', 'create', '--name', 'x', '--scope', 'root'],
      ['keys', 'create', '--name', 'x', '--scope', 'read_runs', '--expires-in', 'soon'],
      ['keys', 'create', '--name', 'x', '--scope', 'read_runs', '--expires-in', '1d', '--expires-at', '2030-01-01T00:00:00Z'],
      ['keys', 'revoke'],
    ]) {
      const result = await cli(args, { env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
    }
    const missing = await cli(['keys', 'revoke', 'no-such-key'], { env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('not found');
  });
});
