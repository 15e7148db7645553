import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, cliProcess, envFor, startServer } from './support.js';

// The command line end to end (docs/cli.md), against one reference server whose runs never finish
// by themselves: runCli in this process with its own streams and environment, and two child
// processes for what only a process shows. Each class of exit code, --json parsed, the secret
// given on stdin or at a prompt nowhere in the output, the runs list filters, the webhook
// lifecycle and its delivery log.

let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer();
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

interface Run {
  run_id: string;
  state: string;
  title: string;
  source?: string;
  created_at: string;
}

describe.concurrent('exit codes and messages', () => {
  it('--help lists every command and exits 0; a command’s --help shows its flags', async () => {
    const [main, list] = await Promise.all([cli(['--help']), cli(['runs', 'list', '--help'])]);
    expect(main.code).toBe(0);
    for (const name of ['run', 'runs list', 'secret create', 'webhook rotate', 'deliveries list', 'filter test'])
      expect(main.stdout).toContain(name);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('--created-after <time>');
  });

  it('usage errors exit 2 with the reason on stderr: an unknown flag, a bad --state, a missing argument, an unknown command, no key', async () => {
    const results = await Promise.all([
      cli(['runs', 'list', '--bogus'], { env }),
      cli(['runs', 'list', '--state', 'DONE'], { env }),
      cli(['runs', 'get'], { env }),
      cli(['runz'], { env }),
      cli(['runs', 'list']),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
    }
    const [flag, state, missing, unknown, noKey] = results.map((r) => r.stderr);
    expect(flag).toContain("Unknown option '--bogus'");
    expect(state).toContain('--state DONE: must be one of QUEUED');
    expect(missing).toContain("'runs get' needs <run-id>");
    expect(unknown).toContain("unknown command 'runz'");
    expect(noKey).toContain('no API key: set AGENTRUN_API_KEY');
  });

  it('an API error exits 3 with the problem detail, its error code and the status', async () => {
    const result = await cli(['runs', 'get', 'no-such-run'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/agentrun: .*no-such-run/);
    expect(result.stderr).toContain('error: not_found (HTTP 404');
    expect(result.stdout).toBe('');
  });

  it('a wrong key is an API error too (401), and the key is never printed', async () => {
    const result = await cli(['runs', 'list'], { env: { ...env, AGENTRUN_API_KEY: 'wrong-key-1234' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('HTTP 401');
    expect(result.stderr + result.stdout).not.toContain('wrong-key-1234');
  });

  it('no server answering exits 4', async () => {
    const result = await cli(['runs', 'list'], { env: { ...env, AGENTRUN_BASE_URL: 'http://127.0.0.1:1', AGENTRUN_MAX_RETRIES: '0' } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('cannot reach the server');
  });

  it('a run body the server would refuse is refused locally (exit 2) naming the field', async () => {
    const result = await cli(['run', '--title', 'x'.repeat(301)], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid run:');
  });
});

describe.concurrent('as a process', () => {
  it('exits with the code runCli answers, the message on stderr', async () => {
    const result = await cliProcess(['runs', 'get', 'no-such-run'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('error: not_found (HTTP 404');
    expect(result.stdout).toBe('');
  });

  it('reads a secret value piped to stdin and never prints it', async () => {
    const value = 'tok_piped-into-a-process';
    const result = await cliProcess(['secret', 'create', 'process-token'], { env, input: `${value}\n` });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Created secret process-token\n');
    expect(result.stdout + result.stderr).not.toContain(value);
  });
});

describe('in this process', () => {
  it('uses only the environment it is given: the config file under its HOME, none of the process’s AGENTRUN_*', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentrun-cli-other-home-'));
    mkdirSync(join(home, '.config', 'agentrun'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'agentrun', 'config.json'),
      JSON.stringify({ profiles: { local: { apiKey: server.apiKey, baseUrl: server.url } } }),
    );
    const result = await cli(['factory', 'list', '--profile', 'local'], { env: { HOME: home, XDG_CONFIG_HOME: undefined } });
    expect(result.code, result.stderr).toBe(0);
  });

  it('leaves nothing process-wide behind: no exit code set, no signal handler', async () => {
    const sigint = process.listenerCount('SIGINT');
    const results = await Promise.all([
      cli(['runs', 'list', '--bogus'], { env }),
      cli(['runs', 'get', 'no-such-run'], { env }),
      cli(['secret', 'create', 'prompted-nothing'], { env, terminal: true }),
    ]);
    expect(results.map((r) => r.code)).toEqual([2, 3, 2]);
    expect(process.exitCode).toBeUndefined();
    expect(process.listenerCount('SIGINT')).toBe(sigint);
  });

  it('prompts for a secret value when stdin is a terminal, and does not echo what is typed', async () => {
    const value = 'tok_typed-at-the-prompt';
    const result = await cli(['secret', 'create', 'typed-token'], { env, input: `${value}\r`, terminal: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Value of typed-token (not shown): ');
    expect(result.stdout).toBe('Created secret typed-token\n');
    expect(result.stdout + result.stderr).not.toContain(value);
  });
});

describe('runs', () => {
  it('run starts a run (--json is the API answer); list filters by state and source; get, followup and cancel', async () => {
    const started = await cliJson<Run>(['run', 'Fix the bug in auth.go', '--title', 'cli-e2e', '--idempotency-key', 'cli-e2e-1'], { env });
    expect(started).toMatchObject({ run_id: expect.any(String), state: 'QUEUED' });
    // The same key and body start no second run.
    const again = await cliJson<Run>(['run', 'Fix the bug in auth.go', '--title', 'cli-e2e', '--idempotency-key', 'cli-e2e-1'], { env });
    expect(again.run_id).toBe(started.run_id);

    const [queued, webhookRuns, cliRuns, titled, human] = await Promise.all([
      cliJson<Run[]>(['runs', 'list', '--state', 'QUEUED', '--state', 'PENDING', '--state', 'INPROGRESS', '--state', 'CLAIMED'], { env }),
      cliJson<Run[]>(['runs', 'list', '--source', 'WEBHOOK'], { env }),
      // Runs the CLI starts carry source CLI (docs/cli.md, "run").
      cliJson<Run[]>(['runs', 'list', '--source', 'CLI'], { env }),
      cliJson<Run[]>(['runs', 'list', '-q', 'auth.go', '--limit', '1'], { env }),
      cli(['runs', 'list', '--created-after', '2000-01-01T00:00:00Z'], { env }),
    ]);
    expect(queued.map((r) => r.run_id)).toContain(started.run_id);
    expect(webhookRuns).toEqual([]);
    expect(cliRuns.map((r) => r.run_id)).toContain(started.run_id);
    expect(titled.map((r) => r.run_id)).toEqual([started.run_id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^RUN ID\s+STATE\s+TITLE\s+SOURCE\s+CREATED$/m);
    expect(human.stdout).toContain(started.run_id);

    // Started after the first and updated before it: the two orders differ. Started as its child:
    // the parent shows on it, and the list finds it under its ancestor.
    const second = await cliJson<Run>(['run', 'Another task', '--title', 'cli-e2e-2', '--parent', started.run_id], { env });
    expect((await cli(['runs', 'get', second.run_id], { env })).stdout).toMatch(new RegExp(`^parent_run_id:\\s+${started.run_id}$`, 'm'));
    expect((await cliJson<Run[]>(['runs', 'list', '--ancestor-run', started.run_id], { env })).map((r) => r.run_id)).toEqual([
      second.run_id,
    ]);
    const followup = await cli(['runs', 'followup', started.run_id, 'Also update the changelog'], { env });
    expect(followup.code, followup.stderr).toBe(0);
    const cancelled = await cliJson<string>(['runs', 'cancel', started.run_id], { env });
    expect(cancelled).toBe(started.run_id);
    const shown = await cli(['runs', 'get', started.run_id], { env });
    expect(shown.stdout).toMatch(/^state:\s+CANCELLED$/m);
    // Cancelling again: the API refuses (a run that has ended), exit 3.
    expect((await cli(['runs', 'cancel', started.run_id], { env })).code).toBe(3);

    // Every page, newest created first: the walk that skips no run updated meanwhile (docs/cli.md).
    const everything = await cliJson<Run[]>(['runs', 'list'], { env });
    const position = (r: Run) => `${r.created_at} ${r.run_id}`;
    expect(everything.map(position)).toEqual(everything.map(position).sort().reverse());
    const order = everything.map((r) => r.run_id);
    expect(order.indexOf(second.run_id)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(second.run_id)).toBeLessThan(order.indexOf(started.run_id));
  });
});

describe('secrets', () => {
  const value = 'tok_9f8e7d6c5b4a-do-not-print';

  it('create reads the value from stdin and never prints it; create of an existing name and update of a missing one fail; update, list, delete', async () => {
    const created = await cli(['secret', 'create', 'ci-token', '--team'], { env, input: `${value}\n` });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('Created secret ci-token');

    const [twice, missing, listed] = await Promise.all([
      cli(['secret', 'create', 'ci-token'], { env, input: value }),
      cli(['secret', 'update', 'nope'], { env, input: value }),
      cliJson<{ name: string }[]>(['secret', 'list'], { env }),
    ]);
    expect(twice.code).toBe(3);
    expect(twice.stderr).toContain('the secret ci-token already exists');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('there is no secret nope');
    expect(listed.map((s) => s.name)).toContain('ci-token');

    const updated = await cli(['secret', 'update', 'ci-token', '--json'], { env, input: `${value}-2` });
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: 'ci-token' });
    // An empty value is refused before any request.
    expect((await cli(['secret', 'update', 'ci-token'], { env, input: '' })).code).toBe(2);
    const deleted = await cli(['secret', 'delete', 'ci-token'], { env });
    expect(deleted.code).toBe(0);

    for (const result of [created, twice, missing, updated, deleted])
      expect(result.stdout + result.stderr).not.toContain('tok_9f8e7d6c5b4a');
  });
});

describe('factories, webhooks and deliveries', () => {
  it('factory create/list; webhook create (secret shown once), list, disable, enable, rotate, delete; deliveries list and show', async () => {
    const factory = await cliJson<{ uid: string; name: string }>(['factory', 'create', 'Acme CI'], { env });
    expect(factory.name).toBe('Acme CI');
    expect((await cliJson<{ uid: string }[]>(['factory', 'list'], { env })).map((f) => f.uid)).toContain(factory.uid);

    const created = await cliJson<{ webhook: { uid: string; enabled: boolean }; ingress_url: string; secret: string }>(
      ['webhook', 'create', 'CI', '--factory', factory.uid],
      { env },
    );
    expect(created.webhook.enabled).toBe(true);
    const uid = created.webhook.uid;
    const where = ['--factory', factory.uid];

    const delivered = await fetch(created.ingress_url, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.secret}`, 'content-type': 'application/json' },
      body: '{"event":"push","n":1.50}',
    });
    expect(delivered.status).toBe(202);
    const { delivery_id } = (await delivered.json()) as { delivery_id: string };

    const [listed, deliveries, shown, raw] = await Promise.all([
      cli(['webhook', 'list', ...where], { env }),
      cliJson<{ delivery_id: string; status: string }[]>(['deliveries', 'list', ...where, '--webhook', uid], { env }),
      cli(['deliveries', 'show', delivery_id, ...where, '--webhook', uid], { env }),
      cli(['deliveries', 'show', delivery_id, ...where, '--webhook', uid, '--raw'], { env }),
    ]);
    expect(listed.stdout).toMatch(new RegExp(`^${uid}\\s+CI\\s+token\\s+yes\\s+http`, 'm'));
    expect(deliveries).toEqual([expect.objectContaining({ delivery_id, status: 'Accepted' })]);
    expect(shown.stdout).toMatch(/^status:\s+Accepted$/m);
    expect(shown.stdout).toContain('"event": "push"');
    // Its headers as kept: the bearer token masked before it was stored.
    expect(shown.stdout).toMatch(/^ {2}authorization: \[masked\]$/m);
    expect(shown.stdout).toMatch(/^ {2}content-type: application\/json$/m);
    expect(shown.stdout).not.toContain(created.secret);
    expect(raw.stdout).toBe('{"event":"push","n":1.50}');

    // resend: a new entry resent from the first; with no automation, no run.
    const resent = await cli(['deliveries', 'resend', delivery_id, ...where, '--webhook', uid], { env });
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toMatch(new RegExp(`^resent_from:\\s+${delivery_id}$`, 'm'));
    expect(resent.stdout).toMatch(/^runs:\s+\(none/m);
    const after = await cliJson<{ delivery_id: string; resent_from: string | null }[]>(['deliveries', 'list', ...where, '--webhook', uid], {
      env,
    });
    expect(after.map((d) => d.resent_from)).toEqual([delivery_id, null]);

    const disabled = await cliJson<{ enabled: boolean }>(['webhook', 'disable', uid, ...where], { env });
    expect(disabled.enabled).toBe(false);
    const enabled = await cliJson<{ enabled: boolean }>(['webhook', 'enable', uid, ...where], { env });
    expect(enabled.enabled).toBe(true);
    const rotated = await cli(['webhook', 'rotate', uid, ...where], { env });
    expect(rotated.code, rotated.stderr).toBe(0);
    const newSecret = /^secret:\s+(\S+)$/m.exec(rotated.stdout)?.[1];
    expect(newSecret).toBeDefined();
    expect(newSecret).not.toBe(created.secret);
    expect(rotated.stderr).toContain('shown this once');

    expect((await cli(['webhook', 'delete', uid, ...where], { env })).code).toBe(0);
    expect(await cliJson(['webhook', 'list', ...where], { env })).toEqual([]);
    // Without --factory: a usage error, before any request.
    const noFactory = await cli(['webhook', 'list'], { env });
    expect(noFactory.code).toBe(2);
    expect(noFactory.stderr).toContain('--factory is required');
  });

  it('audit list: the team’s events, filtered by kind; an unknown kind is a usage error', async () => {
    const factory = await cliJson<{ uid: string }>(['factory', 'create', 'Audited'], { env });
    const created = await cliJson<{ webhook: { uid: string } }>(['webhook', 'create', 'Audited hook', '--factory', factory.uid], { env });
    const events = await cliJson<{ kind: string; target: { id: string } }[]>(
      ['audit', 'list', '--kind', 'webhook.created', '--target', created.webhook.uid],
      { env },
    );
    expect(events).toEqual([expect.objectContaining({ kind: 'webhook.created', target: { type: 'webhook', id: created.webhook.uid } })]);
    const text = await cli(['audit', 'list', '--target', created.webhook.uid], { env });
    expect(text.stdout).toMatch(/webhook\.created\s+service_account:bootstrap\s+webhook:/);
    const bad = await cli(['audit', 'list', '--kind', 'nope'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--kind nope: must be one of webhook.created');
  });
});
