export { describeSchema } from './describe-schema.js';
export { type MigrateOptions, type MigrateResult, migrate } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export { parseNotifications } from './notifications.js';
export {
  createPostgresBlobStore,
  createPostgresStore,
  type PostgresConnectionStringOptions,
  type PostgresListenOption,
  type PostgresListenOptions,
  type PostgresPreparedOption,
  type PostgresSchemaOption,
  type PostgresStore,
  type PostgresStoreOptions,
  survivePoolErrors,
} from './postgres-store.js';
export { DEFAULT_SCHEMA, schemaOption } from './schema-name.js';
export { isUnavailableError } from './unavailable.js';
