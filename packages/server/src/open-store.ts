import { join, resolve } from 'node:path';
import { filesystemBlobStore } from '@agentrun/blob-storage';
import type { BlobStore, Store } from '@agentrun/core';
import { createMemoryStore } from '@agentrun/store-memory';
import { openEmbeddedStore } from '@agentrun/store-pglite';
import { createPostgresBlobStore, createPostgresStore, isUnavailableError } from '@agentrun/store-postgres';
import { chosenStore, SettingError } from './read-settings.js';
import type { Settings } from './settings.js';
import { waitForDatabase } from './wait-for-database.js';

/** The store `npm start` serves from, and where artifacts' bytes go (docs/server.md, "Storage"). */
export interface ServerStore {
  kind: 'embedded' | 'postgres' | 'memory';
  store: Store;
  /** Undefined: in memory, the reference server's default. */
  blobs: BlobStore | undefined;
  /** The embedded store's directory, absolute. */
  dataDir?: string;
  /** For the start-up line: `postgres, schema agentrun`. */
  description: string;
}

type StoreSettings = Pick<Settings, 'AGENTRUN_STORE' | 'AGENTRUN_DATA_DIR' | 'DATABASE_URL' | 'AGENTRUN_DB_SCHEMA' | 'AGENTRUN_BLOB_DIR'>;

/**
 * Opens the store the settings choose: PostgreSQL migrated (safe when several servers start at
 * once, a database not up yet waited for: wait-for-database.ts), the embedded one in its data
 * directory (@agentrun/store-pglite: its database in `pgdata/`, artifacts' bytes in `blobs/`,
 * the secret key beside them: server-secret-key.ts), or memory.
 */
export async function openServerStore(settings: StoreSettings): Promise<ServerStore> {
  const kind = chosenStore(settings);
  const blobDir = settings.AGENTRUN_BLOB_DIR;
  const files = (directory: string) => filesystemBlobStore({ directory });
  if (kind === 'memory') return { kind, store: createMemoryStore(), blobs: blobDir ? files(blobDir) : undefined, description: 'memory' };
  if (kind === 'postgres') {
    const store = postgresStore(settings.DATABASE_URL as string, settings.AGENTRUN_DB_SCHEMA);
    await waitForDatabase(() => store.migrate(), isUnavailableError);
    return {
      kind,
      store,
      blobs: blobDir ? files(blobDir) : createPostgresBlobStore(store),
      description: `postgres, schema ${store.schema}`,
    };
  }
  // One process at a time: another holding the directory is a DataDirectoryInUseError saying which.
  const dataDir = resolve(settings.AGENTRUN_DATA_DIR);
  const store = await openEmbeddedStore({ dataDir });
  return { kind, store, blobs: files(blobDir ?? join(dataDir, 'blobs')), dataDir, description: `embedded, in ${dataDir}` };
}

/** The PostgreSQL store; a schema name it refuses is a SettingError naming AGENTRUN_DB_SCHEMA. */
function postgresStore(connectionString: string, schema: string | undefined) {
  try {
    return createPostgresStore({ connectionString, ...(schema !== undefined ? { schema } : {}) });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new SettingError('AGENTRUN_DB_SCHEMA', `AGENTRUN_DB_SCHEMA: ${error.message}`);
  }
}
