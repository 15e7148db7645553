import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobKey } from '@agentrun/core/store';
import { describeBlobStoreConformance } from '@agentrun/core/testing';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { filesystemBlobStore } from '../src/index.js';

const dirs: string[] = [];
const directory = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agentrun-blobs-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describeBlobStoreConformance('filesystem', async () => filesystemBlobStore({ directory: await directory() }));

describe('filesystemBlobStore', () => {
  it('refuses keys that could leave its directory, and writes nothing', async () => {
    const dir = await directory();
    const blobs = filesystemBlobStore({ directory: dir });
    for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', 'a\\b', '']) {
      await expect(blobs.put(key, new Uint8Array([1]), 'text/plain'), key).rejects.toThrow(TypeError);
      await expect(blobs.get(key), key).rejects.toThrow(TypeError);
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes every key core makes, whatever the team and run IDs', async () => {
    const blobs = filesystemBlobStore({ directory: await directory() });
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ maxLength: 300 }), fc.uuid(), async (team, run, uid) => {
        const key = blobKey(team, run, uid);
        await blobs.put(key, new Uint8Array([1]), 'text/plain');
        expect((await blobs.get(key))?.bytes).toEqual(new Uint8Array([1]));
      }),
      { numRuns: 50 },
    );
  });

  it('leaves no temporary file after a put', async () => {
    const dir = await directory();
    const blobs = filesystemBlobStore({ directory: dir });
    await blobs.put('t/r/a', new Uint8Array([1, 2]), 'image/png');
    expect(await readdir(join(dir, 't', 'r'))).toEqual(['a.blob']);
  });
});
