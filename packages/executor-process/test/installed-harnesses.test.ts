import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harnessList, installedHarnesses } from '../src/installed-harnesses.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A `claude` that only answers `--version`, in `dir/bin`, optionally inside an npm package of that name. */
function fakeClaude(manifest?: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentrun-installed-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'bin'));
  const program = join(dir, 'bin', 'claude');
  writeFileSync(program, '#!/bin/sh\necho "9.8.7 (Claude Code)"\n');
  chmodSync(program, 0o755);
  if (manifest) writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  return program;
}

describe('installedHarnesses: the CLIs an executor runs (docs/harnesses.md, "Installing the CLIs")', () => {
  it("reads an npm-installed CLI's version from its package, without starting it", async () => {
    const program = fakeClaude({ name: '@anthropic-ai/claude-code', version: '2.1.332' });
    const found = installedHarnesses({ claude: { path: program } }, '');
    expect(await harnessList(found, false, 'claude')).toEqual([{ type: 'claude', version: '2.1.332', default: true }]);
  });

  it('asks one installed otherwise, and lists the command harness after the CLIs', async () => {
    const program = fakeClaude({ name: 'something-else', version: '0.0.1' });
    const found = installedHarnesses({ claude: { path: program } }, '');
    expect(await harnessList(found, true, 'command')).toEqual([
      { type: 'claude', version: '9.8.7' },
      { type: 'command', default: true },
    ]);
  });

  it("finds each on PATH with 'auto', and one named and missing is an error naming its package", () => {
    const program = fakeClaude();
    expect([...installedHarnesses('auto', join(program, '..')).keys()]).toEqual(['claude']);
    expect(() => installedHarnesses({ codex: true }, join(program, '..'))).toThrow(
      'processExecutor: option harnesses.codex: codex is not installed here (install @openai/codex@0.171.0, or give its path)',
    );
  });
});
