import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { Db } from './db.js';

/**
 * One statement of a hot path (the webhook ingress: ingress.ts), its SQL built once per store
 * rather than compiled by Kysely on every call, and, where the store has the `pg` pool, sent as a
 * named prepared statement: each connection parses and plans it once and then only binds and runs
 * it (docs/production.md, "The webhook ingress"). The name is a hash of the text, so two stores
 * with different schemas on one pool never share a name, and a statement names its columns
 * (never `*`) so that a column a later migration adds cannot change a prepared statement's result.
 */
export type Prepared<R> = (values: readonly unknown[], executor?: Db) => Promise<R[]>;

export function preparer(db: Db, pool: pg.Pool | undefined) {
  return <R>(text: string): Prepared<R> => {
    const name = `agentrun_${hashOf(text)}`;
    const viaKysely = async (values: readonly unknown[], executor: Db) =>
      (await executor.executeQuery(CompiledQuery.raw(text, [...values]))).rows as R[];
    if (!pool) return (values, executor = db) => viaKysely(values, executor);
    return async (values, executor) => {
      // A transaction (`executor`) holds its own connection: the statement runs there, unnamed.
      if (executor) return viaKysely(values, executor);
      return (await pool.query({ name, text, values: values as unknown[] })).rows as R[];
    };
  };
}

/** Two FNV-1a hashes (different seeds), 64 bits in hex: short enough for a statement name (63 bytes at most). */
function hashOf(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** `"schema"."name"` for SQL built as text; the schema was checked as a plain identifier (schema-name.ts). */
export const qualified = (schema: string, name: string): string => `"${schema}"."${name}"`;
