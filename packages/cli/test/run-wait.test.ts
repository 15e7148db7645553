import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, envFor, startServer } from './support.js';

// `agentrun run --wait` and `--follow` against a server whose demo agent finishes quickly: the
// exit code is the run's (0 SUCCEEDED, 5 otherwise; the demo fails when the prompt says "fail").

let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer({ demoDurationMs: 100, pollIntervalMs: 50 });
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

describe.concurrent('run --wait / --follow', () => {
  it('--wait prints the finished run (--json: the API’s run) and exits 0 when it succeeded', async () => {
    const result = await cli(['run', 'Tidy the README', '--wait', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ state: 'SUCCEEDED', prompt: 'Tidy the README' });
    // stderr is not a terminal here: no spinner drawn.
    expect(result.stderr).not.toContain('\r');
  });

  it('--wait exits 5 when the run ended otherwise, saying how', async () => {
    const result = await cli(['run', 'Please fail', '--wait'], { env });
    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(/^state:\s+FAILED$/m);
    expect(result.stderr).toMatch(/ended FAILED: The demo agent was asked to fail/);
  });

  it('--follow prints the transcript live until the run ends', async () => {
    const result = await cli(['run', 'Write the release notes', '--follow'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/→ SUCCEEDED/);
    expect(result.stderr).toMatch(/^Run \S+: following its transcript$/m);
  });

  it('runs wait and runs follow stay with a run started earlier; follow replays a finished run’s transcript', async () => {
    const started = await cli(['run', 'Update the changelog', '--json'], { env });
    const { run_id } = JSON.parse(started.stdout) as { run_id: string };
    const waited = await cli(['runs', 'wait', run_id, '--timeout', '30', '--json'], { env });
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ run_id, state: 'SUCCEEDED' });
    const followed = await cli(['runs', 'follow', run_id, '--json'], { env });
    expect(followed.code, followed.stderr).toBe(0);
    const events = followed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { to?: string } });
    expect(events.at(-1)).toMatchObject({ type: 'state', data: { to: 'SUCCEEDED' } });
  });
});
