export { createMemoryStore } from './memory-store.js';
