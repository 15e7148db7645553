import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './support.js';

// `agentrun filter test` (docs/filters.md, "Testing your filter rules"): offline, no server and no
// key in the environment; 0 when the payload would trigger, 1 when not, 2 for an invalid filter.

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
