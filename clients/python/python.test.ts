import { type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The Python client's own suite, run by `npm test` (docs/python.md, "What the tests prove"): the
 * standard library's unittest over clients/python/tests (it starts its reference servers itself,
 * on the memory store and on PostgreSQL), and `mypy --strict` over the package when mypy is
 * installed (with CI=true a missing mypy fails; .ci/run installs it).
 */

const packageDir = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

interface Outcome {
  code: number | null;
  output: string;
}

/** Run a command to its end; its exit code and its stdout and stderr together. */
const run = (command: string, args: string[], options: SpawnOptions): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });

const hasMypy = (): boolean => !spawnSync('mypy', ['--version']).error;

describe('the Python client (clients/python)', () => {
  it('passes its unittest suite against the reference server', { timeout: 600_000 }, async () => {
    const outcome = await run('python3', ['-m', 'unittest', 'discover', '-s', 'clients/python/tests'], { cwd: repoRoot });
    if (outcome.code !== 0) console.error(outcome.output);
    expect(outcome.code, outcome.output.slice(-4000)).toBe(0);
  });

  it('passes mypy --strict', { timeout: 300_000 }, async (context) => {
    if (!hasMypy()) {
      if (process.env.CI === 'true') throw new Error('CI=true and mypy is not installed (apt-get install -y mypy; .ci/run does)');
      console.warn('[python client] mypy is not installed: the type check is skipped (apt-get install -y mypy)');
      context.skip();
      return;
    }
    // From the package's folder, so that pyproject.toml's [tool.mypy] (strict, Python 3.9) applies.
    const outcome = await run('mypy', ['--strict', 'src/agentrun', 'tests'], { cwd: packageDir });
    if (outcome.code !== 0) console.error(outcome.output);
    expect(outcome.code, outcome.output).toBe(0);
  });
});
