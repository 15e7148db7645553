export { type DataDirectoryHolder, DataDirectoryInUseError } from './data-directory-lock.js';
export { type EmbeddedStoreOptions, openEmbeddedStore } from './embedded-store.js';
export { pgliteDialect } from './pglite-dialect.js';
