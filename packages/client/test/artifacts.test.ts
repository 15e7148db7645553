import type { Executor } from '@agentrun/core';
import { PNG_BYTES } from '@agentrun/core/testing';
import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunClient } from '../src/index.js';
import { clientFor } from './support.js';

// client.artifacts (docs/client.md, "Artifacts"): a run's list, one artifact, its bytes.
const reporting: Executor = {
  async execute(_input, context) {
    await context.reportArtifact?.({ type: 'PULL_REQUEST', url: 'https://example.com/pr/1', branch: 'b' });
    await context.reportArtifact?.({ type: 'SCREENSHOT', filepath: 'a.png', content: PNG_BYTES });
    return { status: 'succeeded' };
  },
};

describe('client.artifacts', () => {
  let server: ReferenceServer;
  let client: AgentRunClient;
  let runId: string;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, executor: reporting, pollIntervalMs: 20 });
    client = clientFor(server);
    runId = (await client.runs.create({ prompt: 'p' })).run_id;
    await client.runs.wait(runId, { pollIntervalMs: 20 });
  });
  afterAll(() => server.close());

  it("lists a run's artifacts, gets one, and downloads its bytes", async () => {
    const artifacts = await client.artifacts.list(runId);
    expect(artifacts.map((a) => a.artifact_type)).toEqual(['PULL_REQUEST', 'SCREENSHOT']);
    const uid = (artifacts[1]?.data as { artifact_uid: string } | undefined)?.artifact_uid as string;
    expect(await client.artifacts.get(uid)).toMatchObject({
      artifact_type: 'SCREENSHOT',
      artifact_uid: uid,
      data: { content_type: 'image/png' },
    });
    expect(new Uint8Array(await client.artifacts.download(uid))).toEqual(PNG_BYTES);
  });

  it('an unknown artifact is a 404, for get and download alike', async () => {
    await expect(client.artifacts.get('no-such-uid')).rejects.toMatchObject({ status: 404 });
    await expect(client.artifacts.download('no-such-uid')).rejects.toMatchObject({ status: 404 });
  });
});
