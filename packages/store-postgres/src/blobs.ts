import type { BlobStore } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import type { Tables } from './tables.js';

/**
 * Artifacts' bytes in PostgreSQL (table `artifact_blobs`; docs/artifacts.md "Blob
 * storage"): one `bytea` row per blob, no larger than core's upload limit (25 MiB by default), so
 * a blob is written and read in one statement. Beside the store on the same pool:
 * `createPostgresBlobStore(store)`.
 */
export function createPostgresBlobs(db: Db, t: Tables): BlobStore {
  return {
    async put(key, bytes, contentType) {
      await sql`INSERT INTO ${t.artifact_blobs} (key, content_type, size_bytes, content)
        VALUES (${key}, ${contentType}, ${bytes.byteLength}, ${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)})
        ON CONFLICT (key) DO UPDATE SET content_type = EXCLUDED.content_type, size_bytes = EXCLUDED.size_bytes, content = EXCLUDED.content`.execute(
        db,
      );
    },
    async get(key) {
      const { rows } = await sql<{ content_type: string; content: Buffer }>`
        SELECT content_type, content FROM ${t.artifact_blobs} WHERE key = ${key}`.execute(db);
      const row = rows[0];
      return (
        row && { bytes: new Uint8Array(row.content.buffer, row.content.byteOffset, row.content.byteLength), contentType: row.content_type }
      );
    },
    async delete(key) {
      await sql`DELETE FROM ${t.artifact_blobs} WHERE key = ${key}`.execute(db);
    },
  };
}
