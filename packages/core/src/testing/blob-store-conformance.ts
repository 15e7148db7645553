import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../artifacts/blob-store.js';
import { blobKey } from '../artifacts/blob-store.js';
import { newId } from '../util/ids.js';

/**
 * What every `BlobStore` must do (docs/artifacts.md, "Blob storage"): the filesystem, PostgreSQL
 * and memory implementations run it, and so should an S3-compatible one.
 */
export function describeBlobStoreConformance(name: string, create: () => BlobStore | Promise<BlobStore>): void {
  describe(`BlobStore conformance: ${name}`, () => {
    it('keeps bytes and their type under a key, replaces them, and deletes them', async () => {
      const blobs = await create();
      const key = blobKey('team-1', `run-${newId()}`, newId());
      const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256);
      await blobs.put(key, bytes, 'application/octet-stream');
      expect(await blobs.get(key)).toEqual({ bytes, contentType: 'application/octet-stream' });
      await blobs.put(key, new Uint8Array([1, 2, 3]), 'image/png');
      expect(await blobs.get(key)).toEqual({ bytes: new Uint8Array([1, 2, 3]), contentType: 'image/png' });
      await blobs.delete(key);
      expect(await blobs.get(key)).toBeUndefined();
      await blobs.delete(key);
    });

    it('keeps an empty blob, and answers undefined for a key never put', async () => {
      const blobs = await create();
      const key = blobKey('team-1', 'run-1', newId());
      await blobs.put(key, new Uint8Array(), 'text/plain');
      expect(await blobs.get(key)).toEqual({ bytes: new Uint8Array(), contentType: 'text/plain' });
      expect(await blobs.get(blobKey('team-1', 'run-1', newId()))).toBeUndefined();
    });

    it('the bytes handed back are the caller’s: changing them changes nothing stored', async () => {
      const blobs = await create();
      const key = blobKey('team-1', 'run-1', newId());
      const bytes = new Uint8Array([5, 6, 7]);
      await blobs.put(key, bytes, 'text/plain');
      bytes[0] = 0;
      const read = await blobs.get(key);
      expect(read?.bytes).toEqual(new Uint8Array([5, 6, 7]));
      if (read) read.bytes[1] = 0;
      expect((await blobs.get(key))?.bytes).toEqual(new Uint8Array([5, 6, 7]));
    });
  });
}
