import type { BlobStore, StoredBlob } from '@agentrun/core/store';

/**
 * Artifacts' bytes in process memory (docs/artifacts.md, "Blob storage"): for tests and a
 * single-process server beside the memory store; gone when the process ends, like its runs.
 */
export function createMemoryBlobStore(): BlobStore {
  const blobs = new Map<string, StoredBlob>();
  return {
    async put(key, bytes, contentType) {
      blobs.set(key, { bytes: new Uint8Array(bytes), contentType });
    },
    async get(key) {
      const blob = blobs.get(key);
      return blob && { bytes: new Uint8Array(blob.bytes), contentType: blob.contentType };
    },
    async delete(key) {
      blobs.delete(key);
    },
  };
}
