import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Executor } from '@agentrun/core';
import { PNG_BYTES } from '@agentrun/core/testing';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, envFor, startServer } from './support.js';

// `agentrun runs artifacts` and `agentrun artifacts download` (docs/cli.md, "Artifacts").
const reporting: Executor = {
  async execute(_input, context) {
    await context.reportArtifact?.({ type: 'PULL_REQUEST', url: 'https://example.com/pr/3', branch: 'fix' });
    await context.reportArtifact?.({ type: 'SCREENSHOT', filepath: 'a.png', content: PNG_BYTES, description: 'home' });
    return { status: 'succeeded' };
  },
};

describe('agentrun artifacts', () => {
  let server: ReferenceServer;
  let runId: string;
  const dir = mkdtempSync(join(tmpdir(), 'agentrun-cli-artifacts-'));
  beforeAll(async () => {
    server = await startServer({ executor: reporting, pollIntervalMs: 20 });
    const started = await cli(['run', 'make things', '--wait', '--json'], { env: envFor(server) });
    runId = (JSON.parse(started.stdout) as { run_id: string }).run_id;
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists a run's artifacts, as a table and as JSON, and saves a screenshot's bytes", async () => {
    const listed = await cli(['runs', 'artifacts', runId], { env: envFor(server) });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/PULL_REQUEST .*https:\/\/example\.com\/pr\/3 \(fix\)/);
    expect(listed.stdout).toMatch(/SCREENSHOT +[0-9a-f-]{36} +home \(image\/png\)/);
    const json = await cli(['runs', 'artifacts', runId, '--json'], { env: envFor(server) });
    const artifacts = JSON.parse(json.stdout) as { artifact_type: string; data: { artifact_uid?: string } }[];
    const uid = artifacts[1]?.data.artifact_uid as string;
    const out = join(dir, 'shot.png');
    const saved = await cli(['artifacts', 'download', uid, '--out', out], { env: envFor(server) });
    expect(saved.code).toBe(0);
    expect(new Uint8Array(readFileSync(out))).toEqual(PNG_BYTES);
  });

  it('download needs --out; an unknown artifact is an API error', async () => {
    expect((await cli(['artifacts', 'download', 'x'], { env: envFor(server) })).code).toBe(2);
    const missing = await cli(['artifacts', 'download', 'no-such', '--out', join(dir, 'x')], { env: envFor(server) });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/not found/);
  });
});
