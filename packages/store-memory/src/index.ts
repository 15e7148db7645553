export { createMemoryStore, type MemoryStoreOptions } from './memory-store.js';
