import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRun, createAgentRun, type Worker } from '@agentrun/core';
import { PNG_BYTES, testPrincipal } from '@agentrun/core/testing';
import { createMemoryBlobStore, createMemoryStore } from '@agentrun/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWorkspaceFile } from '../src/artifact-file.js';
import { processExecutor } from '../src/index.js';
import { until } from './support/agents.js';

// Artifacts through the JSON-lines protocol (docs/executors.md, "Artifacts"): an agent reports
// the four kinds; screenshots and files are read from its workspace, and nothing outside it.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agentrun-artifacts-test-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('readWorkspaceFile', () => {
  const workspace = () => {
    const dir = join(root, 'ws');
    mkdirSync(dir);
    writeFileSync(join(root, 'secret.txt'), 'outside');
    return dir;
  };

  it('reads a regular file inside the workspace, through a symlink that stays inside', async () => {
    const ws = workspace();
    mkdirSync(join(ws, 'out'));
    writeFileSync(join(ws, 'out', 'a.txt'), 'hello');
    symlinkSync('out/a.txt', join(ws, 'inner-link'));
    expect(await readWorkspaceFile(ws, 'out/a.txt', 100)).toEqual({ bytes: new TextEncoder().encode('hello') });
    expect(await readWorkspaceFile(ws, 'inner-link', 100)).toEqual({ bytes: new TextEncoder().encode('hello') });
  });

  it('refuses what leaves the workspace: .., absolute paths, symlinks (to files or directories) and hard links out', async () => {
    const ws = workspace();
    symlinkSync(join(root, 'secret.txt'), join(ws, 'link'));
    symlinkSync(root, join(ws, 'dir-link'));
    linkSync(join(root, 'secret.txt'), join(ws, 'hard'));
    for (const path of [
      '../secret.txt',
      'a/../../secret.txt',
      join(root, 'secret.txt'),
      'link',
      'dir-link/secret.txt',
      'hard',
      '.',
      '',
      'x\0y',
    ]) {
      const read = await readWorkspaceFile(ws, path, 100);
      expect(read, path).toEqual({ refused: expect.any(String) });
    }
  });

  it('refuses directories, FIFOs and devices without blocking, and files over the limit', async () => {
    const ws = workspace();
    mkdirSync(join(ws, 'dir'));
    execFileSync('mkfifo', [join(ws, 'fifo')]);
    symlinkSync('/dev/zero', join(ws, 'zero'));
    writeFileSync(join(ws, 'big'), new Uint8Array(101));
    expect(await readWorkspaceFile(ws, 'dir', 100)).toEqual({ refused: 'dir: not a regular file' });
    expect(await readWorkspaceFile(ws, 'fifo', 100)).toEqual({ refused: 'fifo: not a regular file' });
    expect(await readWorkspaceFile(ws, 'zero', 100)).toEqual({ refused: 'zero: leads outside the workspace' });
    expect(await readWorkspaceFile(ws, 'big', 100)).toEqual({ refused: 'big is 101 bytes; at most 100' });
    expect(await readWorkspaceFile(ws, 'missing', 100)).toEqual({ refused: 'missing: no such file' });
  });
});

