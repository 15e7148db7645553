import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { AgentRunClient } from '@agentrun/client';
import type { ApplyResult } from '@agentrun/core/api';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, envFor, startServer } from './support.js';

// `agentrun apply` on the sample directory of examples/ (docs/definitions.md), against a reference
// server: each refusal names file, key and line and changes nothing. Paths are relative to the
// working directory, the repository's root, where Vitest runs.

const SAMPLE = 'examples/definitions/acme-ci';
const SECRETS = {
  'github-webhook-secret': 'gh-signing-secret-value',
  'ci-alerts-token': 'ci-token-value-1',
  'pager-url-token': 'pager-token-1',
};

describe('agentrun apply', () => {
  let server: ReferenceServer;
  let client: AgentRunClient;
  let factory: string;
  let env: Record<string, string>;
  const outputs: string[] = [];
  const run = async (args: string[]) => {
    const result = await cli(['apply', ...args, '--factory', factory], { env });
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  beforeAll(async () => {
    server = await startServer();
    client = new AgentRunClient({ apiKey: server.apiKey, baseURL: server.url });
    env = envFor(server);
    factory = (await client.factories.create({ name: 'Acme CI' })).uid;
  });
  afterAll(async () => {
    // No secret value ever reached the output.
    for (const value of Object.values(SECRETS)) for (const text of outputs) expect(text).not.toContain(value);
    await server?.close();
  });

  it('refuses a missing team secret and a url_token secret that is not URL-safe, at file, key and line; applies nothing', async () => {
    await client.secrets.put('github-webhook-secret', { value: SECRETS['github-webhook-secret'] });
    await client.secrets.put('pager-url-token', { value: 'not url safe!' });
    const refused = await run([SAMPLE]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`${SAMPLE}/webhooks/ci-alerts.yaml:3: secretName: no team secret named ci-alerts-token`);
    expect(refused.stderr).toContain(`${SAMPLE}/webhooks/pager.yaml:3: secretName: team secret pager-url-token is not URL-safe`);
    expect((await client.webhooks.list(factory)).webhooks).toEqual([]);
  });

  it('first apply prints the plan and creates everything; a re-apply changes nothing', async () => {
    await client.secrets.put('ci-alerts-token', { value: SECRETS['ci-alerts-token'] });
    await client.secrets.put('pager-url-token', { value: SECRETS['pager-url-token'] });
    const first = await run([SAMPLE]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/\+ webhooks\/github\.yaml\s+create\n/);
    expect(first.stdout).toMatch(/Ingress URLs:\n(.*\n)*\s+webhooks\/pager\.yaml\s+http:\/\/\S+\/webhooks\/w\/[\w-]+\/\{token\}/);
    expect(first.stdout).toMatch(/\+ automations\/triage-issues\.yaml\s+create/);
    expect(first.stderr).toContain('Applied (definitions version 1): 5 to create.');
    // The plan's actions and the ingress URLs each start at one column, whatever the file names' lengths.
    const [plan = '', urls = ''] = first.stdout.split('Ingress URLs:\n');
    const actionAt = [...plan.matchAll(/^( {2}[+~=-] \S+ +)\S/gm)].map((m) => m[1]?.length);
    const urlAt = [...urls.matchAll(/^( {2}\S+ +)http/gm)].map((m) => m[1]?.length);
    expect(actionAt).toHaveLength(5);
    expect(new Set(actionAt).size).toBe(1);
    expect(urlAt).toHaveLength(3);
    expect(new Set(urlAt).size).toBe(1);
    const webhooks = (await client.webhooks.list(factory)).webhooks;
    expect(webhooks.map((w) => [w.name, w.secret_name]).sort()).toEqual([
      ['ci-alerts', 'ci-alerts-token'],
      ['github', 'github-webhook-secret'],
      ['pager', 'pager-url-token'],
    ]);

    const again = await run([SAMPLE]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('No changes.');
    expect(again.stdout).toMatch(/= webhooks\/github\.yaml\s+unchanged/);
  });

  it('a changed key is an update of the same webhook; --json prints the answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-defs-'));
    cpSync(SAMPLE, dir, { recursive: true });
    const file = join(dir, 'webhooks', 'ci-alerts.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('X-Build-Id', 'X-Pipeline-Id'));
    const before = (await client.webhooks.list(factory)).webhooks.find((w) => w.name === 'ci-alerts');

    const plan = await run([dir, '--dry-run']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/~ webhooks\/ci-alerts\.yaml\s+update\s+deliveryIdHeader/);
    expect(plan.stderr).toContain('Dry run: 1 to update, 4 unchanged; nothing applied.');

    const applied = await run([dir, '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    const answer = JSON.parse(applied.stdout) as ApplyResult;
    expect(answer).toMatchObject({ applied: true, version: 2 });
    expect(answer.webhooks.find((w) => w.name === 'ci-alerts')).toMatchObject({ uid: before?.uid, action: 'update' });
    expect((await client.webhooks.get(factory, before?.uid as string)).delivery_id_header).toBe('X-Pipeline-Id');
  });

  it("takes the seed's trigger shape (webhook UIDs) beside file names; an unknown UID is refused at file and line", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-defs-'));
    cpSync(SAMPLE, dir, { recursive: true });
    const github = (await client.webhooks.list(factory)).webhooks.find((w) => w.name === 'github');
    const file = join(dir, 'automations', 'triage-issues.yaml');
    const seedShape = (uid: string) =>
      readFileSync(join(SAMPLE, 'automations', 'triage-issues.yaml'), 'utf8')
        .replace(
          '  - webhooks: [github]\n    payload:',
          `  - provider: webhook\n    event: received\n    filter:\n      webhook_ids: [${uid}]\n      payload:`,
        )
        .replace(/^( {6}(?:action|issue| {2}state):)/gm, '  $1');
    writeFileSync(file, seedShape(github?.uid as string));
    // The same trigger written the other way: nothing to apply.
    const same = await run([dir]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/= automations\/triage-issues\.yaml\s+unchanged/);

    writeFileSync(file, seedShape('no-such-webhook'));
    const unknown = await run([dir]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain(
      `${relative(process.cwd(), file)}:8: triggers.0.filter.webhook_ids.0: no webhook no-such-webhook in factory ${factory}`,
    );
  });

  it('applies environments/<name>.yaml with the other files; a missing team secret, repository, bad image or limit is refused at its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-defs-'));
    cpSync(SAMPLE, dir, { recursive: true });
    mkdirSync(join(dir, 'environments'));
    const file = join(dir, 'environments', 'web.yaml');
    const yaml = (secret: string, image: string, memory: number) =>
      `repositories:\n  - repository: acme/web\n    ref: main\nsetup:\n  - npm ci\nvariables:\n  TOKEN: ${secret}\nsetupTimeoutSeconds: 120\n` +
      `image: ${image}\nlimits:\n  network: none\n  memory_mb: ${memory}\n`;
    // An invalid value is refused before anything is looked up.
    writeFileSync(file, yaml('no-such-secret', 'ghcr.io/Acme/web', 4));
    const invalid = await run([dir]);
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain(`${relative(process.cwd(), file)}:9: image: the repository path must be lowercase`);
    expect(invalid.stderr).toContain(`${relative(process.cwd(), file)}:12: limits.memory_mb:`);
    writeFileSync(file, yaml('no-such-secret', 'ghcr.io/acme/web', 16));
    const refusedEnv = await run([dir]);
    expect(refusedEnv.code).toBe(3);
    expect(refusedEnv.stderr).toContain(`${relative(process.cwd(), file)}:7: variables.TOKEN: no team secret named no-such-secret`);
    // acme/web is an <owner>/<repo> name: it must be a repository the team registered.
    expect(refusedEnv.stderr).toContain(`${relative(process.cwd(), file)}:2: repositories.0.repository: no repository named acme/web`);
    await client.repositories.create({ name: 'acme/web', url: 'https://git.example.com/acme/web.git' });

    writeFileSync(file, yaml('ci-alerts-token', 'ghcr.io/acme/web-agent:2', 2048));
    const applied = await run([dir]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/\+ environments\/web\.yaml\s+create/);
    const [environment] = (await client.environments.list()).environments;
    expect(environment).toMatchObject({
      name: 'web',
      setup_timeout_seconds: 120,
      image: 'ghcr.io/acme/web-agent:2',
      limits: { network: 'none', memory_mb: 2048 },
      definition_file: 'environments/web.yaml',
    });
  });

  it('refuses a renamed webhook file and a YAML error, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-defs-'));
    cpSync(SAMPLE, dir, { recursive: true });
    cpSync(join(dir, 'webhooks', 'pager.yaml'), join(dir, 'webhooks', 'oncall.yaml'));
    writeFileSync(join(dir, 'webhooks', 'pager.yaml'), 'authMode: [unclosed\n');
    const broken = await run([dir]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/webhooks\/pager\.yaml:\d+: not valid YAML/);

    rmSync(join(dir, 'webhooks', 'pager.yaml'));
    const automation = join(dir, 'automations', 'fix-failed-build.yaml');
    writeFileSync(automation, readFileSync(automation, 'utf8').replace('pager]', 'oncall]'));
    const renamed = await run([dir, '--prune']);
    expect(renamed.code).toBe(3);
    expect(renamed.stderr).toMatch(/webhooks\/oncall\.yaml:1: name: .*renaming a webhook is not supported/);
  });
});
