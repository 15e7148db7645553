import type { Executor, HarnessInfo } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun harnesses list` (docs/cli.md, "harnesses list") against a reference server whose executor
// says what it runs, and one on the demo executor, which does not.

const RUNS: HarnessInfo[] = [
  { type: 'claude', version: '2.1.332', default: true },
  { type: 'codex', version: '0.171.0' },
  { type: 'command' },
];

// No run is started here, so the executor is asked only what it runs.
const listing: Executor = {
  execute: () => Promise.reject(new Error('no run is started in this test')),
  harnesses: async () => RUNS,
};

let server: ReferenceServer;
let demo: ReferenceServer;
beforeAll(async () => {
  [server, demo] = await Promise.all([startServer({ executor: listing }), startServer()]);
});
afterAll(() => Promise.all([server?.close({ graceMs: 0 }), demo?.close({ graceMs: 0 })]));

describe('agentrun harnesses list', () => {
  it('prints each harness with its version, the default marked', async () => {
    const listed = await cli(['harnesses', 'list'], { env: envFor(server) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trimEnd().split('\n')).toEqual([
      'TYPE     VERSION  DEFAULT',
      'claude   2.1.332  yes',
      'codex    0.171.0  no',
      'command  -        no',
    ]);
  });

  it('--json prints the array the API answers', async () => {
    expect(await cliJson(['harnesses', 'list'], { env: envFor(server) })).toEqual(RUNS);
  });

  it('says so when the executor lists none, on stderr, leaving stdout empty', async () => {
    const listed = await cli(['harnesses', 'list'], { env: envFor(demo) });
    expect(listed).toEqual({ code: 0, stdout: '', stderr: 'No harnesses listed.\n' });
    expect(await cliJson(['harnesses', 'list'], { env: envFor(demo) })).toEqual([]);
  });

  it('alone, the group shows its command', async () => {
    const group = await cli(['harnesses', '--help']);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('harnesses list');
  });
});
