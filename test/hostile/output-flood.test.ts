import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FloodResult } from './support/flood-server.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * An agent that prints a gigabyte. Read as fast as it prints, output held for the store would
 * grow the server by as much and keep the run INPROGRESS long past its timeout. So the agent's
 * output is read as fast as the store takes it (stdout paused while a batch waits), a run keeps at most
 * `maxOutputBytes` of it (one marker, then the rest read and dropped), and a timeout ends the run
 * whatever is queued (docs/executors.md, "Output budget").
 *
 * The server (worker and store) runs in a child process (support/flood-server.ts) so that its
 * peak resident memory, VmHWM, is the server's alone: four runs at once, each agent printing 1 GB
 * (long lines, short lines, one line without a newline, stderr) and then sleeping, so each run
 * ends by its timeout. The child's young generation is pinned to 16 MB a semi-space (Node 22's
 * size here): Node 24 sizes it by the machine's memory, 64 MB a semi-space on a 24 GiB machine,
 * and fills it before collecting, which added some 100 MB of garbage not yet collected to the
 * peak on PostgreSQL, the same however much the agents print. The bound is on what the server keeps.
 */

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = fileURLToPath(new URL('./support/flood-server.ts', import.meta.url));
const GB = 2 ** 30;
/** The agents: each prints 1 GB, then waits for the timeout. */
const AGENTS = {
  // 8 KiB lines: the budget's case (each line kept whole).
  long: `L=$(head -c 8191 /dev/zero | tr '\\0' x); yes "$L" | head -c ${GB}; exec sleep 60`,
  // "y" lines: the store's per-run event cap comes first.
  short: `yes | head -c ${GB}; exec sleep 60`,
  // One line, no newline: cut at 64 KiB, the rest read and dropped.
  oneline: `head -c ${GB} /dev/zero | tr '\\0' x; exec sleep 60`,
  // stderr: only its last 2 KB is kept.
  stderr: `L=$(head -c 8191 /dev/zero | tr '\\0' x); yes "$L" | head -c ${GB} >&2; exec sleep 60`,
};
const TIMEOUT_MS = 3000;
/** The runs' `maxOutputBytes`: a quarter of the default, so that PostgreSQL reaches it well within the timeout. */
const BUDGET = 4 * 2 ** 20;
/**
 * The server's peak resident memory above its own before the runs (docs/executors.md, "Output
 * budget"): four runs' transcripts (16 MB on the memory store) and what reading 4 GB of output
 * costs on the way. Measured +15 to +25 MB on Node 20, 22 and 24; before the budget, +60 MB
 * (memory store) and +128 MB (PostgreSQL, its 10,000 events of 8 KiB lines) in the same 3 s.
 */
const MEMORY_BOUND_MB = 96;

describe.each(HOSTILE_STORES)('an agent printing 1 GB, on %s', (kind) => {
  const stores = storeFor(kind, 'flood');
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agentrun-flood-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('ends each run by its timeout, with its output kept to the budget, and the server memory bounded', async () => {
    await stores.fresh(); // an empty schema for the child's store
    const database = stores.database();
    const result = await runFloodServer({
      FLOOD_STORE: kind,
      FLOOD_AGENTS: JSON.stringify(AGENTS),
      FLOOD_TIMEOUT_MS: String(TIMEOUT_MS),
      FLOOD_WORKSPACE_ROOT: root,
      FLOOD_MAX_OUTPUT_BYTES: String(BUDGET),
      ...(database?.url ? { DATABASE_URL: database.url, AGENTRUN_DB_SCHEMA: database.schema } : {}),
    });
    const growthMb = (result.hwmKb - result.rssBeforeKb) / 1024;
    console.log(
      `[output-flood ${kind}] server RSS ${(result.rssBeforeKb / 1024).toFixed(0)} MB before, peak ${(result.hwmKb / 1024).toFixed(0)} MB (+${growthMb.toFixed(0)} MB), ${(result.hwmAfterReadKb / 1024).toFixed(0)} MB once the transcripts were read; runs: ${JSON.stringify(result.runs)}`,
    );
    const { long, short, oneline, stderr } = result.runs;
    for (const [name, run] of Object.entries(result.runs)) {
      // Each ends by its timeout, its outcome the transcript's last event (the store's cap not reached).
      expect({ name, state: run.state, error_code: run.error_code, last: run.last }).toEqual({
        name,
        state: 'FAILED',
        error_code: 'timeout',
        last: 'state FAILED',
      });
      expect(run.storeTruncated).toBe(false);
      expect(run.dataChars).toBeLessThanOrEqual(BUDGET + 10 * 1024 + run.events * 64);
    }
    // Long lines: kept up to the budget, then one marker.
    expect(long?.markers).toEqual([
      expect.stringMatching(/^Output truncated after \d+ bytes: the agent's output beyond maxOutputBytes \(4194304\)/),
    ]);
    expect(long?.outputChars).toBeLessThanOrEqual(BUDGET);
    expect(long?.outputChars).toBeGreaterThan(BUDGET - 8192);
    // Short lines: kept up to the line cap, just short of the store's event cap, then one marker;
    // or, where the store takes fewer than 9,900 lines in the 3 s (PostgreSQL on a loaded machine:
    // output is read only as fast as the store takes it), cut by the timeout with one marker. The
    // line cap itself is executor-process/test/agent-output.test.ts's.
    expect(short?.markers).toEqual([
      expect.stringMatching(
        /^Output truncated after \d+ bytes: (the agent's lines beyond 9900 |the run was stopped \(timeout\) with output still waiting for the store)/,
      ),
    ]);
    // One line without a newline: cut (core keeps 16,384 characters of it); stderr: nothing in the transcript.
    expect(oneline?.outputChars).toBe(16_384);
    expect(oneline?.markers).toEqual([]);
    expect(stderr?.outputChars).toBe(0);
    expect(stderr?.markers).toEqual([]);
    expect(growthMb).toBeLessThan(MEMORY_BOUND_MB);
  }, 60_000);
});

/** Run support/flood-server.ts with `env`; its result line. */
function runFloodServer(env: Record<string, string>): Promise<FloodResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--max-semi-space-size=16', '--conditions=agentrun-source', '--import', 'tsx', SERVER],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err = (err + chunk).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('flood-result '));
      if (code === 0 && line) resolve(JSON.parse(line.slice('flood-result '.length)) as FloodResult);
      else reject(new Error(`the flood server exited ${code}\n${out.slice(-4000)}\n${err}`));
    });
  });
}
