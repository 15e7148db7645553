import type { ApiKeyStore } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.js';
import { type ApiKeyRow, apiKeyFromRow, json } from './rows.js';
import type { Tables } from './tables.js';

/** API keys (table `api_keys`, by hash; the key itself is never stored). Every operation is one statement. */
export function createApiKeys(db: Db, t: Tables): ApiKeyStore {
  const rows = async <R>(query: RawBuilder<unknown>): Promise<R[]> => (await query.execute(db)).rows as R[];
  return {
    async create(r) {
      await sql`INSERT INTO ${t.api_keys} (id, hash, prefix, name, principal, created_by, scopes, created_at, expires_at)
        VALUES (COALESCE(${r.id ?? null}::text, gen_random_uuid()::text), ${r.hash}, ${r.prefix}, ${r.name ?? ''},
          ${json(r.principal)}::jsonb, ${json(r.createdBy ?? null)}::jsonb, ${json(r.scopes ?? null)}::jsonb,
          ${r.createdAt}::timestamptz, ${r.expiresAt ?? null}::timestamptz)`.execute(db);
    },
    async findByHash(hash) {
      const [row] = await rows<ApiKeyRow>(sql`SELECT * FROM ${t.api_keys} WHERE hash = ${hash}`);
      return row ? apiKeyFromRow(row) : undefined;
    },
    async list(teamUid) {
      const found = await rows<ApiKeyRow>(sql`SELECT * FROM ${t.api_keys}
        WHERE principal->>'team_uid' = ${teamUid} AND revoked_at IS NULL ORDER BY created_at DESC, id`);
      return found.map(apiKeyFromRow);
    },
    async revoke(teamUid, id, at) {
      // The row is locked as it is read, so of two concurrent revokes exactly one revokes it; the
      // other sees it revoked and keeps its first time.
      const [row] = await rows<ApiKeyRow & { revoked: boolean }>(sql`WITH before AS (
          SELECT hash, revoked_at FROM ${t.api_keys} WHERE id = ${id} AND principal->>'team_uid' = ${teamUid} FOR UPDATE
        )
        UPDATE ${t.api_keys} AS k SET revoked_at = COALESCE(k.revoked_at, ${at}::timestamptz)
        FROM before WHERE k.hash = before.hash
        RETURNING k.*, before.revoked_at IS NULL AS revoked`);
      return row ? { record: apiKeyFromRow(row), revoked: row.revoked } : undefined;
    },
    async touch(uses) {
      if (uses.length === 0) return;
      // One statement for the whole batch; GREATEST ignores a NULL, and a later use always wins.
      await sql`UPDATE ${t.api_keys} AS k SET last_used_at = GREATEST(k.last_used_at, u.at)
        FROM (SELECT hash, max(at) AS at FROM unnest(${uses.map((u) => u.hash)}::text[], ${uses.map((u) => u.at)}::timestamptz[])
          AS x(hash, at) GROUP BY hash) AS u
        WHERE k.hash = u.hash`.execute(db);
    },
  };
}
