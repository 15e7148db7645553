export { createMemoryBlobStore } from './blobs.js';
export { createMemoryStore, type MemoryStoreOptions } from './memory-store.js';
