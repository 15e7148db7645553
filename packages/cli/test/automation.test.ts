import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun automation create|list|show|enable|disable` (docs/cli.md, "Automations") against a
// reference server: created from an automation file as a definitions directory holds it, its
// webhooks named by name or by UID.

let server: ReferenceServer;
let env: Record<string, string>;
let factory: string;
let github: string;
let ci: string;
beforeAll(async () => {
  server = await startServer();
  env = envFor(server);
  factory = (await cliJson<{ uid: string }>(['factory', 'create', 'Automations'], { env })).uid;
  const webhook = async (name: string) =>
    (await cliJson<{ webhook: { uid: string } }>(['webhook', 'create', name, '--factory', factory], { env })).webhook.uid;
  [github, ci] = await Promise.all([webhook('github'), webhook('ci')]);
});
afterAll(() => server?.close({ graceMs: 0 }));

const dir = mkdtempSync(join(tmpdir(), 'agentrun-automation-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

interface Automation {
  id: string;
  name: string;
  prompt: string;
  enabled: boolean;
  config?: { model_id?: string };
  triggers: { provider: string; event: string; filter: { webhook_ids: string[]; payload?: unknown } }[];
}

describe('agentrun automation', () => {
  it('create from a YAML file naming webhooks by name; list, show, disable, enable', async () => {
    const path = file(
      'triage-issues.yaml',
      [
        'prompt: Triage the issue in the attached event.',
        'config:',
        '  model_id: claude-sonnet',
        'triggers:',
        '  - webhooks: [github, ci]',
        '    payload:',
        '      action: [opened, reopened]',
        '',
      ].join('\n'),
    );
    const created = await cliJson<Automation>(['automation', 'create', path, '--factory', factory], { env });
    expect(created).toMatchObject({
      name: 'triage-issues',
      prompt: 'Triage the issue in the attached event.',
      enabled: true,
      config: { model_id: 'claude-sonnet' },
      triggers: [
        { provider: 'webhook', event: 'received', filter: { webhook_ids: [github, ci], payload: { action: ['opened', 'reopened'] } } },
      ],
    });
    const where = ['--factory', factory];
    const [listed, listedJson, shown] = await Promise.all([
      cli(['automation', 'list', ...where], { env }),
      cliJson<Automation[]>(['automation', 'list', ...where], { env }),
      cli(['automation', 'show', created.id, ...where], { env }),
    ]);
    expect(listed.stdout).toMatch(new RegExp(`^${created.id}\\s+triage-issues\\s+yes\\s+github, ci\\s`, 'm'));
    expect(listedJson.map((a) => a.id)).toContain(created.id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^triggers\.0:\s+github, ci; payload \{"action":\["opened","reopened"\]\}$/m);
    expect(shown.stdout).toMatch(/^enabled:\s+yes$/m);
    expect(shown.stdout.trimEnd().endsWith('\n\nTriage the issue in the attached event.')).toBe(true);

    const disabled = await cli(['automation', 'disable', created.id, ...where], { env });
    expect(disabled).toMatchObject({ code: 0, stdout: `Disabled automation ${created.id} (triage-issues)\n` });
    expect((await cliJson<Automation>(['automation', 'show', created.id, ...where], { env })).enabled).toBe(false);
    expect((await cliJson<Automation>(['automation', 'enable', created.id, ...where], { env })).enabled).toBe(true);
  });

  it('create from a JSON file in the API’s trigger shape, named by --name, disabled as the file says', async () => {
    const path = file(
      'review.json',
      JSON.stringify({
        prompt: 'Review the pull request.',
        enabled: false,
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [github] } }],
      }),
    );
    const created = await cliJson<Automation>(['automation', 'create', path, '--factory', factory, '--name', 'Review PRs to main'], {
      env,
    });
    expect(created).toMatchObject({ name: 'Review PRs to main', enabled: false, triggers: [{ filter: { webhook_ids: [github] } }] });
    expect(created.triggers[0]?.filter.payload).toBeUndefined();
  });

  it('refuses, before any request, a file that is not an automation or whose filter is invalid (exit 2); an unknown webhook name exits 3', async () => {
    const before = await cliJson<Automation[]>(['automation', 'list', '--factory', factory], { env });
    const [badFilter, named, unknownKey, unknownWebhook, noFactory] = await Promise.all([
      cli(
        [
          'automation',
          'create',
          file('bad-filter.yaml', 'prompt: p\ntriggers:\n  - webhooks: [github]\n    payload: { draft: { exists: "yes" } }\n'),
          '--factory',
          factory,
        ],
        { env },
      ),
      cli(['automation', 'create', file('named.yaml', 'name: x\nprompt: p\ntriggers: []\n'), '--factory', factory], { env }),
      cli(['automation', 'create', file('typo.yaml', 'prompt: p\ntrigers: []\n'), '--factory', factory], { env }),
      cli(['automation', 'create', file('unknown.yaml', 'prompt: p\ntriggers:\n  - webhooks: [github, pager]\n'), '--factory', factory], {
        env,
      }),
      cli(['automation', 'create', file('no-factory.yaml', 'prompt: p\ntriggers: []\n')], { env }),
    ]);
    expect(badFilter.code).toBe(2);
    expect(badFilter.stderr).toContain('triggers.0.payload.draft.exists: must be true or false');
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("name: an automation's name is its file name");
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain('trigers: unknown field');
    expect(unknownWebhook.code).toBe(3);
    expect(unknownWebhook.stderr).toContain(`triggers.0.webhooks.1: factory ${factory} has no webhook named pager`);
    expect(noFactory.code).toBe(2);
    expect(noFactory.stderr).toContain('--factory is required');
    expect(await cliJson<Automation[]>(['automation', 'list', '--factory', factory], { env })).toEqual(before);
  });

  it('an unknown automation is the API’s 404 (exit 3)', async () => {
    const result = await cli(['automation', 'show', '00000000-0000-4000-8000-000000000000', '--factory', factory], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('not found');
  });
});
