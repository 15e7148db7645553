export { createMemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { createMemoryBlobStore } from './blobs.js';
