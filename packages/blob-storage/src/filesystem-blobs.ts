import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { BlobStore } from '@agentrun/core/store';

export interface FilesystemBlobStoreOptions {
  /** The directory the blobs live under (created when missing). Give each agentrun its own. */
  directory: string;
}

/** A key segment as core makes them (artifacts/blob-store.ts `blobKey`): never `.`, `..` or empty. */
const SEGMENT = /^[A-Za-z0-9._-]{1,200}$/;

/**
 * Artifacts' bytes as files (docs/artifacts.md, "Blob storage"): `<directory>/<key>.blob`, each
 * holding its content type on the first line and the bytes after it, so the two are written
 * together. A put writes a temporary file beside the target, syncs it and renames it over the
 * target: a reader sees the old blob or the new one, never half of one, and a crash leaves at most
 * a `.tmp-*` file behind. A key that could leave the directory is refused (a TypeError).
 */
export function filesystemBlobStore(options: FilesystemBlobStoreOptions): BlobStore {
  const root = resolve(options.directory);
  const pathOf = (key: string) => {
    const segments = key.split('/');
    if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s) && s !== '.' && s !== '..')) {
      throw new TypeError(`blob key ${JSON.stringify(key)}: segments of A-Z a-z 0-9 . _ -, never . or ..`);
    }
    return `${join(root, ...segments)}.blob`;
  };
  return {
    async put(key, bytes, contentType) {
      if (/[\r\n]/.test(contentType)) throw new TypeError('a content type is one line');
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      const temporary = `${target}.tmp-${randomUUID()}`;
      const file = await open(temporary, 'wx', 0o600);
      try {
        await file.write(`${contentType}\n`);
        await file.write(bytes);
        await file.sync();
      } finally {
        await file.close();
      }
      try {
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async get(key) {
      let data: Buffer;
      try {
        data = await readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      const newline = data.indexOf(10);
      if (newline < 0) throw new Error(`blob ${key} has no content type line`);
      const bytes = new Uint8Array(data.byteLength - newline - 1);
      bytes.set(data.subarray(newline + 1));
      return { bytes, contentType: data.subarray(0, newline).toString('utf8') };
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}
