export { describeSchema } from './describe-schema.js';
export { type MigrateResult, migrate } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export { createPostgresStore, type PostgresStore, type PostgresStoreOptions, survivePoolErrors } from './postgres-store.js';
export { isUnavailableError } from './unavailable.js';
