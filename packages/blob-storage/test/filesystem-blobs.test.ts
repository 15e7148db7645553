import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeBlobStoreConformance } from '@agentrun/core/testing';
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

  it('leaves no temporary file after a put', async () => {
    const dir = await directory();
    const blobs = filesystemBlobStore({ directory: dir });
    await blobs.put('t/r/a', new Uint8Array([1, 2]), 'image/png');
    expect(await readdir(join(dir, 't', 'r'))).toEqual(['a.blob']);
  });
});
