import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './repositories.js';

const RECORDER = fileURLToPath(new URL('./record-git.sh', import.meta.url));

/**
 * A `git` to pass as `gitPath`: it records every call's argv and environment names
 * (record-git.sh) into `log`, then runs the real git. gitSources clears the environment, so the
 * wrapper names the log itself.
 */
export function recordingGit(): { gitPath: string; calls: () => string } {
  const dir = tempDir('bin');
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  const gitPath = join(dir, 'git');
  writeFileSync(gitPath, `#!/bin/sh\nAGENTRUN_TEST_GIT_LOG='${log}' exec '${RECORDER}' "$@"\n`, { mode: 0o755 });
  return { gitPath, calls: () => readFileSync(log, 'utf8') };
}
