import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPostgresStore, type PostgresStore, schemaOption } from '@agentrun/store-postgres';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { lockDataDirectory } from './data-directory-lock.js';
import { pgliteDialect } from './pglite-dialect.js';
import { pgliteNotifications } from './pglite-notifications.js';

export interface EmbeddedStoreOptions {
  /**
   * The data directory (absolute, or relative to the working directory): created if missing (mode
   * 0700), held by this process while the store is open (packages/store-pglite/README.md, "The lock").
   * PostgreSQL's files live in its `pgdata/`; the rest of it is free for other things of the same
   * install.
   */
  dataDir: string;
  /** The schema of the tables, as `createPostgresStore`'s. Default `'agentrun'`. */
  schema?: string;
}

/** Where PGlite keeps PostgreSQL's files in the data directory. */
const PGDATA = 'pgdata';

/**
 * The PostgreSQL store on an embedded PostgreSQL (PGlite) in `dataDir`: the same store and
 * migrations as on a server, durable, for one process. Resolves once the directory is held and
 * its tables migrated; fails with `DataDirectoryInUseError` while another process (or another
 * open store) holds it. `close()` closes the database and lets the directory go.
 */
export async function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<PostgresStore> {
  if (typeof options?.dataDir !== 'string' || options.dataDir.trim() === '') {
    throw new TypeError(`openEmbeddedStore: dataDir must be a directory path, got ${JSON.stringify(options?.dataDir)}`);
  }
  const schema = schemaOption(options.schema, 'openEmbeddedStore');
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDirectory(dataDir, options.dataDir);
  let db: Kysely<unknown> | undefined;
  try {
    const pgdata = join(dataDir, PGDATA);
    mkdirSync(pgdata, { recursive: true, mode: 0o700 });
    const pglite = await PGlite.create(pgdata);
    db = new Kysely({ dialect: pgliteDialect(pglite) });
    // Notifications come from PGlite's own session (pglite-notifications.ts), not a connection of their own.
    const store = createPostgresStore({ db, schema, listen: false });
    await store.migrate();
    const notifications = pgliteNotifications(pglite, store);
    let closing: Promise<void> | undefined;
    const owned = db;
    return {
      ...store,
      notifications,
      close() {
        closing ??= (async () => {
          try {
            await notifications.close();
            await store.close();
            await owned.destroy();
          } finally {
            await lock.release();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    await db?.destroy().catch(() => {});
    await lock.release();
    throw error;
  }
}