describe('artifact messages, end to end through a worker', () => {
  let agentrun: AgentRun;
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  /** An agent (a Node script run with `-e`) that makes files in its workspace and prints `lines`. */
  const agentScript = (lines: object[], result: object) =>
    [
      "const fs = require('node:fs');",
      `fs.writeFileSync('shot.png', Buffer.from(${JSON.stringify([...PNG_BYTES])}));`,
      "fs.writeFileSync('report.txt', 'hello');",
      "fs.writeFileSync('big.bin', Buffer.alloc(2000));",
      `fs.writeFileSync(${JSON.stringify(join(root, 'secret.txt'))}, 'the host');`,
      `fs.symlinkSync(${JSON.stringify(join(root, 'secret.txt'))}, 'link');`,
      ...lines.map((l) => `console.log(${JSON.stringify(JSON.stringify({ agentrun: 'artifact', ...l }))});`),
      `console.log(${JSON.stringify(JSON.stringify({ agentrun: 'result', ...result }))});`,
    ].join('\n');

  it('keeps the pull request, the screenshot and the file; refuses paths out of the workspace and an oversized file; the run ends as its result says', async () => {
    const blobs = createMemoryBlobStore();
    const script = agentScript(
      [
        { type: 'PULL_REQUEST', url: 'https://github.com/acme/app/pull/1', branch: 'fix' },
        { type: 'SCREENSHOT', path: 'shot.png', description: 'home page' },
        { type: 'FILE', path: 'report.txt', content_type: 'text/plain' },
        { type: 'FILE', path: '../secret.txt' },
        { type: 'FILE', path: 'link' },
        { type: 'FILE', path: join(root, 'secret.txt') },
        { type: 'FILE', path: 'big.bin' },
        { type: 'SCREENSHOT', path: 'report.txt' },
        { type: 'pull_request', url: 'https://example.com/legacy' },
      ],
      { status: 'failed', message: 'tests still fail', error_code: 'agent_failed' },
    );
    agentrun = createAgentRun({
      store: createMemoryStore(),
      blobs,
      artifactLimits: { maxFileBytes: 1000 },
      executor: processExecutor({
        command: process.execPath,
        args: ['-e', script],
        workspaceRoot: join(root, 'workspaces'),
        killGraceMs: 2000,
      }),
    });
    mkdirSync(join(root, 'workspaces'));
    const principal = testPrincipal();
    const runId = (await agentrun.services.runs.create(principal, { prompt: 'make artifacts' })).body.run_id;
    worker = agentrun.worker({ pollIntervalMs: 20 });
    worker.start();
    await until(
      async () => ['SUCCEEDED', 'FAILED', 'ERROR'].includes((await agentrun.services.runs.get(principal, runId)).state),
      'the run to end',
    );
    const run = await agentrun.services.runs.get(principal, runId);
    expect(run.state).toBe('FAILED');
    expect(run.status_message).toMatchObject({ message: 'tests still fail' });
    expect(run.artifacts?.map((a) => a.artifact_type)).toEqual(['PULL_REQUEST', 'SCREENSHOT', 'FILE']);
    expect(run.artifacts?.[1]?.data).toMatchObject({ mime_type: 'image/png', description: 'home page' });
    expect(run.artifacts?.[2]?.data).toMatchObject({
      filename: 'report.txt',
      filepath: 'report.txt',
      mime_type: 'text/plain',
      size_bytes: 5,
    });
    const file = run.artifacts?.[2]?.data as { artifact_uid: string };
    const stored = await agentrun.store.artifacts.get(file.artifact_uid);
    expect(await blobs.get(stored?.blob?.key as string)).toEqual({ bytes: new TextEncoder().encode('hello'), contentType: 'text/plain' });

    const events = await agentrun.store.runEvents.list(runId, { limit: 1000 });
    const refusals = events
      .filter((e) => e.type === 'status')
      .map((e) => (e.data as { message: string }).message)
      .filter((m) => m.startsWith('Artifact refused'));
    expect(refusals).toEqual([
      'Artifact refused: ../secret.txt: outside the workspace',
      'Artifact refused: link: leads outside the workspace',
      `Artifact refused: ${join(root, 'secret.txt')}: not a path inside the workspace`,
      'Artifact refused: big.bin is 2000 bytes; at most 1000',
      'Artifact refused: report.txt is not a PNG, JPEG, GIF or WebP image',
    ]);
    // The three kept are artifact events, in the order printed; the lowercase type stays a transcript
    // note, as before (written with the lines, so it may come before artifacts still being read).
    const artifactEvents = events.filter((e) => e.type === 'artifact').map((e) => e.data as { artifact_type?: string; type?: string });
    expect(artifactEvents.flatMap((a) => a.artifact_type ?? [])).toEqual(['PULL_REQUEST', 'SCREENSHOT', 'FILE']);
    expect(artifactEvents.flatMap((a) => (a.artifact_type === undefined ? [a.type] : []))).toEqual(['pull_request']);
  });
});
