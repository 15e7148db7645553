import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from './support.js';

// `agentrun filter test` (docs/filters.md, "Testing your filter rules"): offline, no server and no
// key in the environment; 0 when the payload would trigger, 1 when not, 2 for an invalid filter.
// Given an automation file, each of its triggers' filters (docs/cli.md, "filter test").

const dir = mkdtempSync(join(tmpdir(), 'agentrun-filter-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const filter = file(
  'github-pr.yaml',
  ['action: [opened, synchronize]', 'pull_request:', '  base: { ref: [main] }', '  draft: [false]', ''].join('\n'),
);
const opened = file('opened.json', JSON.stringify({ action: 'opened', pull_request: { base: { ref: 'main' }, draft: false } }));
const develop = file('develop.json', JSON.stringify({ action: 'opened', pull_request: { base: { ref: 'develop' }, draft: false } }));

describe.concurrent('agentrun filter test', () => {
  it('exits 0 with "Would trigger" for a matching payload, with no key or server', async () => {
    const result = await cli(['filter', 'test', filter, opened]);
    expect(result).toMatchObject({ code: 0, stdout: 'Would trigger\n' });
  });

  it('exits 1 with "Would not trigger" and the failing path; --json is the explanation', async () => {
    const [human, json] = await Promise.all([cli(['filter', 'test', filter, develop]), cli(['filter', 'test', filter, develop, '--json'])]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('Would not trigger: pull_request.base.ref: "develop" is not one of ["main"]\n');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ matched: false, path: 'pull_request.base.ref', reason: '"develop" is not one of ["main"]' });
  });

  it('exits 2 for an invalid filter, naming its path, and for a file that cannot be read', async () => {
    const invalid = file('invalid.json', JSON.stringify({ pull_request: { draft: { exists: 'yes' } } }));
    const [bad, missing, broken] = await Promise.all([
      cli(['filter', 'test', invalid, opened]),
      cli(['filter', 'test', filter, join(dir, 'nope.json')]),
      cli(['filter', 'test', file('broken.json', '{"action": ['), opened]),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('filter.pull_request.draft.exists: must be true or false');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.json: no such file');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('is not valid JSON');
  });
});

describe.concurrent('agentrun filter test on an automation file', () => {
  // The sample directory's automation (examples/definitions/acme-ci), and one of two triggers.
  const example = fileURLToPath(new URL('../../../examples/definitions/acme-ci/automations/fix-failed-build.yaml', import.meta.url));
  const automation = file(
    'triage.yaml',
    [
      'prompt: Triage the issue.',
      'triggers:',
      '  - webhooks: [github]',
      '    payload: { action: [opened] }',
      '  - provider: webhook',
      '    event: received',
      '    filter:',
      '      webhook_ids: [8c6a2d0e-0000-4000-8000-000000000001]',
      '      payload: { action: [closed], issue: { state: [closed] } }',
      '',
    ].join('\n'),
  );
  const closed = file('closed.json', JSON.stringify({ action: 'closed', issue: { state: 'closed' } }));
  const edited = file('edited.json', JSON.stringify({ action: 'edited', issue: { state: 'open' } }));

  it('tests the example automation file, which a payload filter reading refused', async () => {
    const failed = file('failed.json', JSON.stringify({ status: 'failed', branch: 'main' }));
    const passed = file('passed.json', JSON.stringify({ status: 'passed', branch: 'main' }));
    const [hit, miss] = await Promise.all([cli(['filter', 'test', example, failed]), cli(['filter', 'test', example, passed])]);
    expect(hit).toMatchObject({ code: 0, stdout: 'Would trigger\n  triggers.0 (ci-alerts, pager): would trigger\n' });
    expect(miss).toMatchObject({
      code: 1,
      stdout: 'Would not trigger\n  triggers.0 (ci-alerts, pager): would not trigger: status: "passed" is not one of ["failed"]\n',
    });
  });

  it('reports each trigger; exits 0 when any would trigger, 1 when none would', async () => {
    const [one, none] = await Promise.all([cli(['filter', 'test', automation, closed]), cli(['filter', 'test', automation, edited])]);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(
      [
        'Would trigger',
        '  triggers.0 (github): would not trigger: action: "closed" is not one of ["opened"]',
        '  triggers.1 (8c6a2d0e-0000-4000-8000-000000000001): would trigger',
        '',
      ].join('\n'),
    );
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/^Would not trigger\n {2}triggers\.0 .*\n {2}triggers\.1 .*would not trigger: action: "edited"/);
  });

  it('--webhook keeps the triggers selecting that webhook (file name or UID); --json gives each trigger', async () => {
    const [github, byUid, none, json] = await Promise.all([
      cli(['filter', 'test', automation, closed, '--webhook', 'github']),
      cli(['filter', 'test', automation, closed, '--webhook', '8c6a2d0e-0000-4000-8000-000000000001']),
      cli(['filter', 'test', automation, closed, '--webhook', 'pager']),
      cli(['filter', 'test', automation, closed, '--json']),
    ]);
    expect(github.code).toBe(1);
    expect(github.stdout).not.toContain('triggers.1');
    expect(byUid.code).toBe(0);
    expect(byUid.stdout).not.toContain('triggers.0');
    expect(none).toMatchObject({ code: 1, stdout: 'Would not trigger: no trigger selects webhook pager\n' });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      matched: true,
      triggers: [
        { trigger: 'triggers.0', webhooks: ['github'], matched: false, path: 'action', reason: '"closed" is not one of ["opened"]' },
        { trigger: 'triggers.1', webhooks: ['8c6a2d0e-0000-4000-8000-000000000001'], matched: true },
      ],
    });
  });

  it('a trigger without a payload filter triggers on any payload; a disabled automation says so on stderr', async () => {
    const open = file('open.yaml', 'prompt: p\nenabled: false\ntriggers:\n  - webhooks: [ci]\n');
    const result = await cli(['filter', 'test', open, edited]);
    expect(result).toMatchObject({ code: 0, stdout: 'Would trigger\n  triggers.0 (ci): would trigger\n' });
    expect(result.stderr).toContain('The automation is disabled');
  });

  it('exits 2 for an invalid filter in a trigger (naming its path), an invalid automation, and --webhook with a plain filter', async () => {
    const [badFilter, badFile, webhookOnFilter] = await Promise.all([
      cli([
        'filter',
        'test',
        file('bad.yaml', 'prompt: p\ntriggers:\n  - webhooks: [ci]\n    payload: { draft: { exists: 1 } }\n'),
        closed,
      ]),
      cli(['filter', 'test', file('typo.yaml', 'prompt: p\ntriggers: []\nenabeld: true\n'), closed]),
      cli(['filter', 'test', filter, opened, '--webhook', 'github']),
    ]);
    expect(badFilter.code).toBe(2);
    expect(badFilter.stderr).toContain('triggers.0.payload.draft.exists: must be true or false');
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toContain('enabeld: unknown field');
    expect(webhookOnFilter.code).toBe(2);
    expect(webhookOnFilter.stderr).toContain('is a payload filter, not an automation file');
  });
});
