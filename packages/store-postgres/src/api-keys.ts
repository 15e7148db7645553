import type { ApiKeyStore } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.js';
import { type ApiKeyRow, apiKeyFromRow, json } from './rows.js';
import type { Tables } from './tables.js';

/** API keys (table `api_keys`, by hash; the key itself is never stored). Every operation is one statement. */
export function createApiKeys(db: Db, t: Tables): ApiKeyStore {
  const rows = async <R>(query: RawBuilder<unknown>): Promise<R[]> => (await query.execute(db)).rows as R[];
  return {
    async create(record) {
      await sql`INSERT INTO ${t.api_keys} (hash, prefix, principal, created_at)
        VALUES (${record.hash}, ${record.prefix}, ${json(record.principal)}::jsonb, ${record.createdAt}::timestamptz)`.execute(db);
    },
    async findByHash(hash) {
      const [row] = await rows<ApiKeyRow>(sql`SELECT * FROM ${t.api_keys} WHERE hash = ${hash}`);
      return row ? apiKeyFromRow(row) : undefined;
    },
  };
}
