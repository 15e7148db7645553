import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { HarnessEvent, HarnessTurn } from '@agentrun/harnesses';
import type { CliProfile } from '../test/harnesses/support/cli-profiles.js';
import type { ModelServer } from '../test/support/model-server/server.js';
import { API_KEY, FINAL_TEXT, PROMPT, programOf, RUN_TIMEOUT_MS, type TurnTimes, turnTimes } from './harness-case.js';

/** One direct invocation's instants (Date.now()): spawned, the model requests, the CLI gone (its pipes closed). */
export interface DirectSample extends TurnTimes {
  spawnedAt: number;
  closedAt: number;
}

/**
 * The CLI started the way its own tests start it (packages/harnesses/test/*.cli.test.ts), without
 * agentrun: a fresh run directory (workspace, home, tmp), the harness's invocation for the same
 * turn the executor makes (its files written first, untimed), a clean environment with PATH, LANG,
 * TMPDIR, the invocation's variables, HOME, the key and the endpoint; stdin closed. Timed from
 * the spawn call to its pipes' close, which is when its caller has the whole stream, read line by
 * line through the harness's parser as it came.
 */
export async function directRun(cli: CliProfile, model: ModelServer): Promise<DirectSample> {
  const { harness, path } = programOf(cli);
  const root = await realpath(await mkdtemp(join(tmpdir(), `agentrun-bench-direct-${cli.type}-`)));
  try {
    const dirs = { workspace: join(root, 'workspace'), home: join(root, 'home'), tmp: join(root, 'tmp') };
    await Promise.all(Object.values(dirs).map((dir) => mkdir(dir, { recursive: true })));
    const endpoint = cli.endpoint(model.url);
    const turn: HarnessTurn = { workspace: dirs.workspace, home: dirs.home, prompt: PROMPT, model: cli.model, mcpServers: {}, endpoint };
    const invocation = harness.invocation(turn);
    for (const file of invocation.files) {
      await mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
      await writeFile(file.path, file.content, { mode: 0o600 });
    }
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...(process.env.LANG ? { LANG: process.env.LANG } : {}),
      TMPDIR: dirs.tmp,
      ...invocation.env,
      HOME: dirs.home,
      [harness.apiKeyVariable]: API_KEY,
      [harness.endpointVariable]: endpoint,
    };
    const from = model.requests.length;
    const spawnedAt = Date.now();
    const child = spawn(path, invocation.args, { cwd: dirs.workspace, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: RUN_TIMEOUT_MS });
    // Read as it comes, as any caller of the CLI would (the executor does too).
    const parser = harness.parser();
    const events: HarnessEvent[] = [];
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) events.push(...parser.line(line));
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c) => resolve(c));
    });
    const closedAt = Date.now();
    events.push(...(partial === '' ? [] : parser.line(partial)), ...parser.end());
    const result = events.filter((e) => e.kind === 'result').at(-1);
    if (code !== 0 || result?.kind !== 'result' || result.status !== 'succeeded' || result.message !== FINAL_TEXT) {
      throw new Error(`direct ${cli.type} did not succeed (exit ${code}, ${JSON.stringify(result)}): ${stderr.trim()}`);
    }
    return { spawnedAt, closedAt, ...turnTimes(model, cli, from) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
